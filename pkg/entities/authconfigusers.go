package entities

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// maxNamedUsers bounds how many users a DeletionBlocked message names.
const maxNamedUsers = 10

// blockedBy says which control planes keep a configuration being deleted.
func blockedBy(users []controlPlane) string {
	names := make([]string, 0, len(users))
	for _, cp := range users {
		name := fmt.Sprintf("%s %s/%s", kindControlPlane, cp.Namespace, cp.Name)
		if isBeingDeleted(cp) {
			name += " (being deleted)"
		}
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) > maxNamedUsers {
		names = append(names[:maxNamedUsers], fmt.Sprintf("and %d more", len(names)-maxNamedUsers))
	}
	return fmt.Sprintf("kept by the finalizer %s until no control plane uses it; still used by %s",
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
