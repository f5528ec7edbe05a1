package entities

import (
	"context"
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongKey = *configurationv1alpha1.KongKey

// KeyAdapter reconciles KongKeys into Konnect keys, optionally members of
// the key set of a KongKeySet in the same namespace.
type KeyAdapter struct {
	Refs    *Refs
	KeySets *controller.Informer[kongKeySet]
}

var (
	_ controller.DependentAdapter[kongKey, konnect.Key] = (*KeyAdapter)(nil)
	_ controller.Adopter[kongKey, konnect.Key]          = (*KeyAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *KeyAdapter) GroupVersionKind() schema.GroupVersionKind {
	return configurationGVK("KongKey")
}

// Managed implements controller.Adapter: a key needs a Konnect control
// plane of its own; its key set does not lend it one.
func (a *KeyAdapter) Managed(k kongKey) bool { return k.Spec.ControlPlaneRef.IsKonnect() }

// ConditionTypes implements controller.Adapter.
func (a *KeyAdapter) ConditionTypes() []string {
	return append([]string{commonv1alpha1.ConditionKeySetRefValid}, controlPlaneConditionTypes...)
}

// keySetName returns the KongKeySet a key names, "" for none. A key set
// given by raw Konnect ID is accepted by the schema but not used, as Kong
// Operator does.
func keySetName(k kongKey) string {
	ref := k.Spec.KeySetRef
	if ref == nil || ref.Type != configurationv1alpha1.KeySetRefNamespacedRef || ref.NamespacedRef == nil {
		return ""
	}
	return ref.NamespacedRef.Name
}

// Resolve implements controller.Adapter. Deleting needs only the control
// plane: a key lives there whether or not it is in a set, and Konnect
// deletes a set's keys with it (a 404 then counts as done).
func (a *KeyAdapter) Resolve(_ context.Context, k kongKey, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	status := k.ControlPlaneStatus(true)
	a.Refs.placeUnderControlPlane(b, referrerOf(a.GroupVersionKind(), k), k.Spec.ControlPlaneRef, status)
	cpID := b.res.Placement.ControlPlaneID
	if purpose == controller.ForDelete || cpID == "" {
		return b.done(), nil
	}
	name := keySetName(k)
	switch {
	case name != "":
		id, problem := inControlPlane(a.KeySets, kindKeySet, k.Namespace, name, cpID)
		if problem != "" {
			b.invalid(commonv1alpha1.ConditionKeySetRefValid, commonv1alpha1.ReasonInvalid, "%s", problem)
			return b.done(), nil
		}
		k.Status.Konnect.KeySetID = id
		b.valid(commonv1alpha1.ConditionKeySetRefValid, kindKeySet+" "+k.Namespace+"/"+name+" is Programmed")
	case k.Spec.KeySetRef != nil && k.Spec.KeySetRef.Type == configurationv1alpha1.KeySetRefKonnectID:
		k.Status.Konnect.KeySetID = ""
		b.valid(commonv1alpha1.ConditionKeySetRefValid, "keySetRef of type konnectID is not supported; the key is in no key set")
	default:
		k.Status.Konnect.KeySetID = ""
		b.valid(commonv1alpha1.ConditionKeySetRefValid, "KeySetRef is unset")
	}
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *KeyAdapter) Desired(_ context.Context, k kongKey, _ controller.Placement) (konnect.Key, error) {
	spec := k.Spec.KongKeyAPISpec
	desired := konnect.Key{
		KID:      spec.KID,
		Name:     spec.Name,
		JWK:      spec.JWK,
		Tags:     controller.Tags(k, a.GroupVersionKind(), spec.Tags, k),
		KeySetID: k.Status.Konnect.KeySetID,
	}
	if spec.PEM != nil {
		desired.PEM = &konnect.KeyPEM{PrivateKey: spec.PEM.PrivateKey, PublicKey: spec.PEM.PublicKey}
	}
	return desired, nil
}

// Create implements controller.Adapter.
func (a *KeyAdapter) Create(ctx context.Context, c *konnect.Client, _ kongKey, p controller.Placement, desired konnect.Key) (string, error) {
	created, err := c.CreateKey(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *KeyAdapter) Update(ctx context.Context, c *konnect.Client, _ kongKey, p controller.Placement, id string, desired konnect.Key) error {
	_, err := c.UpsertKey(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter.
func (a *KeyAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongKey, p controller.Placement, id string) error {
	return c.DeleteKey(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *KeyAdapter) FindByUID(ctx context.Context, c *konnect.Client, k kongKey, p controller.Placement) (string, error) {
	found, err := c.ListKeys(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(k)}})
	return firstID(found, func(k konnect.Key) string { return k.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *KeyAdapter) Dependencies() []controller.Dependency[kongKey] {
	return []controller.Dependency[kongKey]{
		controlPlaneDependency(a.Refs, func(k kongKey) []string {
			return controlPlaneKeys(k.Spec.ControlPlaneRef, k.Namespace)
		}),
		{
			Name:   "keySet",
			Source: a.KeySets,
			Keys: func(k kongKey) []string {
				if name := keySetName(k); name != "" {
					return []string{key(k.Namespace, name)}
				}
				return nil
			},
		},
		grantDependency(a.Refs, func(k kongKey) []string {
			return otherNamespaces(k.Namespace, controlPlaneNamespace(k.Spec.ControlPlaneRef, k.Namespace))
		}),
	}
}

// AdoptOptions implements controller.Adopter.
func (a *KeyAdapter) AdoptOptions(k kongKey) *commonv1alpha1.AdoptOptions { return k.Spec.Adopt }

// Fetch implements controller.Adopter.
func (a *KeyAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongKey, p controller.Placement, id string) (konnect.Key, string, error) {
	found, err := c.GetKey(ctx, p.ControlPlaneID, id)
	return found, controller.UIDFromTags(found.Tags), err
}

// Differences implements controller.Adopter: kid, name, the JWK (when
// either side has one, compared as JSON) and the PEM pair.
func (a *KeyAdapter) Differences(desired, actual konnect.Key) []string {
	var d diff
	d.check("kid", desired.KID == actual.KID)
	d.check("name", desired.Name == actual.Name)
	if desired.JWK != "" || actual.JWK != "" {
		d.check("jwk", sameJSON(desired.JWK, actual.JWK))
	}
	var want, have konnect.KeyPEM
	if desired.PEM != nil {
		want = *desired.PEM
	}
	if actual.PEM != nil {
		have = *actual.PEM
	}
	d.check("pem", samePEM(want.PrivateKey, have.PrivateKey) && samePEM(want.PublicKey, have.PublicKey))
	return d
}

// sameJSON compares two JSON documents by value, and anything else by
// text.
func sameJSON(a, b string) bool {
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return a == b
	}
	return reflect.DeepEqual(va, vb)
}
