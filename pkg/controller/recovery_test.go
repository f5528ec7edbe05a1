package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2/ktesting"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// konnectEntities stands in for a control plane's entities of a kind found
// by identity: the listed entities, and what the reconciler asked of them.
type konnectEntities struct {
	entities []Listed[string]
	// inTheWay is what Recovery.FindByKey answers after a conflict.
	inTheWay              *Listed[string]
	lists, reads, lookups int
}

// entityFor is an entity written for the service ns/name by the operator
// of cluster (none when ""), holding host.
func entityFor(id, name, cluster, host string) Listed[string] {
	return Listed[string]{
		ID: id, Owner: cluster, Object: ObjectIdentity{Kind: "KongService", Namespace: "ns", Name: name},
		Differences: func(desired string) []string {
			if desired != host {
				return []string{"host"}
			}
			return nil
		},
	}
}

// recoveryFixture is a reconciler over a kind found by identity, in cluster
// "cluster-a".
func recoveryFixture(t *testing.T, inKonnect *konnectEntities, objects ...runtime.Object) *reconcilerFixture {
	f := newReconcilerFixture(t, objects...)
	k := f.reconciler.kind
	k.List = func(context.Context, konnect.API, Placement, bool) ([]Listed[string], error) {
		inKonnect.lists++
		return append([]Listed[string](nil), inKonnect.entities...), nil
	}
	k.Recover = &Recovery[svc, string]{
		ByIdentity: true,
		Read: func(_ context.Context, _ konnect.API, _ svc, _ Placement, id string) (Listed[string], error) {
			inKonnect.reads++
			for _, l := range inKonnect.entities {
				if l.ID == id {
					return l, nil
				}
			}
			return Listed[string]{}, &konnect.NotFoundError{Operation: "get service", Message: "not found"}
		},
		FindByKey: func(context.Context, konnect.API, svc, Placement, string) (*Listed[string], error) {
			inKonnect.lookups++
			return inKonnect.inTheWay, nil
		},
	}
	f.reconciler.cluster = "cluster-a"
	return f
}

func serviceNamed(name string, uid types.UID) *configurationv1alpha1.KongService {
	s := newService(name)
	s.UID = uid
	return s
}

func (f *reconcilerFixture) statusID(t *testing.T, name string) string {
	t.Helper()
	got, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.KonnectStatus(false).GetKonnectID()
}

