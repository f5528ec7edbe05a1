package controller

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// conditionStates renders the readiness conditions as "Type=Status/Reason"
// ("" for an absent one).
func conditionStates(obj conditionHolder) map[string]string {
	out := map[string]string{}
	for _, t := range []string{commonv1alpha1.ConditionReady, commonv1alpha1.ConditionReconciling, commonv1alpha1.ConditionStalled} {
		if c := meta.FindStatusCondition(obj.GetConditions(), t); c != nil {
			out[t] = string(c.Status) + "/" + c.Reason
		}
	}
	return out
}

func TestSetReadinessFollowsKstatusPolarities(t *testing.T) {
	for _, tc := range []struct {
		name    string
		verdict Verdict
		want    map[string]string
	}{
		{"current: Ready, nothing abnormal", Verdict{Standing: Current, Reason: commonv1alpha1.ReasonProgrammed},
			map[string]string{commonv1alpha1.ConditionReady: "True/Programmed"}},
		{"progressing: Reconciling", Verdict{Standing: Progressing, Reason: commonv1alpha1.ReasonWaitingForReferences, Message: "KongService ns/orders not found"},
			map[string]string{commonv1alpha1.ConditionReady: "False/WaitingForReferences", commonv1alpha1.ConditionReconciling: "True/WaitingForReferences"}},
		{"stalled: Stalled", Verdict{Standing: Stalled, Reason: commonv1alpha1.ReasonFailedToCreate, Message: "invalid input"},
			map[string]string{commonv1alpha1.ConditionReady: "False/FailedToCreate", commonv1alpha1.ConditionStalled: "True/FailedToCreate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// From every other standing, the status the schema's default sets included.
			for _, from := range []Standing{Current, Progressing, Stalled} {
				obj := newService("svc")
				obj.Generation = 3
				SetReadiness(obj, Verdict{Standing: from, Reason: "Before"})
				SetReadiness(obj, tc.verdict)
				if got := conditionStates(obj); !equality.Semantic.DeepEqual(got, tc.want) {
					t.Errorf("from %v: %v, want %v", from, got, tc.want)
				}
				if obj.Status.ObservedGeneration != 3 {
					t.Errorf("from %v: observedGeneration %d, want 3", from, obj.Status.ObservedGeneration)
				}
			}
		})
	}
}

func TestSetReadinessLeavesAnUnchangedStatusAsItWas(t *testing.T) {
	obj := newService("svc")
	v := Verdict{Standing: Stalled, Reason: commonv1alpha1.ReasonBlockedByReference, Message: "blocked"}
	SetReadiness(obj, v)
	before := obj.DeepCopy()
	SetReadiness(obj, v)
	if !equality.Semantic.DeepEqual(before.Status, obj.Status) {
		t.Fatalf("the same verdict changed the status:\n%+v\n%+v", before.Status, obj.Status)
	}
}

func TestSetReadinessDropsTheSchemaDefaultsTransitionTime(t *testing.T) {
	obj := newService("svc") // Reconciling=True at the epoch, as the schema's default sets it
	SetReadiness(obj, Verdict{Standing: Progressing, Reason: commonv1alpha1.ReasonWaitingForReferences})
	c := meta.FindStatusCondition(obj.Status.Conditions, commonv1alpha1.ConditionReconciling)
	if c == nil || c.LastTransitionTime.Equal(&metav1.Time{Time: metav1.Unix(0, 0).Time}) {
		t.Fatalf("Reconciling = %+v, want a transition time of the operator's own", c)
	}
}

func TestRefStateOfAReferenceFollowsItsStalledCondition(t *testing.T) {
	stalled := []metav1.Condition{TrueCondition(commonv1alpha1.ConditionStalled, commonv1alpha1.ReasonFailedToCreate, "")}
	if got := RefStateOf(stalled); got != RefBlocked {
		t.Errorf("a Stalled reference leaves its referrers %v, want blocked", got)
	}
	if got := RefStateOf(nil); got != RefWaiting {
		t.Errorf("a reference on its way leaves its referrers %v, want waiting", got)
	}
	for refState, want := range map[RefState]string{
		RefWaiting: commonv1alpha1.ReasonWaitingForReferences,
		RefBlocked: commonv1alpha1.ReasonBlockedByReference,
		RefRefused: commonv1alpha1.ReasonConditionWithStatusFalseExists,
	} {
		if got := refState.Reason(); got != want || !IsReferenceReason(got) {
			t.Errorf("reference state %v: reason %q (a reference reason: %v), want %q", refState, got, IsReferenceReason(got), want)
		}
	}
}
