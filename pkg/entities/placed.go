package entities

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// Short names for the API types every kind's description uses.
type (
	cpRef        = commonv1alpha1.ControlPlaneRef
	adoptOptions = commonv1alpha1.AdoptOptions
	schemaGVK    = schema.GroupVersionKind
)

// placedEntity is an entity that records the control plane it lives in.
type placedEntity interface {
	controller.Entity
	ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef
}

// placed is the part of a kind's description that its references decide:
// where its entities live in Konnect, the conditions that say whether the
// references can be used, and the objects whose changes reconcile it again.
// It is built from references, each resolved by one step.
type placed[T controller.Entity] struct {
	refs         *Refs
	conditions   []string
	steps        []func(b *resolver, obj T)
	dependencies []controller.Dependency[T]
	// namespaces return the namespaces obj refers into; a KongReferenceGrant
	// changing in another one reconciles obj again.
	namespaces []func(obj T) []string
	managed    func(obj T) bool
}

// reference is one more reference of a kind: the conditions that report
// it, the step that resolves it, the objects it names and the namespaces
// it points into.
type reference[T controller.Entity] struct {
	conditions   []string
	resolve      func(b *resolver, obj T)
	dependencies []controller.Dependency[T]
	namespaces   func(obj T) []string
}

// with adds a reference.
func (p placed[T]) with(ref reference[T]) placed[T] {
	p.conditions = append(slices.Clone(p.conditions), ref.conditions...)
	p.steps = append(slices.Clone(p.steps), ref.resolve)
	p.dependencies = append(slices.Clone(p.dependencies), ref.dependencies...)
	if ref.namespaces != nil {
		p.namespaces = append(slices.Clone(p.namespaces), ref.namespaces)
	}
	return p
}

// resolve runs every step.
func (p placed[T]) resolve(ctx context.Context, obj T, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(ctx, purpose)
	for _, step := range p.steps {
		step(b, obj)
	}
	return b.result()
}

// allDependencies are the dependencies, with one on the KongReferenceGrants
// of every namespace the references point into.
func (p placed[T]) allDependencies() []controller.Dependency[T] {
	if len(p.namespaces) == 0 {
		return p.dependencies
	}
	return append(slices.Clone(p.dependencies), grantDependency(p.refs, func(obj T) []string {
		var all []string
		for _, namespaces := range p.namespaces {
			all = append(all, namespaces(obj)...)
		}
		return otherNamespaces(obj.GetNamespace(), all...)
	}))
}

// controlPlaneConditionTypes are the conditions of every kind with a direct
// control-plane reference.
var controlPlaneConditionTypes = []string{
	commonv1alpha1.ConditionControlPlaneRefValid,
	commonv1alpha1.ConditionAPIAuthResolvedRef,
	commonv1alpha1.ConditionAPIAuthValid,
	commonv1alpha1.ConditionResolvedRefs,
}

// underControlPlane places a kind's entities in the control plane that
// ref(obj), a konnectNamespacedRef, names. Objects with another kind of
// reference (or none) are not the operator's.
func underControlPlane[T placedEntity](refs *Refs, gvk schema.GroupVersionKind, ref func(T) *cpRef) placed[T] {
	return placed[T]{
		refs:       refs,
		conditions: controlPlaneConditionTypes,
		steps: []func(*resolver, T){func(b *resolver, obj T) {
			refs.placeUnderControlPlane(b, referrerOf(gvk, obj), ref(obj), obj.ControlPlaneStatus(true))
		}},
		dependencies: []controller.Dependency[T]{
			controlPlaneDependency(refs, func(obj T) []string { return controlPlaneKeys(ref(obj), obj.GetNamespace()) }),
		},
		namespaces: []func(T) []string{func(obj T) []string { return []string{controlPlaneNamespace(ref(obj), obj.GetNamespace())} }},
		managed:    func(obj T) bool { return ref(obj).IsKonnect() },
	}
}

// parentRef names the Konnect parent of an entity: the object of kind
// parentKind that its spec refers to.
type parentRef[T controller.Entity] struct {
	// kind of the parent, and the condition that says whether it can be used.
	kind, condition string
	// name returns the parent's namespace and name; ok is false when obj
	// has no parent reference.
	name func(obj T) (namespace, name string, ok bool)
	// record writes the parent's Konnect ID into obj's status.
	record func(obj T, id string)
	// recorded, when set, reads the parent's Konnect ID that obj's status
	// recorded before: an entity created under another parent (the parent
	// was created again) is created again under this one, or, when
	// deleting, went with the old one.
	recorded func(obj T) string
	// grantCondition, when set, is the condition on which a cross-namespace
	// reference that no KongReferenceGrant allows is reported (the
	// reference's own condition, for some kinds); otherwise ResolvedRefs
	// reports it.
	grantCondition string
}

