package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type configStore = *konnectv1alpha1.KonnectConfigStore

// kindConfigStore is the kind of config-store objects.
const kindConfigStore = "KonnectConfigStore"

// ConfigStoreKind describes KonnectConfigStores: config stores of a
// control plane, where konnect vaults read secrets. They carry no labels;
// an object that lost its ID finds the store of its name (an object
// without a name finds none). Konnect deletes a control plane's stores
// with it; the operator deletes a store with its secrets.
func ConfigStoreKind(refs *Refs) controller.Kind[configStore, components.CreateConfigStore] {
	gvk := gvk(konnectv1alpha1.GroupVersion, kindConfigStore)
	return apiKind[configStore, components.CreateConfigStore, components.ConfigStore]{
		gvk: gvk,
		placed: underControlPlaneByObjectRef(refs, gvk, parentByObjectRef[configStore]{
			kind: kindControlPlane, condition: commonv1alpha1.ConditionControlPlaneRefValid,
			ref:      func(s configStore) *commonv1alpha1.ObjectRef { return &s.Spec.ControlPlaneRef },
			recorded: func(s configStore) string { return s.Status.ControlPlaneID.GetID() },
			record:   func(s configStore, id string) { s.Status.ControlPlaneID = &commonv1alpha1.KonnectEntityRef{ID: id} },
		}),
		calls: configStoreCalls,
		desired: func(s configStore, _ controller.Placement) (components.CreateConfigStore, error) {
			return components.CreateConfigStore{Name: optional(s.Spec.APISpec.Name)}, nil
		},
		differences: func(desired components.CreateConfigStore, actual *components.ConfigStore) []string {
			var d diff
			d.check("name", desired.Name == nil || *desired.Name == deref(actual.Name))
			return d
		},
		key:   func(d components.CreateConfigStore) string { return deref(d.Name) },
		keyOf: func(a *components.ConfigStore) string { return deref(a.Name) },
	}.kind()
}

var configStoreCalls = apiCalls[components.CreateConfigStore, components.ConfigStore]{
	entity: "config_store", inControlPlane: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, desired components.CreateConfigStore) (*components.ConfigStore, error) {
		res, err := api.ConfigStores.CreateConfigStore(ctx, p.ControlPlaneID, desired)
		return res.GetConfigStore(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, desired components.CreateConfigStore) (*components.ConfigStore, error) {
		res, err := api.ConfigStores.UpdateConfigStore(ctx, operations.UpdateConfigStoreRequest{
			ControlPlaneID: p.ControlPlaneID, ConfigStoreID: id, UpdateConfigStore: components.UpdateConfigStore(desired),
		})
		return res.GetConfigStore(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.ConfigStore, error) {
		res, err := api.ConfigStores.GetConfigStore(ctx, p.ControlPlaneID, id)
		return res.GetConfigStore(), err
	},
	// With its secrets: they belong to the store.
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.ConfigStores.DeleteConfigStore(ctx, operations.DeleteConfigStoreRequest{
			ControlPlaneID: p.ControlPlaneID, ConfigStoreID: id, Force: operations.ForceTrue.ToPointer(),
		})
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement) ([]components.ConfigStore, error) {
		var out []components.ConfigStore
		req := operations.ListConfigStoresRequest{ControlPlaneID: p.ControlPlaneID, PageSize: ptrTo(int64(100))}
		for {
			res, err := konnect.Call(ctx, konnect.Operation{Verb: "list", Entity: "config_store"}, func(ctx context.Context) (*operations.ListConfigStoresResponse, error) {
				return api.ConfigStores.ListConfigStores(ctx, req)
			})
			if err != nil {
				return nil, err
			}
			page := res.GetListConfigStoresResponse()
			out = append(out, page.GetData()...)
			after := nextCursor(page.GetMeta().Page.Next)
			if after == "" || len(page.GetData()) == 0 {
				return out, nil
			}
			req.PageAfter = &after
		}
	},
	id: func(_ controller.Placement, a *components.ConfigStore) string { return deref(a.ID) },
}
