package entities

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
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
	return fmt.Sprintf("kept by the finalizer %s until no control plane, network or portal uses it; still used by %s",
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

// AuthUser is a kind whose objects name a KonnectAPIAuthConfiguration in
// their own spec.konnect, beside control planes and cloud-gateway networks
// (a Portal): while one of them does, the configuration is kept, so that
// their entities can still be deleted from Konnect.
type AuthUser interface {
	// index indexes the kind's objects by the key of the configuration
	// they use.
	index() error
	// usersOf names the objects that use the configuration with key k and
	// that allowed says may (by kind and object).
	usersOf(k string, allowed func(kind string, obj metav1.Object) bool) ([]string, error)
	// dependency reconciles a configuration again when an object starts
	// or stops using it.
	dependency() controller.Dependency[authConfig]
}

// NewAuthUser describes a kind of objects that use auth configurations:
// keys returns the key ("namespace/name") of the one obj uses.
func NewAuthUser[T controller.Object](kind string, objects *controller.Informer[T], keys func(obj T) []string) AuthUser {
	return authUser[T]{kind: kind, objects: objects, keys: keys}
}

type authUser[T controller.Object] struct {
	kind    string
	objects *controller.Informer[T]
	keys    func(T) []string
}

func (u authUser[T]) indexName() string { return "authConfigOf" + u.kind }

func (u authUser[T]) index() error { return u.objects.AddIndex(u.indexName(), u.keys) }

func (u authUser[T]) usersOf(k string, allowed func(kind string, obj metav1.Object) bool) ([]string, error) {
	objects, err := u.objects.ByIndex(u.indexName(), k)
	names := make([]string, 0, len(objects))
	for _, obj := range objects {
		if allowed(u.kind, obj) {
			names = append(names, userName(u.kind, obj))
		}
	}
	return names, err
}

func (u authUser[T]) dependency() controller.Dependency[authConfig] {
	return controller.Dependency[authConfig]{
		Name: u.kind + "User",
		Source: controller.SourceOf[T]{Informer: u.objects, Key: func(obj T) string {
			if keys := u.keys(obj); len(keys) > 0 {
				return keys[0]
			}
			return ""
		}},
		Keys: func(ac authConfig) []string { return []string{key(ac.Namespace, ac.Name)} },
	}
}
