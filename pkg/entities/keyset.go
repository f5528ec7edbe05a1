package entities

import (
	"context"
	"slices"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongKeySet = *configurationv1alpha1.KongKeySet

// KeySetKind describes KongKeySets: Konnect key sets of a control plane.
// Konnect deletes a set's keys with it.
func KeySetKind(refs *Refs) controller.Kind[kongKeySet, components.KeySet] {
	gvk := configurationGVK(kindKeySet)
	return core[kongKeySet, components.KeySet, components.KeySet]{
		gvk:    gvk,
		placed: underControlPlane(refs, gvk, func(s kongKeySet) *cpRef { return s.Spec.ControlPlaneRef }),
		calls:  keySetCalls,
		desired: func(s kongKeySet, p controller.Placement) (components.KeySet, error) {
			return components.KeySet{Name: &s.Spec.Name, Tags: controller.Tags(s, gvk, p.Cluster, s.Spec.Tags, s)}, nil
		},
		adopt:     func(s kongKeySet) *adoptOptions { return s.Spec.Adopt },
		matches:   keySetMatches,
		uniqueKey: func(body components.KeySet) string { return deref(body.Name) },
	}.kind()
}

// keySetMatches compares the name, and the user's tags (spec.tags and the
// konghq.com/tags annotation), each of which the entity must carry.
func keySetMatches(desired components.KeySet, actual *components.KeySet) []string {
	var d diff
	d.check("name", deref(desired.Name) == deref(actual.Name))
	d.check("tags", !slices.ContainsFunc(controller.UserTags(desired.Tags), func(t string) bool { return !slices.Contains(actual.Tags, t) }))
	return d
}

var keySetCalls = coreCalls[components.KeySet, components.KeySet]{
	entity: "key_set",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.KeySet) (*components.KeySet, error) {
		res, err := api.KeySets.CreateKeySet(ctx, p.ControlPlaneID, &body)
		return res.GetKeySet(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.KeySet) (*components.KeySet, error) {
		res, err := api.KeySets.UpsertKeySet(ctx, operations.UpsertKeySetRequest{ControlPlaneID: p.ControlPlaneID, KeySetID: id, KeySet: &body})
		return res.GetKeySet(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.KeySet, error) {
		res, err := api.KeySets.GetKeySet(ctx, id, p.ControlPlaneID)
		return res.GetKeySet(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.KeySets.DeleteKeySet(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.KeySet, *string, error) {
		res, err := api.KeySets.ListKeySet(ctx, operations.ListKeySetRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.KeySet).GetID,
	tags: (*components.KeySet).GetTags,
}
