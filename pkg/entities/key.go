package entities

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongKey = *configurationv1alpha1.KongKey

// KeyKind describes KongKeys: Konnect keys of a control plane, optionally
// members of the key set of a KongKeySet in the same namespace. A key needs
// a Konnect control plane of its own; its key set does not lend it one.
func KeyKind(refs *Refs, keySets *controller.Informer[kongKeySet]) controller.Kind[kongKey, components.Key] {
	gvk := configurationGVK("KongKey")
	placed := underControlPlane(refs, gvk, func(k kongKey) *cpRef { return k.Spec.ControlPlaneRef }).
		with(reference[kongKey]{
			conditions: []string{commonv1alpha1.ConditionKeySetRefValid},
			resolve: func(b *resolver, k kongKey) {
				// Deleting needs only the control plane: a key lives there
				// whether or not it is in a set, and Konnect deletes a set's
				// keys with it (a 404 then counts as done).
				if cpID := b.res.Placement.ControlPlaneID; !b.forDelete() && cpID != "" {
					k.Status.Konnect.KeySetID = keySetRef(b, keySets, k, cpID)
				}
			},
			dependencies: []controller.Dependency[kongKey]{{
				Name:   "keySet",
				Source: keySets,
				Keys: func(k kongKey) []string {
					if name := keySetName(k); name != "" {
						return []string{key(k.Namespace, name)}
					}
					return nil
				},
			}},
		})
	return core[kongKey, components.Key, components.Key]{
		gvk:    gvk,
		placed: placed,
		calls:  keyCalls,
		desired: func(k kongKey, p controller.Placement) (components.Key, error) {
			spec := k.Spec.KongKeyAPISpec
			body := components.Key{Kid: spec.KID, Name: optional(spec.Name), Jwk: optional(spec.JWK), Tags: controller.Tags(k, gvk, p.Cluster, spec.Tags, k)}
			if spec.PEM != nil {
				body.Pem = &components.Pem{PrivateKey: optional(spec.PEM.PrivateKey), PublicKey: optional(spec.PEM.PublicKey)}
			}
			if st := k.Status.Konnect; st != nil && st.KeySetID != "" {
				body.Set = &components.Set{ID: &st.KeySetID}
			}
			return body, nil
		},
		adopt:     func(k kongKey) *adoptOptions { return k.Spec.Adopt },
		matches:   keyMatches,
		uniqueKey: func(body components.Key) string { return deref(body.Name) },
		secretValues: func(k kongKey) []string {
			values := []string{k.Spec.JWK}
			if k.Spec.PEM != nil {
				values = append(values, k.Spec.PEM.PrivateKey)
			}
			return values
		},
	}.kind()
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

// keySetRef resolves a key's key set, sets KeySetRefValid and returns the
// set's Konnect ID, "" for none.
func keySetRef(b *resolver, keySets *controller.Informer[kongKeySet], k kongKey, controlPlaneID string) string {
	name := keySetName(k)
	switch {
	case name != "":
		id, problem, refState := inControlPlane(b, keySets, commonv1alpha1.ConditionKeySetRefValid, kindKeySet, k.Namespace, name, controlPlaneID)
		if problem != "" {
			b.invalid(commonv1alpha1.ConditionKeySetRefValid, commonv1alpha1.ReasonInvalid, "%s", problem)
			b.refStateAt(refState)
		}
		if id == "" {
			return ""
		}
		b.valid(commonv1alpha1.ConditionKeySetRefValid, describe(kindKeySet, k.Namespace, name)+" is Programmed")
		return id
	case k.Spec.KeySetRef != nil && k.Spec.KeySetRef.Type == configurationv1alpha1.KeySetRefKonnectID:
		b.valid(commonv1alpha1.ConditionKeySetRefValid, "keySetRef of type konnectID is not supported; the key is in no key set")
	default:
		b.valid(commonv1alpha1.ConditionKeySetRefValid, "KeySetRef is unset")
	}
	return ""
}

// keyMatches compares kid, name, the JWK (when either side has one,
// compared as JSON) and the PEM pair.
func keyMatches(desired components.Key, actual *components.Key) []string {
	var d diff
	d.check("kid", desired.Kid == actual.Kid)
	d.check("name", deref(desired.Name) == deref(actual.Name))
	if jwk, other := deref(desired.Jwk), deref(actual.Jwk); jwk != "" || other != "" {
		d.check("jwk", sameJSON(jwk, other))
	}
	want, have := desired.GetPem(), actual.GetPem()
	d.check("pem", samePEM(deref(want.GetPrivateKey()), deref(have.GetPrivateKey())) && samePEM(deref(want.GetPublicKey()), deref(have.GetPublicKey())))
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

var keyCalls = coreCalls[components.Key, components.Key]{
	entity: "key",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.Key) (*components.Key, error) {
		res, err := api.Keys.CreateKey(ctx, p.ControlPlaneID, body)
		return res.GetKey(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.Key) (*components.Key, error) {
		res, err := api.Keys.UpsertKey(ctx, operations.UpsertKeyRequest{ControlPlaneID: p.ControlPlaneID, KeyID: id, Key: body})
		return res.GetKey(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Key, error) {
		res, err := api.Keys.GetKey(ctx, id, p.ControlPlaneID)
		return res.GetKey(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.Keys.DeleteKey(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Key, *string, error) {
		res, err := api.Keys.ListKey(ctx, operations.ListKeyRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.Key).GetID,
	tags: (*components.Key).GetTags,
}
