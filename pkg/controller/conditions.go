package controller

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// Condition builds a condition of the given type; SetCondition fills in its
// observedGeneration and transition time.
func Condition(conditionType string, status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: conditionType, Status: status, Reason: reason, Message: message}
}

// TrueCondition builds a True condition.
func TrueCondition(conditionType, reason, message string) metav1.Condition {
	return Condition(conditionType, metav1.ConditionTrue, reason, message)
}

// FalseCondition builds a False condition.
func FalseCondition(conditionType, reason, message string) metav1.Condition {
	return Condition(conditionType, metav1.ConditionFalse, reason, message)
}

// maxConditionMessage is the longest message metav1.Condition allows.
const maxConditionMessage = 32768

const truncated = " …(truncated)"

// conditionHolder is anything with status conditions.
type conditionHolder interface {
	metav1.Object
	GetConditions() []metav1.Condition
	SetConditions([]metav1.Condition)
}

// SetCondition sets c on obj with obj's generation. The transition time
// only moves when the status changes, so an unchanged condition leaves the
// status byte-for-byte equal and no write follows.
func SetCondition(obj conditionHolder, c metav1.Condition) {
	c.ObservedGeneration = obj.GetGeneration()
	if len(c.Message) > maxConditionMessage {
		// The API server refuses longer messages, and the whole status
		// write with them.
		c.Message = strings.ToValidUTF8(c.Message[:maxConditionMessage-len(truncated)], "") + truncated
	}
	conditions := obj.GetConditions()
	meta.SetStatusCondition(&conditions, c)
	obj.SetConditions(conditions)
}

// RemoveCondition removes the condition of the given type, if present.
func RemoveCondition(obj conditionHolder, conditionType string) {
	conditions := obj.GetConditions()
	if meta.RemoveStatusCondition(&conditions, conditionType) {
		obj.SetConditions(conditions)
	}
}

// IsConditionTrue reports whether obj has the condition of the given type
// with status True.
func IsConditionTrue(conditions []metav1.Condition, conditionType string) bool {
	return meta.IsStatusConditionTrue(conditions, conditionType)
}

// IsProgrammed reports whether obj is Programmed=True for its current
// generation.
func IsProgrammed(obj conditionHolder) bool {
	c := meta.FindStatusCondition(obj.GetConditions(), commonv1alpha1.ConditionProgrammed)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == obj.GetGeneration()
}

// falseConditionsMessage names the False conditions among conditions, with
// their messages, in a stable order: the Programmed message when a
// reference is not usable. Programmed itself is left out, and so are the
// readiness conditions derived from it: they hold the message of the
// previous reconcile, and quoting them would make the message grow by one
// copy of itself on every reconcile.
func falseConditionsMessage(conditions []metav1.Condition) string {
	var parts []string
	for _, c := range conditions {
		if c.Status == metav1.ConditionFalse && isCause(c) {
			parts = append(parts, c.Type+": "+c.Message)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// NotProgrammedCause says why an object with these conditions is not
// Programmed, for the messages of the objects that refer to it: a
// reference that fails because its own reference fails names the root
// cause. It is the Programmed message, except when the object only waits
// for its own references (IsReferenceReason): then it is the
// messages of its False reference conditions, which name those references
// and, the same way, their causes. It is "" when the object has no verdict
// yet.
func NotProgrammedCause(conditions []metav1.Condition) string {
	programmed := meta.FindStatusCondition(conditions, commonv1alpha1.ConditionProgrammed)
	switch {
	case programmed == nil || programmed.Status != metav1.ConditionFalse:
		return ""
	case !IsReferenceReason(programmed.Reason):
		return programmed.Message
	}
	var parts []string
	for _, c := range conditions {
		if c.Status == metav1.ConditionFalse && isCause(c) && c.Message != "" {
			parts = append(parts, c.Message)
		}
	}
	if len(parts) == 0 {
		return programmed.Message
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// isCause reports whether a condition may say why an object is not
// Programmed: any but Programmed itself and those derived from it.
func isCause(c metav1.Condition) bool {
	return c.Type != commonv1alpha1.ConditionProgrammed && !readinessTypes[c.Type]
}
