package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	events "k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// fakeAsync plays an entity that Konnect provisions in the background: its
// progress in Konnect is whatever the test sets; what the object's status
// recorded is what the last create, update or read saw.
type fakeAsync struct {
	progress, recorded Progress
	gone               bool
	reads              int
	// busy makes Update answer ErrInTransition.
	busy bool
}

// withAsync turns the fixture's kind into an asynchronous one.
func (f *reconcilerFixture) withAsync(a *fakeAsync) {
	k := f.reconciler.kind
	k.Async = &Async[svc]{
		Recorded: func(svc) Progress { return a.recorded },
		Read: func(context.Context, konnect.API, svc, Placement, string) (Progress, error) {
			a.reads++
			if a.gone {
				return Progress{}, &konnect.NotFoundError{Operation: "get network", StatusCode: 404}
			}
			a.recorded = a.progress
			return a.progress, nil
		},
	}
	create, update := k.Create, k.Update
	k.Create = func(ctx context.Context, api konnect.API, s svc, p Placement, desired string) (string, Snapshot, error) {
		a.recorded = a.progress
		return create(ctx, api, s, p, desired)
	}
	k.Update = func(ctx context.Context, api konnect.API, s svc, p Placement, id, desired string) (Snapshot, error) {
		a.recorded = a.progress
		if a.busy {
			f.counts.updates++
			return Snapshot{}, ErrInTransition
		}
		return update(ctx, api, s, p, id, desired)
	}
	f.reconciler.pendingBackoff, f.reconciler.pendingBackoffMax = time.Second, 4*time.Second
}

func (f *reconcilerFixture) programmed(t *testing.T, name string) *metav1.Condition {
	t.Helper()
	got, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return meta.FindStatusCondition(got.Status.Conditions, commonv1alpha1.ConditionProgrammed)
}