// conditions are the reference conditions of a child of this parent.
func (ref parentRef[T]) conditions() []string {
	if ref.grantCondition == "" {
		return append([]string{ref.condition}, controlPlaneConditionTypes...)
	}
	return append([]string{ref.condition}, slices.DeleteFunc(slices.Clone(controlPlaneConditionTypes), func(c string) bool {
		return c == commonv1alpha1.ConditionResolvedRefs
	})...)
}

// permitted reports whether obj may refer to its parent in namespace, and
// records the verdict.
func (ref parentRef[T]) permitted(b *resolver, refs *Refs, from referrer, namespace, name string) bool {
	if namespace == from.namespace {
		return true
	}
	if ref.grantCondition == "" {
		return refs.crossNamespaceRef(b, from, groupConfiguration, ref.kind, namespace, name)
	}
	if refs.permitted(from, groupConfiguration, ref.kind, namespace, name) {
		return true
	}
	b.refuse(ref.grantCondition, commonv1alpha1.ReasonRefNotPermitted,
		"no KongReferenceGrant in namespace %s allows the reference to %s", namespace, describe(ref.kind, namespace, name))
	return false
}

// childOf places a kind's entities under a parent entity that must exist in
// Konnect first (a target's upstream, an SNI's certificate, a key's key
// set). The child lives in the parent's control plane with the parent's
// credentials; the parent's Konnect ID travels in Placement.ParentID. When
// deleting, a parent that is gone from Konnect took the child with it.
func childOf[T placedEntity, P placedEntity](refs *Refs, gvk schema.GroupVersionKind, parents *controller.Informer[P], parentControlPlane func(P) *cpRef, ref parentRef[T]) placed[T] {
	return placed[T]{
		refs:       refs,
		conditions: ref.conditions(),
		steps: []func(*resolver, T){func(b *resolver, obj T) {
			placeUnderParent(b, refs, gvk, parents, parentControlPlane, ref, obj)
		}},
		dependencies: []controller.Dependency[T]{parentDependency(parents, ref)},
		namespaces: []func(T) []string{func(obj T) []string {
			namespace, _, _ := ref.name(obj)
			return []string{namespace}
		}},
		managed: func(obj T) bool {
			namespace, name, ok := ref.name(obj)
			if !ok {
				return false
			}
			p, err := parents.Get(namespace, name)
			// A missing parent is reported on the child rather than ignored.
			return err != nil || parentControlPlane(p).IsKonnect()
		},
	}
}

// placeUnderParent resolves obj's parent and places obj's entity under it,
// in the parent's control plane with its credentials.
func placeUnderParent[T placedEntity, P placedEntity](b *resolver, refs *Refs, gvk schema.GroupVersionKind, parents *controller.Informer[P], parentControlPlane func(P) *cpRef, ref parentRef[T], obj T) {
	status := obj.ControlPlaneStatus(true)
	namespace, name, ok := ref.name(obj)
	if !ok {
		b.refuse(ref.condition, commonv1alpha1.ReasonInvalid, "no %s is named", ref.kind)
		return
	}
	// Deleting, a parent that is gone took the entity with it: nothing is
	// sent, and no grant is needed. Otherwise the reference must be
	// allowed before the parent is used.
	if !b.forDelete() && !ref.permitted(b, refs, referrerOf(gvk, obj), namespace, name) {
		b.notReady()
		return
	}
	p, parentID := parent(b, parents, ref.condition, ref.kind, namespace, name)
	if parentID == "" {
		return
	}
	if b.forDelete() && !ref.permitted(b, refs, referrerOf(gvk, obj), namespace, name) {
		b.notReady()
		return
	}
	if ref.recorded != nil {
		b.movedFrom(status, ref.recorded(obj), parentID)
	}
	ref.record(obj, parentID)
	b.res.Placement.ParentID = parentID
	// The parent's reference to its control plane is the parent's, checked
	// as its own: the child's entity is written with the token it reaches.
	parentReferrer := referrer{group: groupConfiguration, kind: ref.kind, namespace: p.GetNamespace()}
	cp := refs.controlPlane(b, parentReferrer, parentControlPlane(p), false, true)
	if cp == nil {
		return
	}
	b.res.Placement.Auth = refs.auth(b, cp)
	b.placeIn(status, cp.Status.ID)
}

// parentDependency reconciles a child again when its parent changes.
func parentDependency[T controller.Entity](source controller.EventSource, ref parentRef[T]) controller.Dependency[T] {
	return controller.Dependency[T]{
		Name:   "parent",
		Source: source,
		Keys: func(obj T) []string {
			if namespace, name, ok := ref.name(obj); ok {
				return []string{key(namespace, name)}
			}
			return nil
		},
	}
}

// describe names an object for messages: "Kind namespace/name".
func describe(kind, namespace, name string) string {
	return fmt.Sprintf("%s %s/%s", kind, namespace, name)
}
