package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2/ktesting"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// missingControlPlane is what a kind's Resolve answers while its control
// plane does not exist.
func missingControlPlane(parentGone bool) *Resolution {
	return &Resolution{ParentGone: parentGone, Conditions: []metav1.Condition{
		FalseCondition(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid, "KonnectGatewayControlPlane ns/cp not found"),
	}}
}

// drainEvents returns the Events recorded so far, as "Type Reason message".
func (f *reconcilerFixture) drainEvents() []string {
	var out []string
	for {
		select {
		case e := <-f.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// reconcileFresh reconciles with the API server's current object in the
// cache, as after the watch event of the previous reconcile's write. The
// failures it reports are what the tests look at in the status and Events.
func (f *reconcilerFixture) reconcileFresh(ctx context.Context, t *testing.T, name string) Result {
	t.Helper()
	f.refresh(t, name)
	result, _ := f.reconciler.Reconcile(ctx, cache.NewObjectName("ns", name))
	return result
}

func (f *reconcilerFixture) programmedCondition(ctx context.Context, t *testing.T, name string) metav1.Condition {
	t.Helper()
	got, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, commonv1alpha1.ConditionProgrammed)
	if c == nil {
		t.Fatal("no Programmed condition")
	}
	return *c
}

func (f *reconcilerFixture) statusWrites() int {
	n := 0
	for _, a := range f.client.Actions() {
		if a.GetVerb() == "update" && a.GetSubresource() == "status" {
			n++
		}
	}
	return n
}

func TestProgrammedMessageIsTheSameAfterTenReconciles(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deleting bool
		want     string
	}{
		{name: "syncing", want: "ControlPlaneRefValid: KonnectGatewayControlPlane ns/cp not found"},
		{name: "deleting", deleting: true, want: "cannot delete the entity from Konnect, nothing is sent: ControlPlaneRefValid: KonnectGatewayControlPlane ns/cp not found; " +
			"it is deleted once what it refers to is usable again, or annotate the object konnect.konghq.com/deletion-policy=orphan to leave the entity in Konnect and let the object go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := newService("svc")
			if tc.deleting {
				obj.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
				obj.Finalizers = []string{commonv1alpha1.FinalizerKonnectCleanup}
				obj.KonnectStatus(true).ID = "entity-1"
			}
			f := newReconcilerFixture(t, obj)
			f.counts.ready = false
			f.counts.resolution = missingControlPlane(false)
			_, ctx := ktesting.NewTestContext(t)
			for touch := range 10 {
				f.reconcileFresh(ctx, t, "svc")
				if got := f.programmedCondition(ctx, t, "svc").Message; got != tc.want {
					t.Fatalf("after %d reconciles the Programmed message is %q, want %q", touch+1, got, tc.want)
				}
			}
			if n := f.statusWrites(); n != 1 {
				t.Fatalf("%d status writes in ten reconciles of an unchanged problem, want 1", n)
			}
		})
	}
}

func TestReferenceProblemIsReportedOnceAfterTheGracePeriod(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	f.counts.ready = false
	f.counts.resolution = missingControlPlane(false)
	_, ctx := ktesting.NewTestContext(t)

	if result := f.reconcileFresh(ctx, t, "svc"); result.RequeueAfter != 10*time.Second {
		t.Fatalf("a new reference problem requeues after %s, want the grace period", result.RequeueAfter)
	}
	f.clock.Step(4 * time.Second)
	if result := f.reconcileFresh(ctx, t, "svc"); result.RequeueAfter != 6*time.Second {
		t.Fatalf("inside the grace period: requeue after %s, want the remaining 6s", result.RequeueAfter)
	}
	if events := f.drainEvents(); len(events) != 0 {
		t.Fatalf("Events during the grace period: %q", events)
	}
	f.clock.Step(6 * time.Second)
	for range 10 {
		if result := f.reconcileFresh(ctx, t, "svc"); result.RequeueAfter != 0 {
			t.Fatalf("a reported problem requeues after %s", result.RequeueAfter)
		}
		f.clock.Step(time.Minute)
	}
	events := f.drainEvents()
	if len(events) != 1 || events[0] != "Warning ReferencesNotReady ControlPlaneRefValid: KonnectGatewayControlPlane ns/cp not found" {
		t.Fatalf("Events after a problem lasting past the grace period: %q, want one ReferencesNotReady", events)
	}

	// A new cause is reported once it has lasted too.
	f.counts.resolution = &Resolution{Conditions: []metav1.Condition{
		FalseCondition(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid, "KonnectGatewayControlPlane ns/cp is being deleted"),
	}}
	f.reconcileFresh(ctx, t, "svc")
	f.clock.Step(10 * time.Second)
	f.reconcileFresh(ctx, t, "svc")
	if events := f.drainEvents(); len(events) != 1 || !strings.HasSuffix(events[0], "is being deleted") {
		t.Fatalf("Events after the cause changed: %q, want one naming the new cause", events)
	}
}