func (f *reconcilerFixture) events() []string {
	var out []string
	for {
		select {
		case e := <-f.reconciler.recorder.(*events.FakeRecorder).Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func TestAsyncEntityIsProgrammedOnceKonnectHasProvisionedIt(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	a := &fakeAsync{progress: Progress{Phase: Transient, State: "initializing"}}
	f.withAsync(a)
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")

	result, err := f.reconciler.Reconcile(ctx, key)
	if err != nil || result.RequeueAfter != time.Second {
		t.Fatalf("create: result %+v, err %v; want a read again after the first pending delay", result, err)
	}
	c := f.programmed(t, "svc")
	if c.Status != metav1.ConditionFalse || c.Reason != commonv1alpha1.ReasonProvisioning || !strings.Contains(c.Message, "initializing") {
		t.Fatalf("while initializing: Programmed = %+v", c)
	}
	// Still initializing: read again, each time a little later.
	for _, want := range []time.Duration{2 * time.Second, 4 * time.Second, 4 * time.Second} {
		f.refresh(t, "svc")
		f.clock.Step(time.Second)
		result, err = f.reconciler.Reconcile(ctx, key)
		if err != nil || result.RequeueAfter != want {
			t.Fatalf("still initializing: result %+v, err %v; want %s", result, err, want)
		}
	}
	if a.reads != 4 || f.counts.updates != 0 || f.counts.creates != 1 {
		t.Fatalf("%d reads, %d updates, %d creates; want 4 reads (one after the create) and nothing written again", a.reads, f.counts.updates, f.counts.creates)
	}
	a.progress = Progress{Phase: Settled, State: "ready"}
	f.refresh(t, "svc")
	result, err = f.reconciler.Reconcile(ctx, key)
	if err != nil || result.RequeueAfter != time.Minute {
		t.Fatalf("ready: result %+v, err %v; want the sync period", result, err)
	}
	if c := f.programmed(t, "svc"); c.Status != metav1.ConditionTrue {
		t.Fatalf("ready: Programmed = %+v", c)
	}
	events := strings.Join(f.events(), "\n")
	if !strings.Contains(events, EventCreated) || !strings.Contains(events, EventProvisioned+" KongService entity-1 is ready") {
		t.Errorf("events = %s", events)
	}
	// Settled: back to the sync period, no more reads.
	f.refresh(t, "svc")
	f.clock.Step(10 * time.Second)
	if result, err = f.reconciler.Reconcile(ctx, key); err != nil || a.reads != 5 || result.RequeueAfter >= time.Minute || result.RequeueAfter < 40*time.Second {
		t.Fatalf("settled: result %+v, err %v, %d reads; want the rest of the sync period and no read", result, err, a.reads)
	}
}

func TestAsyncEntityThatFailsToProvisionIsReported(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	f.withAsync(&fakeAsync{progress: Progress{Phase: Failed, State: "offline", Message: "insufficient capacity"}})
	_, ctx := ktesting.NewTestContext(t)
	result, err := f.reconciler.Reconcile(ctx, cache.NewObjectName("ns", "svc"))
	if err != nil || result.RequeueAfter != time.Minute {
		t.Fatalf("result %+v, err %v; want the sync period (Konnect will not change it soon)", result, err)
	}
	c := f.programmed(t, "svc")
	if c.Status != metav1.ConditionFalse || c.Reason != commonv1alpha1.ReasonProvisioningFailed || !strings.Contains(c.Message, "offline in Konnect: insufficient capacity") {
		t.Fatalf("Programmed = %+v", c)
	}
	if events := strings.Join(f.events(), "\n"); !strings.Contains(events, "Warning "+EventProvisioningFailed) {
		t.Errorf("no Warning event: %s", events)
	}
}

func TestAsyncUpdateRefusedInTransitionIsWrittenOnceSettled(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	a := &fakeAsync{progress: Progress{Phase: Settled, State: "ready"}}
	f.withAsync(a)
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	svc, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, "svc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Host = "b.example.com"
	svc.Generation++
	if _, err := f.client.ConfigurationV1alpha1().KongServices("ns").Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.refresh(t, "svc")
	a.busy, a.progress = true, Progress{Phase: Transient, State: "updating"}
	result, err := f.reconciler.Reconcile(ctx, key)
	if err != nil || result.RequeueAfter != time.Second || f.counts.updates != 1 {
		t.Fatalf("busy: result %+v, err %v, %d updates; want one refused update and a pending read", result, err, f.counts.updates)
	}
	a.busy, a.progress = false, Progress{Phase: Settled, State: "ready"}
	f.refresh(t, "svc")
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	if f.counts.updates != 2 {
		t.Fatalf("%d updates: the refused change was not written again", f.counts.updates)
	}
}

func TestAsyncDeletionWaitsUntilKonnectHasFinished(t *testing.T) {
	deleting := newService("svc")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	deleting.Finalizers = []string{commonv1alpha1.FinalizerKonnectCleanup}
	deleting.KonnectStatus(true).ID = "entity-1"
	f := newReconcilerFixture(t, deleting)
	a := &fakeAsync{progress: Progress{Phase: Transient, State: "initializing"}}
	f.withAsync(a)
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")

	steps := []struct {
		name     string
		progress Progress
		deletes  int
		reason   string
	}{
		{"initializing: not deleted yet", Progress{Phase: Transient, State: "initializing"}, 0, commonv1alpha1.ReasonDeleting},
		{"in use: not deleted yet", Progress{Phase: Settled, State: "ready", Blocked: "a data-plane group uses it"}, 0, commonv1alpha1.ReasonDeleting},
		{"ready and free: deleted, now terminating", Progress{Phase: Settled, State: "ready"}, 1, commonv1alpha1.ReasonDeleting},
	}
	for _, step := range steps {
		a.progress = step.progress
		if step.deletes == 1 {
			// What Konnect answers to the read that follows the delete.
			deleteFn := f.reconciler.kind.Delete
			f.reconciler.kind.Delete = func(ctx context.Context, api konnect.API, s svc, p Placement, id string) error {
				a.progress = Progress{Phase: Transient, State: "terminating"}
				return deleteFn(ctx, api, s, p, id)
			}
		}
		result, err := f.reconciler.Reconcile(ctx, key)
		if err != nil || result.RequeueAfter == 0 {
			t.Fatalf("%s: result %+v, err %v; want a pending read", step.name, result, err)
		}
		if f.counts.deletes != step.deletes {
			t.Fatalf("%s: %d deletes, want %d", step.name, f.counts.deletes, step.deletes)
		}
		if c := f.programmed(t, "svc"); c == nil || c.Reason != step.reason {
			t.Fatalf("%s: Programmed = %+v", step.name, c)
		}
		f.refresh(t, "svc")
	}
	// Still terminating: read, not deleted again.
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil || f.counts.deletes != 1 {
		t.Fatalf("terminating: err %v, %d deletes", err, f.counts.deletes)
	}
	got, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, "svc", metav1.GetOptions{})
	if err != nil || len(got.Finalizers) != 1 {
		t.Fatalf("while terminating: err %v, finalizers %v; want the cleanup finalizer kept", err, got.Finalizers)
	}
	a.gone = true
	f.refresh(t, "svc")
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatal(err)
	}
	got, err = f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, "svc", metav1.GetOptions{})
	if err == nil && len(got.Finalizers) != 0 {
		t.Fatalf("finalizers %v left once Konnect no longer shows the entity", got.Finalizers)
	}
	if events := strings.Join(f.events(), "\n"); !strings.Contains(events, EventDeleting) || !strings.Contains(events, EventDeleted) {
		t.Errorf("events = %s", events)
	}
}
