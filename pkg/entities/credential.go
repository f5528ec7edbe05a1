package entities

import (
	"context"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// credentialTable is what differs between the five consumer credential
// kinds: their spec fields, the Secrets they can be made from, and the SDK
// calls that carry them. T is the API type, D the desired body sent to
// Konnect, A the credential Konnect answers with.
type credentialTable[T placedEntity, D, A any] struct {
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
	adopt       func(T) *adoptOptions
	setAdopt    func(T, *adoptOptions)
	userTags    func(T) []string
	// spec returns the part of obj a credential Secret decides, to compare.
	spec func(T) any
	// fromSecret writes obj's consumerRef and the credential fields of its
	// spec from a Secret's data, clearing those the data lacks.
	fromSecret func(obj T, consumer string, data map[string][]byte)
	// body builds the credential obj asks for; the consumer is not in it,
	// the calls are made under the consumer (Placement.ParentID).
	body func(obj T, tags []string) D

	calls coreCalls[D, A]
	// matches names the fields compared when adopting in match mode that
	// differ; secrets, when set, those Konnect does not answer as sent
	// (see core.secrets).
	matches func(desired D, actual *A) []string
	secrets func(desired D, actual *A) []string
	// uniqueKey, when set, returns the unique field a path names the
	// credential by (core.uniqueKey).
	uniqueKey func(D) string
	// secretValues returns the credential's secret material, which
	// Konnect may quote back in its errors (a key that is taken): its
	// answers are stripped of it before they reach conditions, Events and
	// logs. Nil: a credential with none (an ACL group).
	secretValues func(T) []string
}

// CredentialDeps are what a credential kind reads and writes.
type CredentialDeps[T controller.Object] struct {
	Refs      *Refs
	Consumers *controller.Informer[kongConsumer]
	// Objects and Clients are the kind's own objects, which the
	// credential-Secret controller creates, updates and deletes.
	Objects *controller.Informer[T]
	Clients func(namespace string) ObjectWriter[T]
}

// Credential is one consumer credential kind: its description for the
// generic loop, and its part in a KongConsumer's credential Secrets and
// deletion.
type Credential[T controller.Entity, D any] struct {
	Kind controller.Kind[T, D]
	CredentialKind
}

// typedCredentialKind is one credential kind at work: its table, what it
// reads and writes, and the objects made from Secrets that the cache does
// not show yet. It implements CredentialKind, which hides its types.
type typedCredentialKind[T placedEntity, D, A any] struct {
	deps    CredentialDeps[T]
	table   credentialTable[T, D, A]
	created *creations
}

var _ CredentialKind = (*typedCredentialKind[kongBasicAuth, struct{}, struct{}])(nil)

// newCredential describes a credential kind: Konnect credentials nested
// under the consumer's Konnect entity. The consumer gives the credential
// its control plane and API credentials, and must exist in Konnect first.
func newCredential[T placedEntity, D, A any](deps CredentialDeps[T], table credentialTable[T, D, A]) Credential[T, D] {
	c := &typedCredentialKind[T, D, A]{deps: deps, table: table, created: newCreations()}
	gvk := configurationGVK(table.kind)
	consumer := parentRef[T]{
		kind:      "KongConsumer",
		condition: commonv1alpha1.ConditionKongConsumerRefValid,
		name: func(obj T) (string, string, bool) {
			return obj.GetNamespace(), table.consumerRef(obj), true
		},
		record:   func(obj T, id string) { c.konnectStatus(obj).ConsumerID = id },
		recorded: func(obj T) string { return c.konnectStatus(obj).ConsumerID },
		// The consumer is in the credential's own namespace: no grant is
		// ever needed, and ResolvedRefs is not one of the conditions.
		grantCondition: commonv1alpha1.ConditionKongConsumerRefValid,
	}
	return Credential[T, D]{
		Kind: core[T, D, A]{
			gvk:    gvk,
			placed: childOf(deps.Refs, gvk, deps.Consumers, func(c kongConsumer) *cpRef { return c.Spec.ControlPlaneRef }, consumer),
			calls:  table.calls,
			desired: func(obj T, p controller.Placement) (D, error) {
				return table.body(obj, controller.Tags(obj, gvk, p.Cluster, table.userTags(obj), obj)), nil
			},
			adopt:        table.adopt,
			matches:      table.matches,
			secrets:      table.secrets,
			uniqueKey:    table.uniqueKey,
			secretValues: table.secretValues,
		}.kind(),
		CredentialKind: c,
	}
}

func (c *typedCredentialKind[T, D, A]) konnectStatus(obj T) *commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs {
	status := c.table.status(obj)
	if status.Konnect == nil {
		status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs{}
	}
	return status.Konnect
}

// deleteConsumerCredentials deletes every credential of this kind that the
// consumer p.ParentID holds.
func (c *typedCredentialKind[T, D, A]) deleteConsumerCredentials(ctx context.Context, api konnect.API, p controller.Placement) error {
	all, err := c.table.calls.doList(ctx, api, p)
	if err != nil {
		return err
	}
	for i := range all {
		if err := c.table.calls.doDelete(ctx, api, p, deref(c.table.calls.id(&all[i]))); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	return nil
}
