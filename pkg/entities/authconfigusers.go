package entities

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// maxNamedUsers bounds how many users a DeletionBlocked message names.
const maxNamedUsers = 10

// userName names an object that uses a configuration.
func userName(kind string, obj metav1.Object) string {
	name := fmt.Sprintf("%s %s/%s", kind, obj.GetNamespace(), obj.GetName())
	if obj.GetDeletionTimestamp() != nil {
		name += " (being deleted)"
	}
	return name
}

// blockedBy says which users keep a configuration being deleted.
func blockedBy(users []string) string {
	names := slices.Sorted(slices.Values(users))
	if len(names) > maxNamedUsers {
		names = append(names[:maxNamedUsers], fmt.Sprintf("and %d more", len(names)-maxNamedUsers))
	}
	return fmt.Sprintf("kept by the finalizer %s until no control plane or network uses it; still used by %s",
		commonv1alpha1.FinalizerAPIAuthInUse, strings.Join(names, ", "))
}

// conditionChanged reports whether obj's condition of the given type
// differs from cached's in status, reason or message.
func conditionChanged(cached, obj authConfig, conditionType string) bool {
	before := meta.FindStatusCondition(cached.Status.Conditions, conditionType)
	after := meta.FindStatusCondition(obj.Status.Conditions, conditionType)
	switch {
	case after == nil:
		return false
	case before == nil:
		return true
	}
	return before.Status != after.Status || before.Reason != after.Reason || before.Message != after.Message
}
