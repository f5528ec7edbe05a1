package entities

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// Where the entities of Konnect's newer APIs live: in the organisation of
// an auth configuration (a portal, an event gateway), or under a parent
// entity named with an ObjectRef (a portal's page, a control plane's
// config store), whose credentials they use.

// inOrganization places a kind's entities in the organisation whose
// credentials the KonnectAPIAuthConfiguration that konnect(obj) names
// gives; another namespace's needs a KongReferenceGrant.
func inOrganization[T controller.Entity](refs *Refs, gvk schema.GroupVersionKind, konnect func(T) *konnectv1alpha2.KonnectConfiguration) placed[T] {
	return placed[T]{
		refs:       refs,
		conditions: []string{commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ConditionAPIAuthValid},
		steps: []func(*resolver, T){func(b *resolver, obj T) {
			b.res.Placement.Auth = refs.authOf(b, referrerOf(gvk, obj), obj.GetName(), konnect(obj))
		}},
		dependencies: []controller.Dependency[T]{{
			Name: "authConfig", Source: refs.AuthConfigs,
			Keys: func(obj T) []string { return authKeys(obj, konnect(obj)) },
		}},
		namespaces: []func(T) []string{func(obj T) []string { return []string{authNamespaceOf(obj, konnect(obj))} }},
		managed:    func(T) bool { return true },
	}
}

// authNamespaceOf is the namespace of the auth configuration that konnect,
// the spec.konnect of obj, names.
func authNamespaceOf(obj metav1.Object, konnect *konnectv1alpha2.KonnectConfiguration) string {
	if ns := konnect.AuthRef.Namespace; ns != nil && *ns != "" {
		return *ns
	}
	return obj.GetNamespace()
}

// authKeys returns the key of the auth configuration that konnect, the
// spec.konnect of obj, names.
func authKeys(obj metav1.Object, konnect *konnectv1alpha2.KonnectConfiguration) []string {
	if konnect.AuthRef.Name == "" {
		return nil
	}
	return []string{key(authNamespaceOf(obj, konnect), konnect.AuthRef.Name)}
}

// parentByObjectRef names an entity's parent with an ObjectRef: the kind
// and condition of the parent, and where the child's status records the
// parent's Konnect ID.
type parentByObjectRef[T controller.Entity] struct {
	kind, condition string
	// field names the reference in messages; fieldOfRef(kind) when empty.
	field string
	ref   func(T) *commonv1alpha1.ObjectRef
	// recorded returns the parent's ID the status records; record writes
	// it.
	recorded func(T) string
	record   func(T, string)
}

// named resolves the reference to the namespace and name of the parent
// object, refusing a konnectID: the operator needs the object, whose
// credentials the entity uses.
func (r parentByObjectRef[T]) named(b *resolver, obj T) (namespace, name string, ok bool) {
	ref := r.ref(obj)
	namespace, name, ok = ref.Named(obj.GetNamespace())
	if !ok {
		if b.forDelete() {
			b.gone() // nothing can have been created without the parent
			return "", "", false
		}
		b.refuse(r.condition, commonv1alpha1.ReasonInvalid,
			"%s of type %s is not supported: name the %s with type namespacedRef, as the operator uses its credentials",
			r.fieldName(), ref.Type, r.kind)
	}
	return namespace, name, ok
}

// fieldName names the reference's spec field.
func (r parentByObjectRef[T]) fieldName() string {
	if r.field != "" {
		return r.field
	}
	return fieldOfRef(r.kind)
}

// moved clears the entity's ID when it was created under another parent
// (the parent was created again): the ID means nothing there. When
// deleting, such an entity went with the old parent.
func (r parentByObjectRef[T]) moved(b *resolver, obj T, parentID string) {
	recorded := r.recorded(obj)
	if recorded != "" && recorded != parentID {
		status := obj.KonnectStatus(true)
		if b.forDelete() && status.ID != "" {
			b.gone()
		}
		status.ID = ""
	}
	r.record(obj, parentID)
}

