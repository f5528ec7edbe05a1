package controller

import (
	"context"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	events "k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned/fake"
	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type svc = *configurationv1alpha1.KongService

// counts are the Konnect operations a countingKind was asked for, and
// what it answers.
type counts struct {
	creates, updates, deletes, finds, resolves int
	ready                                      bool
	// resolution, when set, is what Resolve answers while not ready.
	resolution *Resolution
	// createErr, when set, is what Create answers.
	createErr error
	// writtenBy is the cluster identity each create and update was placed
	// with.
	writtenBy []string
}

// countingKind stands in for a kind: it counts the Konnect operations the
// reconciler asks for and answers with fixed IDs.
func countingKind(c *counts) *Kind[svc, string] {
	return &Kind[svc, string]{
		GVK: schema.GroupVersionKind{Group: "configuration.konghq.com", Version: "v1alpha1", Kind: "KongService"},
		Resolve: func(context.Context, svc, Purpose) (Resolution, error) {
			c.resolves++
			if !c.ready && c.resolution != nil {
				return *c.resolution, nil
			}
			return Resolution{Ready: c.ready, Placement: Placement{ControlPlaneID: "cp", Auth: Auth{ServerURL: "https://konnect.example", OrgID: "org"}}}, nil
		},
		Desired: func(_ context.Context, s svc, _ Placement) (string, error) { return s.Spec.Host, nil },
		Create: func(_ context.Context, _ konnect.API, _ svc, p Placement, _ string) (string, Snapshot, error) {
			c.creates++
			c.writtenBy = append(c.writtenBy, p.Cluster)
			if c.createErr != nil {
				return "", Snapshot{}, c.createErr
			}
			return "entity-1", Snapshot{}, nil
		},
		Update: func(_ context.Context, _ konnect.API, _ svc, p Placement, _, _ string) (Snapshot, error) {
			c.updates++
			c.writtenBy = append(c.writtenBy, p.Cluster)
			return Snapshot{}, nil
		},
		Delete: func(context.Context, konnect.API, svc, Placement, string) error {
			c.deletes++
			return nil
		},
		FindByUID: func(context.Context, konnect.API, svc, Placement) (string, error) {
			c.finds++
			return "", nil
		},
	}
}

type noAPI struct{}

func (noAPI) API(string, string) (konnect.API, error) { return konnect.API{}, nil }

// reconcilerFixture runs an EntityReconciler over a fake clientset.
type reconcilerFixture struct {
	counts     *counts
	reconciler *EntityReconciler[svc, string]
	client     *fake.Clientset
	informer   cache.SharedIndexInformer
	clock      *clocktesting.FakeClock
	recorder   *events.FakeRecorder
}

func newReconcilerFixture(t *testing.T, objects ...runtime.Object) *reconcilerFixture {
	client := fake.NewSimpleClientset(objects...)
	factory := externalversions.NewSharedInformerFactory(client, 0)
	shared := factory.Configuration().V1alpha1().KongServices().Informer()
	informer := NewInformer[svc](configurationv1alpha1.Resource("kongservices"), map[string]cache.SharedIndexInformer{"": shared})
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := &counts{ready: true}
	recorder := events.NewFakeRecorder(100)
	r := NewEntityReconciler(countingKind(c), informer,
		func(ns string) Client[svc] { return client.ConfigurationV1alpha1().KongServices(ns) },
		noAPI{}, recorder, ReconcilerOptions{SyncPeriod: time.Minute, Clock: clock, ReferenceGracePeriod: 10 * time.Second})
	r.Started(clock.Now().Add(-time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &reconcilerFixture{counts: c, reconciler: r, client: client, informer: shared, clock: clock, recorder: recorder}
}

// refresh waits until the informer's cache holds the API server's current
// object, as the reconciler would see it after the watch event. It does not
// put the object there itself: a watch event of an earlier write, still on
// its way, would overwrite it with the older object.
func (f *reconcilerFixture) refresh(t *testing.T, name string) {
	t.Helper()
	want, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(context.Background(), time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		cached, ok, err := f.informer.GetStore().GetByKey("ns/" + name)
		if err != nil || !ok {
			return false, err
		}
		got := cached.(svc)
		return got.Generation == want.Generation && apiequality.Semantic.DeepEqual(got.Spec, want.Spec) &&
			apiequality.Semantic.DeepEqual(got.Status, want.Status) && apiequality.Semantic.DeepEqual(got.Finalizers, want.Finalizers) &&
			apiequality.Semantic.DeepEqual(got.Annotations, want.Annotations) && apiequality.Semantic.DeepEqual(got.DeletionTimestamp, want.DeletionTimestamp), nil
	})
	if err != nil {
		t.Fatalf("the informer's cache did not catch up with %s: %v", name, err)
	}
}

func newService(name string) *configurationv1alpha1.KongService {
	return &configurationv1alpha1.KongService{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + "name", Generation: 1,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
		Spec: configurationv1alpha1.KongServiceSpec{KongServiceAPISpec: configurationv1alpha1.KongServiceAPISpec{Host: "a.example.com"}},
		// As the schema's default sets it.
		Status: configurationv1alpha1.KongServiceStatus{Conditions: []metav1.Condition{
			{Type: commonv1alpha1.ConditionProgrammed, Status: metav1.ConditionUnknown, Reason: commonv1alpha1.ReasonPending, Message: "Waiting for controller", LastTransitionTime: metav1.Unix(0, 0)},
			{Type: commonv1alpha1.ConditionReconciling, Status: metav1.ConditionTrue, Reason: commonv1alpha1.ReasonPending, Message: "Waiting for controller", LastTransitionTime: metav1.Unix(0, 0)},
		}},
	}
}

func TestReconcileCreatesOnceWhenTheStatusWriteFails(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	failed := false
	f.client.PrependReactor("update", "kongservices", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() == "status" && !failed {
			failed = true
			return true, nil, apierrors.NewConflict(configurationv1alpha1.Resource("kongservices"), "svc", nil)
		}
		return false, nil, nil
	})
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")
	if _, err := f.reconciler.Reconcile(ctx, key); !apierrors.IsConflict(err) {
		t.Fatalf("first reconcile: err = %v, want the status write's conflict", err)
	}
	f.refresh(t, "svc")
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatalf("second reconcile: %v", err)
	}
	if f.counts.creates != 1 {
		t.Fatalf("the entity was created %d times, want once", f.counts.creates)
	}
	got, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, "svc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Konnect == nil || got.Status.Konnect.ID != "entity-1" || !IsProgrammed(got) {
		t.Fatalf("status = %+v, want the created ID and Programmed", got.Status)
	}
}

