package controller

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// Tools that know nothing of Konnect (kstatus, which Flux and kpt use;
// kubectl wait; Argo CD's health checks) read an object's standing from
// conditions of their own: Ready, Reconciling and Stalled, and the status's
// observedGeneration. Programmed stays what Kong Operator's clients read;
// the readiness conditions are derived from it here, for every kind alike.

// Standing is where an object stands as a whole.
type Standing int

const (
	// Current: the object is Programmed for its generation (Ready=True).
	Current Standing = iota
	// Progressing: the operator works towards the spec, or waits for what
	// may still come by itself (Reconciling=True).
	Progressing
	// Stalled: the object cannot progress without a change (Stalled=True).
	Stalled
)

// Verdict is an object's standing, with the reason and message that say
// why (those of its Programmed condition, mostly).
type Verdict struct {
	Standing Standing
	Reason   string
	Message  string
}

// readinessHolder is an object whose status carries the readiness
// conditions and observedGeneration.
type readinessHolder interface {
	conditionHolder
	SetObservedGeneration(generation int64)
}

// readinessTypes are the conditions SetReadiness derives: never a cause of
// their own, so they are left out of the messages built from the others.
var readinessTypes = map[string]bool{
	commonv1alpha1.ConditionReady:       true,
	commonv1alpha1.ConditionReconciling: true,
	commonv1alpha1.ConditionStalled:     true,
}

// SetReadiness sets Ready, Reconciling and Stalled from v, with kstatus's
// polarities (Reconciling and Stalled are only present while True), and
// records that the status reports on the object's generation. The same
// verdict leaves the status as it was, so that no write follows.
func SetReadiness(obj readinessHolder, v Verdict) {
	ready := Condition(commonv1alpha1.ConditionReady, metav1.ConditionFalse, v.Reason, v.Message)
	abnormal := ""
	switch v.Standing {
	case Current:
		ready.Status = metav1.ConditionTrue
		RemoveCondition(obj, commonv1alpha1.ConditionReconciling)
		RemoveCondition(obj, commonv1alpha1.ConditionStalled)
	case Progressing:
		abnormal = commonv1alpha1.ConditionReconciling
		RemoveCondition(obj, commonv1alpha1.ConditionStalled)
	case Stalled:
		abnormal = commonv1alpha1.ConditionStalled
		RemoveCondition(obj, commonv1alpha1.ConditionReconciling)
	}
	SetCondition(obj, ready)
	if abnormal != "" {
		dropSchemaDefault(obj, abnormal)
		SetCondition(obj, TrueCondition(abnormal, v.Reason, v.Message))
	}
	obj.SetObservedGeneration(obj.GetGeneration())
}

// dropSchemaDefault removes the condition that the schema's default set (its
// transition time is the epoch), so that the operator's first verdict
// gives it a time of its own.
func dropSchemaDefault(obj conditionHolder, conditionType string) {
	if c := meta.FindStatusCondition(obj.GetConditions(), conditionType); c != nil && c.LastTransitionTime.Time.Equal(time.Unix(0, 0)) {
		RemoveCondition(obj, conditionType)
	}
}

// Reason is the reason of Programmed=False for an object whose references
// are in this state.
func (s RefState) Reason() string {
	switch s {
	case RefBlocked:
		return commonv1alpha1.ReasonBlockedByReference
	case RefRefused:
		return commonv1alpha1.ReasonConditionWithStatusFalseExists
	}
	return commonv1alpha1.ReasonWaitingForReferences
}

// Standing is the standing of an object whose references are in this
// state.
func (s RefState) Standing() Standing {
	if s == RefWaiting {
		return Progressing
	}
	return Stalled
}

// RefStateOf is the state of a reference to an object with these
// conditions, which cannot be used: blocked when that object is Stalled
// itself, waiting while it may still come right.
func RefStateOf(conditions []metav1.Condition) RefState {
	if IsConditionTrue(conditions, commonv1alpha1.ConditionStalled) {
		return RefBlocked
	}
	return RefWaiting
}

// IsReferenceReason reports whether Programmed=False with this reason
// means that the object waits for its references (the other reference
// conditions say which, and why) rather than failed on its own.
func IsReferenceReason(reason string) bool {
	switch reason {
	case commonv1alpha1.ReasonConditionWithStatusFalseExists, commonv1alpha1.ReasonWaitingForReferences, commonv1alpha1.ReasonBlockedByReference:
		return true
	}
	return false
}