// keys returns the key of the parent object, for dependency indexes.
func (r parentByObjectRef[T]) keys(obj T) []string {
	if namespace, name, ok := r.ref(obj).Named(obj.GetNamespace()); ok {
		return []string{key(namespace, name)}
	}
	return nil
}

// namespaces returns the parent's namespace, for the grants a reference
// into it needs.
func (r parentByObjectRef[T]) namespaces(obj T) []string {
	namespace, _, _ := r.ref(obj).Named(obj.GetNamespace())
	return []string{namespace}
}

// fieldOfRef names the spec field that refers to a parent kind.
func fieldOfRef(kind string) string {
	if kind == kindControlPlane {
		return "spec.controlPlaneRef"
	}
	return fmt.Sprintf("spec.%sRef", lowerFirst(kind))
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// underParentEntity places a kind's entities under the parent entity that
// ref names (an object of parents, which holds the credentials in its
// spec.konnect): the child lives in the parent's organisation with the
// parent's credentials, and the parent's Konnect ID travels in
// Placement.ParentID. When deleting, a parent gone from Konnect took the
// child with it.
func underParentEntity[T, P controller.Entity](refs *Refs, gvk, parentGVK schema.GroupVersionKind, parents *controller.Informer[P],
	konnect func(P) *konnectv1alpha2.KonnectConfiguration, ref parentByObjectRef[T]) placed[T] {
	return placed[T]{
		refs: refs,
		conditions: []string{
			ref.condition, commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ConditionResolvedRefs,
		},
		steps: []func(*resolver, T){func(b *resolver, obj T) {
			namespace, name, ok := ref.named(b, obj)
			if !ok {
				return
			}
			from := referrerOf(gvk, obj)
			if namespace != from.namespace && !refs.crossNamespaceRef(b, from, parentGVK.Group, ref.kind, namespace, name) {
				b.notReady()
				return
			}
			p, parentID := parent(b, parents, ref.condition, ref.kind, namespace, name)
			if parentID == "" {
				return
			}
			ref.moved(b, obj, parentID)
			b.res.Placement.ParentID = parentID
			b.res.Placement.Auth = refs.authOf(b, referrerOf(parentGVK, p), p.GetName(), konnect(p))
		}},
		dependencies: []controller.Dependency[T]{{Name: dependencyOf(ref.kind), Source: parents, Keys: ref.keys}},
		namespaces:   []func(T) []string{ref.namespaces},
		managed:      func(T) bool { return true },
	}
}

// dependencyOf names the dependency of the objects whose parent is of
// kind: a parent being deleted waits for them (its kind's UsedBy).
func dependencyOf(kind string) string { return lowerFirst(kind) }

// underControlPlaneByObjectRef places a kind's entities in the control
// plane that ref names (a KonnectGatewayControlPlane object), with its
// credentials.
func underControlPlaneByObjectRef[T controller.Entity](refs *Refs, gvk schema.GroupVersionKind, ref parentByObjectRef[T]) placed[T] {
	return placed[T]{
		refs:       refs,
		conditions: controlPlaneConditionTypes,
		steps: []func(*resolver, T){func(b *resolver, obj T) {
			namespace, name, ok := ref.named(b, obj)
			if !ok {
				return
			}
			cpRef := &commonv1alpha1.ControlPlaneRef{
				Type:                 commonv1alpha1.ControlPlaneRefKonnectNamespacedRef,
				KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: name, Namespace: namespace},
			}
			cp := refs.controlPlane(b, referrerOf(gvk, obj), cpRef, false, true)
			if cp == nil {
				return
			}
			b.res.Placement.Auth = refs.auth(b, cp)
			ref.moved(b, obj, cp.Status.ID)
			b.res.Placement.ControlPlaneID = cp.Status.ID
		}},
		dependencies: []controller.Dependency[T]{controlPlaneDependency(refs, ref.keys)},
		namespaces:   []func(T) []string{ref.namespaces},
		managed:      func(T) bool { return true },
	}
}
