package entities

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// credentialKind is what differs between the five consumer credential
// kinds: their spec fields, the Secrets they can be made from, and which
// Konnect operations carry them. T is the API type, E the Konnect entity.
type credentialKind[T controller.Entity, E any] struct {
	kind string
	// label is the konghq.com/credential value of the Secrets that become
	// objects of this kind, and required the data keys they must hold.
	label    string
	required []string
	// checkSecret reports further problems of a Secret's data; it names
	// keys, never values.
	checkSecret func(data map[string][]byte) []string

	newObject   func() T
	consumerRef func(T) string
	status      func(T) *configurationv1alpha1.KongCredentialStatus
	adopt       func(T) *commonv1alpha1.AdoptOptions
	userTags    func(T) []string
	// spec returns the part of obj a credential Secret decides, to compare.
	spec func(T) any
	// fromSecret writes obj's consumerRef and the credential fields of its
	// spec from a Secret's data, clearing those the data lacks.
	fromSecret func(obj T, consumer string, data map[string][]byte)
	// entity builds the Konnect entity obj asks for.
	entity func(obj T, tags []string, consumerID string) E

	create func(*konnect.Client, context.Context, string, string, E) (E, error)
	upsert func(*konnect.Client, context.Context, string, string, string, E) (E, error)
	get    func(*konnect.Client, context.Context, string, string, string) (E, error)
	remove func(*konnect.Client, context.Context, string, string, string) error
	list   func(*konnect.Client, context.Context, string, konnect.ListFilter) ([]E, error)
	// id, tags and consumerID read an entity Konnect answered.
	id         func(E) string
	tags       func(E) []string
	consumerID func(E) string
	// differences names the fields compared when adopting in match mode
	// that differ.
	differences func(desired, actual E) []string
}

// CredentialDeps are what a credential kind's adapter reads and writes.
type CredentialDeps[T controller.Object] struct {
	Refs      *Refs
	Consumers *controller.Informer[kongConsumer]
	// Objects and Clients are the kind's own objects, which the
	// credential-Secret controller creates, updates and deletes.
	Objects *controller.Informer[T]
	Clients func(namespace string) ObjectWriter[T]
}

// CredentialAdapter reconciles one consumer credential kind into Konnect
// credentials, nested under the consumer's Konnect entity. The consumer
// gives the credential its control plane and API credentials.
type CredentialAdapter[T controller.Entity, E any] struct {
	deps CredentialDeps[T]
	kind credentialKind[T, E]
	// created tracks the objects made from Secrets that the cache does not
	// show yet.
	created *creations
}

var _ CredentialKind = (*CredentialAdapter[kongBasicAuth, konnect.BasicAuth])(nil)

func newCredentialAdapter[T controller.Entity, E any](deps CredentialDeps[T], kind credentialKind[T, E]) *CredentialAdapter[T, E] {
	return &CredentialAdapter[T, E]{deps: deps, kind: kind, created: newCreations()}
}

// GroupVersionKind implements controller.Adapter.
func (a *CredentialAdapter[T, E]) GroupVersionKind() schema.GroupVersionKind {
	return gvk(configurationv1alpha1.GroupVersion, a.kind.kind)
}

// Managed implements controller.Adapter: a credential is the operator's
// when its consumer is bound to a Konnect control plane. A missing consumer
// is reported on the credential rather than ignored.
func (a *CredentialAdapter[T, E]) Managed(obj T) bool {
	consumer, err := a.deps.Consumers.Get(obj.GetNamespace(), a.kind.consumerRef(obj))
	return err != nil || consumer.Spec.ControlPlaneRef.IsKonnect()
}

// ConditionTypes implements controller.Adapter.
func (a *CredentialAdapter[T, E]) ConditionTypes() []string {
	return []string{
		commonv1alpha1.ConditionKongConsumerRefValid,
		commonv1alpha1.ConditionControlPlaneRefValid,
		commonv1alpha1.ConditionAPIAuthResolvedRef,
		commonv1alpha1.ConditionAPIAuthValid,
	}
}

func (a *CredentialAdapter[T, E]) konnectStatus(obj T) *commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs {
	status := a.kind.status(obj)
	if status.Konnect == nil {
		status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs{}
	}
	return status.Konnect
}