func TestReferenceWaitShorterThanTheGracePeriodRecordsNoEvent(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	f.counts.ready = false
	f.counts.resolution = missingControlPlane(false)
	_, ctx := ktesting.NewTestContext(t)
	f.reconcileFresh(ctx, t, "svc")
	f.clock.Step(time.Second)
	f.counts.ready = true
	f.reconcileFresh(ctx, t, "svc")
	f.clock.Step(time.Minute) // the requeue for the grace period comes
	f.reconcileFresh(ctx, t, "svc")
	for _, e := range f.drainEvents() {
		if strings.HasPrefix(e, "Warning") {
			t.Fatalf("Warning for a reference that became ready within a second: %q", e)
		}
	}
	if f.counts.creates != 1 {
		t.Fatalf("%d creates, want 1", f.counts.creates)
	}
}

func TestKonnectFailureIsReportedOncePerCause(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	f.counts.createErr = &konnect.InvalidInputError{Operation: "create service", StatusCode: 400, Message: "validation error",
		Fields: []konnect.FieldError{{Field: "host", Message: "invalid value"}}}
	_, ctx := ktesting.NewTestContext(t)
	for range 10 {
		f.reconcileFresh(ctx, t, "svc")
	}
	if f.counts.creates != 10 {
		t.Fatalf("%d create attempts, want 10 (the test retries by hand)", f.counts.creates)
	}
	if events := f.drainEvents(); len(events) != 1 || !strings.HasPrefix(events[0], "Warning FailedToCreate ") {
		t.Fatalf("Events after ten identical failures: %q, want one FailedToCreate", events)
	}
	f.counts.createErr = &konnect.InvalidInputError{Operation: "create service", StatusCode: 400, Message: "validation error",
		Fields: []konnect.FieldError{{Field: "port", Message: "value should be between 0 and 65535"}}}
	f.reconcileFresh(ctx, t, "svc")
	f.reconcileFresh(ctx, t, "svc")
	if events := f.drainEvents(); len(events) != 1 || !strings.Contains(events[0], "port") {
		t.Fatalf("Events after the cause changed: %q, want one naming the new cause", events)
	}
}

func TestEntityGoneWithItsControlPlaneIsReported(t *testing.T) {
	for _, tc := range []struct {
		name       string
		specChange bool
		want       int
	}{
		{name: "the control plane went", want: 1},
		{name: "the reference was changed to a missing control plane", specChange: true, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newReconcilerFixture(t, newService("svc"))
			_, ctx := ktesting.NewTestContext(t)
			f.reconcileFresh(ctx, t, "svc") // created and Programmed
			f.drainEvents()
			if tc.specChange {
				f.refresh(t, "svc")
				got, _ := f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, "svc", metav1.GetOptions{})
				got.Generation++
				got.Spec.ControlPlaneRef = &commonv1alpha1.ControlPlaneRef{Type: commonv1alpha1.ControlPlaneRefKonnectNamespacedRef,
					KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: "typo"}}
				if _, err := f.client.ConfigurationV1alpha1().KongServices("ns").Update(ctx, got, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			f.counts.ready = false
			f.counts.resolution = missingControlPlane(true)
			for range 3 {
				f.reconcileFresh(ctx, t, "svc")
			}
			var gone []string
			for _, e := range f.drainEvents() {
				if strings.HasPrefix(e, "Warning "+EventDeletedWithParent+" ") {
					gone = append(gone, e)
				}
			}
			if len(gone) != tc.want {
				t.Fatalf("DeletedWithParent Events: %q, want %d", gone, tc.want)
			}
			if tc.want > 0 && !strings.Contains(gone[0], "entity-1") {
				t.Fatalf("the Event %q does not name the entity", gone[0])
			}
		})
	}
}

func TestDeletingAnObjectWhoseControlPlaneIsGoneSaysSo(t *testing.T) {
	obj := newService("svc")
	obj.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	obj.Finalizers = []string{commonv1alpha1.FinalizerKonnectCleanup, "example.com/keep"}
	obj.KonnectStatus(true).ID = "entity-1"
	f := newReconcilerFixture(t, obj)
	f.counts.ready = false
	f.counts.resolution = &Resolution{Gone: true}
	_, ctx := ktesting.NewTestContext(t)
	f.reconcileFresh(ctx, t, "svc")
	if f.counts.deletes != 0 {
		t.Fatalf("%d deletes of an entity that went with its control plane", f.counts.deletes)
	}
	events := f.drainEvents()
	if len(events) != 1 || !strings.HasPrefix(events[0], "Normal "+EventDeletedWithParent+" KongService entity-1 ") {
		t.Fatalf("Events: %q, want one DeletedWithParent naming the entity", events)
	}
	got, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, "svc", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Finalizers) != 1 {
		t.Fatalf("finalizers %v, want the cleanup finalizer removed", got.Finalizers)
	}
}