func TestReconcileDeletesOnceWhenTheCacheLagsBehind(t *testing.T) {
	deleting := newService("svc")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	// Another controller's finalizer keeps the object after ours goes.
	deleting.Finalizers = []string{commonv1alpha1.FinalizerKonnectCleanup, "example.com/other"}
	deleting.KonnectStatus(true).ID = "entity-1"
	f := newReconcilerFixture(t, deleting)
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")
	for attempt := range 2 {
		// The second reconcile still sees the cleanup finalizer in the cache.
		if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
			t.Fatalf("reconcile %d: %v", attempt+1, err)
		}
	}
	if f.counts.deletes != 1 {
		t.Fatalf("the entity was deleted %d times, want once", f.counts.deletes)
	}
	f.refresh(t, "svc")
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil || f.counts.deletes != 1 {
		t.Fatalf("after the cache caught up: err = %v, %d deletes", err, f.counts.deletes)
	}
	got, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, "svc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Finalizers) != 1 || got.Finalizers[0] != "example.com/other" {
		t.Fatalf("finalizers = %v, want only the other controller's", got.Finalizers)
	}
}

func TestReconcileWaitsForTheSyncPeriod(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")
	result, err := f.reconciler.Reconcile(ctx, key)
	if err != nil || result.RequeueAfter != time.Minute {
		t.Fatalf("create: result %+v, err %v; want a requeue after the sync period", result, err)
	}
	f.refresh(t, "svc")
	actions := len(f.client.Actions())

	f.clock.Step(20 * time.Second)
	result, err = f.reconciler.Reconcile(ctx, key)
	if err != nil || result.RequeueAfter != 40*time.Second {
		t.Fatalf("inside the period: result %+v, err %v; want a requeue for the remaining 40s", result, err)
	}
	if f.counts.updates != 0 || len(f.client.Actions()) != actions {
		t.Fatalf("inside the period the reconciler wrote: %d updates, %d API actions", f.counts.updates, len(f.client.Actions())-actions)
	}

	f.clock.Step(40 * time.Second)
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	if f.counts.updates != 1 {
		t.Fatalf("after the period: %d updates, want 1", f.counts.updates)
	}
	if len(f.client.Actions()) != actions {
		t.Fatalf("an unchanged status was written again")
	}
}

func TestReconcileWithUnreadyReferencesMakesNoKonnectCall(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	f.counts.ready = false
	_, ctx := ktesting.NewTestContext(t)
	if _, err := f.reconciler.Reconcile(ctx, cache.NewObjectName("ns", "svc")); err != nil {
		t.Fatal(err)
	}
	if f.counts.creates+f.counts.updates+f.counts.finds != 0 {
		t.Fatalf("Konnect operations with broken references: %+v", f.counts)
	}
	got, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, "svc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Finalizers) != 0 {
		t.Fatalf("finalizers %v added before anything was created", got.Finalizers)
	}
	if IsConditionTrue(got.Status.Conditions, commonv1alpha1.ConditionProgrammed) {
		t.Fatal("Programmed with broken references")
	}
}

// TestReconcilePlacesWritesAsThisCluster: the reconciler places every
// write with its cluster identity, which the kinds write as the k8s-cluster
// tag; an object Programmed by an earlier process (one that wrote no such
// tag) is not written again only for the tag after a restart.
func TestReconcilePlacesWritesAsThisCluster(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")

	f := newReconcilerFixture(t, newService("svc"))
	f.reconciler.cluster = "cluster-a"
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	f.refresh(t, "svc")
	f.clock.Step(time.Minute)
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	if len(f.counts.writtenBy) != 2 || f.counts.writtenBy[0] != "cluster-a" || f.counts.writtenBy[1] != "cluster-a" {
		t.Fatalf("the create and the update were placed as %q, want cluster-a", f.counts.writtenBy)
	}

	// After a restart (an upgrade that starts writing the identity): the
	// object is Programmed for its generation, and its entity stays as it is.
	programmed := newService("svc")
	programmed.Finalizers = []string{commonv1alpha1.FinalizerKonnectCleanup}
	programmed.KonnectStatus(true).ID = "entity-1"
	SetCondition(programmed, TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, ""))
	restarted := newReconcilerFixture(t, programmed)
	restarted.reconciler.cluster = "cluster-a"
	reads := 0
	restarted.reconciler.kind.Owner = func(context.Context, konnect.API, svc, Placement, string) (string, error) {
		reads++
		return "", nil
	}
	if _, err := restarted.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	if c := restarted.counts; c.creates+c.updates != 0 || reads != 0 {
		t.Fatalf("after a restart: %d creates, %d updates, %d owner reads; want none", c.creates, c.updates, reads)
	}
}