// Resolve implements controller.Adapter. The credential inherits its
// consumer's control plane and credentials; the consumer must exist in
// Konnect first.
func (a *CredentialAdapter[T, E]) Resolve(_ context.Context, obj T, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	status := a.konnectStatus(obj)
	consumer, consumerID := parent(b, a.deps.Consumers, commonv1alpha1.ConditionKongConsumerRefValid, "KongConsumer", obj.GetNamespace(), a.kind.consumerRef(obj))
	if consumerID == "" {
		return b.done(), nil
	}
	cp := a.deps.Refs.controlPlane(b, referrerOf(consumerGVK, consumer), consumer.Spec.ControlPlaneRef, false, false)
	if cp == nil {
		return b.done(), nil
	}
	b.res.Placement.Auth = a.deps.Refs.auth(b, cp, false)
	if status.ConsumerID != "" && status.ConsumerID != consumerID {
		// The consumer was created again in Konnect: the credential recorded
		// went with the old one.
		if b.forDelete() && status.ID != "" {
			b.gone()
		}
		status.ID = ""
	}
	status.ConsumerID = consumerID
	b.placeIn(&status.KonnectEntityStatusWithControlPlaneRef, cp.Status.ID)
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *CredentialAdapter[T, E]) Desired(_ context.Context, obj T, _ controller.Placement) (E, error) {
	tags := controller.Tags(obj, a.GroupVersionKind(), a.kind.userTags(obj), obj)
	return a.kind.entity(obj, tags, a.konnectStatus(obj).ConsumerID), nil
}

// Create implements controller.Adapter.
func (a *CredentialAdapter[T, E]) Create(ctx context.Context, c *konnect.Client, obj T, p controller.Placement, desired E) (string, error) {
	created, err := a.kind.create(c, ctx, p.ControlPlaneID, a.konnectStatus(obj).ConsumerID, desired)
	return a.kind.id(created), err
}

// Update implements controller.Adapter.
func (a *CredentialAdapter[T, E]) Update(ctx context.Context, c *konnect.Client, obj T, p controller.Placement, id string, desired E) error {
	_, err := a.kind.upsert(c, ctx, p.ControlPlaneID, a.konnectStatus(obj).ConsumerID, id, desired)
	return err
}

// Delete implements controller.Adapter.
func (a *CredentialAdapter[T, E]) Delete(ctx context.Context, c *konnect.Client, obj T, p controller.Placement, id string) error {
	return a.kind.remove(c, ctx, p.ControlPlaneID, a.konnectStatus(obj).ConsumerID, id)
}

// FindByUID implements controller.Adapter, through the control plane's
// flat list of the kind.
func (a *CredentialAdapter[T, E]) FindByUID(ctx context.Context, c *konnect.Client, obj T, p controller.Placement) (string, error) {
	found, err := a.kind.list(c, ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(obj)}})
	return firstID(found, a.kind.id, err)
}

// Dependencies implements controller.DependentAdapter. A change of the
// consumer (its Konnect ID, its control plane) reconciles its credentials.
func (a *CredentialAdapter[T, E]) Dependencies() []controller.Dependency[T] {
	return []controller.Dependency[T]{{
		Name:   "consumer",
		Source: a.deps.Consumers,
		Keys:   func(obj T) []string { return []string{key(obj.GetNamespace(), a.kind.consumerRef(obj))} },
	}}
}

// AdoptOptions implements controller.Adopter.
func (a *CredentialAdapter[T, E]) AdoptOptions(obj T) *commonv1alpha1.AdoptOptions {
	return a.kind.adopt(obj)
}

// Fetch implements controller.Adopter: the credential is read under the
// consumer, so one of another consumer is not found.
func (a *CredentialAdapter[T, E]) Fetch(ctx context.Context, c *konnect.Client, obj T, p controller.Placement, id string) (E, string, error) {
	actual, err := a.kind.get(c, ctx, p.ControlPlaneID, a.konnectStatus(obj).ConsumerID, id)
	return actual, controller.UIDFromTags(a.kind.tags(actual)), err
}

// Differences implements controller.Adopter.
func (a *CredentialAdapter[T, E]) Differences(desired, actual E) []string {
	return a.kind.differences(desired, actual)
}

// deleteConsumerCredentials deletes every credential of this kind that
// the consumer with the given Konnect ID holds.
func (a *CredentialAdapter[T, E]) deleteConsumerCredentials(ctx context.Context, c *konnect.Client, cp, consumerID string) error {
	all, err := a.kind.list(c, ctx, cp, konnect.ListFilter{})
	if err != nil {
		return err
	}
	for _, e := range all {
		if a.kind.consumerID(e) != consumerID {
			continue
		}
		if err := a.kind.remove(c, ctx, cp, consumerID, a.kind.id(e)); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	return nil
}
