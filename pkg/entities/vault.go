package entities

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongVault = *configurationv1alpha1.KongVault

// VaultKind describes the cluster-scoped KongVaults: Konnect vaults of a
// control plane. A vault has no namespace, so its control-plane reference
// must name one, and a KongReferenceGrant there must admit KongVaults from
// the namespace "".
//
// A vault of backend konnect may name its KonnectConfigStore in
// spec.configStoreRef: the store's Konnect ID is sent as
// config.config_store_id (vaultconfigstore.go).
//
// watches reports whether the operator watches a namespace. Every operator
// sees every KongVault; each takes only those whose control plane is in a
// namespace it watches, so that operators watching different namespaces do
// not fight over one vault. A Konnect reference without a namespace is
// reported by every operator (it is an error wherever it is seen).
func VaultKind(refs *Refs, stores *controller.Informer[configStore], watches func(namespace string) bool) controller.Kind[kongVault, components.Vault] {
	gvk := configurationGVK("KongVault")
	placed := underControlPlane(refs, gvk, func(v kongVault) *cpRef { return v.Spec.ControlPlaneRef })
	placeUnder := placed.steps
	placed.steps = []func(*resolver, kongVault){func(b *resolver, v kongVault) {
		if vaultNamespace(v) == "" {
			b.refuse(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid,
				"KongVault is cluster-scoped: controlPlaneRef.konnectNamespacedRef.namespace must name the control plane's namespace")
			if b.forDelete() {
				// Nothing can have been created without a control plane.
				b.gone()
			}
			return
		}
		for _, step := range placeUnder {
			step(b, v)
		}
	}}
	placed.managed = func(v kongVault) bool {
		return v.Spec.ControlPlaneRef.IsKonnect() && (vaultNamespace(v) == "" || watches(vaultNamespace(v)))
	}
	placed = placed.with(configStoreReference(refs, stores))
	return core[kongVault, components.Vault, components.Vault]{
		gvk:    gvk,
		placed: placed,
		calls:  vaultCalls,
		desired: func(v kongVault, p controller.Placement) (components.Vault, error) {
			config := map[string]any{}
			if v.Spec.Config != nil && len(v.Spec.Config.Raw) > 0 {
				if err := json.Unmarshal(v.Spec.Config.Raw, &config); err != nil {
					return components.Vault{}, fmt.Errorf("spec.config is not a JSON object: %w", err)
				}
			}
			if id := configStoreID(stores, v); id != "" {
				config[configStoreIDField] = id
			}
			return components.Vault{
				Name: v.Spec.Backend, Prefix: v.Spec.Prefix, Description: optional(v.Spec.Description), Config: config,
				Tags: controller.Tags(v, gvk, p.Cluster, v.Spec.Tags, v),
			}, nil
		},
		adopt:     func(v kongVault) *adoptOptions { return v.Spec.Adopt },
		matches:   vaultMatches,
		uniqueKey: func(body components.Vault) string { return body.Prefix },
	}.kind()
}

// vaultNamespace is the namespace of a vault's control plane, "" when its
// reference names none.
func vaultNamespace(v kongVault) string {
	if ref := v.Spec.ControlPlaneRef; ref.IsKonnect() {
		return ref.KonnectNamespacedRef.Namespace
	}
	return ""
}

// vaultMatches compares the backend (Konnect's name), prefix, description
// and config.
func vaultMatches(desired components.Vault, actual *components.Vault) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("prefix", desired.Prefix == actual.Prefix)
	d.check("description", deref(desired.Description) == deref(actual.Description))
	d.check("config", sameConfig(desired.Config, actual.Config))
	return d
}

// sameConfig compares two configurations by their JSON values; absent and
// empty are the same.
func sameConfig(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	return sameJSON(string(ja), string(jb))
}

var vaultCalls = coreCalls[components.Vault, components.Vault]{
	entity: "vault",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.Vault) (*components.Vault, error) {
		res, err := api.Vaults.CreateVault(ctx, p.ControlPlaneID, body)
		return res.GetVault(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.Vault) (*components.Vault, error) {
		res, err := api.Vaults.UpsertVault(ctx, operations.UpsertVaultRequest{ControlPlaneID: p.ControlPlaneID, VaultID: id, Vault: body})
		return res.GetVault(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Vault, error) {
		res, err := api.Vaults.GetVault(ctx, id, p.ControlPlaneID)
		return res.GetVault(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.Vaults.DeleteVault(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Vault, *string, error) {
		res, err := api.Vaults.ListVault(ctx, operations.ListVaultRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.Vault).GetID,
	tags: (*components.Vault).GetTags,
}