// Objects recreated without their status take back the entities written
// for their names, listed once for all of them: no create, and no write
// when Konnect holds what they declare.
func TestObjectsTakeBackTheirEntitiesByIdentity(t *testing.T) {
	inKonnect := &konnectEntities{entities: []Listed[string]{
		entityFor("e-same", "same", "cluster-a", "a.example.com"),
		entityFor("e-changed", "changed", "", "old.example.com"), // no cluster tag: Kong Operator's
		entityFor("e-taken", "taken", "cluster-a", "a.example.com"),
	}}
	other := serviceNamed("other", "uid-other")
	other.KonnectStatus(true).ID = "e-taken"
	f := recoveryFixture(t, inKonnect, serviceNamed("same", "new-1"), serviceNamed("changed", "new-2"), serviceNamed("fresh", "new-3"),
		serviceNamed("taken", "new-4"), other)
	_, ctx := ktesting.NewTestContext(t)
	for _, name := range []string{"same", "changed", "fresh", "taken"} {
		if _, err := f.reconciler.Reconcile(ctx, cache.NewObjectName("ns", name)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if inKonnect.lists != 1 {
		t.Errorf("the control plane was listed %d times, want once for every object", inKonnect.lists)
	}
	for name, want := range map[string]string{"same": "e-same", "changed": "e-changed", "fresh": "entity-1", "taken": "entity-1"} {
		if got := f.statusID(t, name); got != want {
			t.Errorf("%s: status ID %q, want %q", name, got, want)
		}
	}
	// One create each for the object without an entity and the one whose
	// entity another object stands for (by its status); one write for the
	// entity that differs.
	if f.counts.creates != 2 || f.counts.updates != 1 {
		t.Errorf("%d creates and %d updates, want 2 and 1", f.counts.creates, f.counts.updates)
	}
	if events := strings.Join(f.drainEvents(), "\n"); !strings.Contains(events, EventTookBack+" Took back KongService e-same") || !strings.Contains(events, "without a write") {
		t.Errorf("no Event says the entity was taken back without a write: %s", events)
	}
}

// An entity written for the object by another cluster's operator is left
// alone: the object says whose it is and how to take it over, and reads it
// again once a sync period instead of creating.
func TestAnotherClustersEntityIsReportedNotCreatedOver(t *testing.T) {
	inKonnect := &konnectEntities{entities: []Listed[string]{entityFor("e-b", "svc", "cluster-b", "a.example.com")}}
	f := recoveryFixture(t, inKonnect, serviceNamed("svc", "new-1"))
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")
	result, err := f.reconciler.Reconcile(ctx, key)
	if err != nil || result.RequeueAfter != time.Minute {
		t.Fatalf("result %+v, err %v; want a look again after the sync period", result, err)
	}
	c := f.programmedCondition(ctx, t, "svc")
	if c.Status != metav1.ConditionFalse || c.Reason != commonv1alpha1.ReasonOwnedByOtherCluster ||
		!strings.Contains(c.Message, "cluster cluster-b") || !strings.Contains(c.Message, "--cluster-identity=cluster-b") {
		t.Fatalf("Programmed = %s/%s %q; want the owner and the flag named", c.Status, c.Reason, c.Message)
	}
	f.refresh(t, "svc")
	f.clock.Step(30 * time.Second)
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	if f.counts.creates != 0 || inKonnect.reads != 0 || inKonnect.lists != 1 {
		t.Fatalf("within the period: %d creates, %d reads, %d listings; want none but the first listing", f.counts.creates, inKonnect.reads, inKonnect.lists)
	}
	f.clock.Step(time.Minute)
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	if f.counts.creates != 0 || inKonnect.reads != 1 {
		t.Fatalf("after the period: %d creates, %d reads; want the entity read again and nothing created", f.counts.creates, inKonnect.reads)
	}
	// The other cluster's entity goes: the object creates its own.
	inKonnect.entities = nil
	f.clock.Step(time.Minute)
	f.refresh(t, "svc")
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	if f.counts.creates != 1 || f.statusID(t, "svc") != "entity-1" {
		t.Fatalf("%d creates, status ID %q; want the entity created once it was gone", f.counts.creates, f.statusID(t, "svc"))
	}
}

// A create refused as a conflict finds the entity that has the name,
// says what it is and how to adopt it, and is not tried again while the
// spec stays the same.
func TestConflictIsExplainedNotRetried(t *testing.T) {
	ui := Listed[string]{ID: "e-ui"} // made in Konnect's UI: no identity tags
	inKonnect := &konnectEntities{entities: []Listed[string]{ui}, inTheWay: &ui}
	f := recoveryFixture(t, inKonnect, serviceNamed("svc", "new-1"))
	f.reconciler.kind.Adopt = &Adoption[svc, string]{Options: func(svc) *commonv1alpha1.AdoptOptions { return nil }}
	f.counts.createErr = &konnect.ConflictError{Operation: "create service", StatusCode: 400, Message: "data constraint error"}
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	c := f.programmedCondition(ctx, t, "svc")
	if c.Reason != commonv1alpha1.ReasonConflictsWithExistingEntity || !strings.Contains(c.Message, "e-ui") || !strings.Contains(c.Message, "spec.adopt") {
		t.Fatalf("Programmed = %s/%s %q; want the conflict with e-ui and how to adopt it", c.Status, c.Reason, c.Message)
	}
	for range 3 {
		f.refresh(t, "svc")
		f.clock.Step(time.Minute)
		if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	if f.counts.creates != 1 {
		t.Fatalf("the create was tried %d times over three sync periods, want once", f.counts.creates)
	}
	if inKonnect.reads != 3 {
		t.Fatalf("the entity in the way was read %d times, want once a period", inKonnect.reads)
	}
}

// An object that goes while its entity stays (its finalizer removed by
// hand) makes the next create list again: the entity it left is shown.
func TestAnObjectGoneWithItsEntityInKonnectListsAgain(t *testing.T) {
	inKonnect := &konnectEntities{}
	f := recoveryFixture(t, inKonnect, serviceNamed("first", "uid-1"))
	_, ctx := ktesting.NewTestContext(t)
	if _, err := f.reconciler.Reconcile(ctx, cache.NewObjectName("ns", "first")); err != nil {
		t.Fatal(err)
	}
	if inKonnect.lists != 1 || f.counts.creates != 1 {
		t.Fatalf("%d listings, %d creates", inKonnect.lists, f.counts.creates)
	}
	// Restored under the same name, with a new UID and no status, while
	// the entity stays in Konnect.
	inKonnect.entities = []Listed[string]{entityFor("entity-1", "first", "cluster-a", "a.example.com")}
	if err := f.client.ConfigurationV1alpha1().KongServices("ns").Delete(ctx, "first", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.client.ConfigurationV1alpha1().KongServices("ns").Create(ctx, serviceNamed("first", "uid-2"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		obj, exists, err := f.informer.GetIndexer().GetByKey("ns/first")
		return err == nil && exists && obj.(svc).UID == "uid-2", nil
	})
	if err != nil {
		t.Fatalf("the informer never showed the restored object: %v", err)
	}
	if _, err := f.reconciler.Reconcile(ctx, cache.NewObjectName("ns", "first")); err != nil {
		t.Fatal(err)
	}
	if inKonnect.lists != 2 || f.counts.creates != 1 || f.statusID(t, "first") != "entity-1" {
		t.Fatalf("%d listings, %d creates, status ID %q; want a second listing and the entity taken back", inKonnect.lists, f.counts.creates, f.statusID(t, "first"))
	}
}

// An entity taken back without a write stays unwritten when the status
// write that records it fails (the cache lagged behind the object): the
// next reconcile takes it back again, as it would have the first time,
// instead of writing the spec over an entity that already holds it.
func TestAnEntityTakenBackWithoutAWriteIsNotWrittenWhenItsStatusWriteFails(t *testing.T) {
	inKonnect := &konnectEntities{entities: []Listed[string]{entityFor("e-same", "same", "cluster-a", "a.example.com")}}
	f := recoveryFixture(t, inKonnect, serviceNamed("same", "new-1"))
	failed := false
	f.client.PrependReactor("update", "kongservices", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() == "status" && !failed {
			failed = true
			return true, nil, apierrors.NewConflict(configurationv1alpha1.Resource("kongservices"), "same", nil)
		}
		return false, nil, nil
	})
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "same")
	if _, err := f.reconciler.Reconcile(ctx, key); !apierrors.IsConflict(err) {
		t.Fatalf("first reconcile: err = %v, want the status write's conflict", err)
	}
	f.refresh(t, "same")
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatalf("second reconcile: %v", err)
	}
	if !failed || f.counts.creates != 0 || f.counts.updates != 0 || inKonnect.lists != 2 {
		t.Fatalf("status write failed: %v; %d creates, %d updates and %d listings, want none, none and a listing again", failed, f.counts.creates, f.counts.updates, inKonnect.lists)
	}
	if got := f.statusID(t, "same"); got != "e-same" {
		t.Fatalf("status ID %q, want the entity taken back", got)
	}
}
