package entities

import (
	"encoding/json"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// configStoreIDField is the field of a konnect vault's configuration that
// names its config store.
const configStoreIDField = "config_store_id"

// configStoreReference resolves a KongVault's spec.configStoreRef: the
// KonnectConfigStore must be Programmed, in the vault's control plane, and
// allowed by a KongReferenceGrant in its namespace (a KongVault has no
// namespace: the grant names from KongVault with namespace ""). A vault
// whose config also names a config_store_id is refused: one of the two
// must go.
func configStoreReference(refs *Refs, stores *controller.Informer[configStore]) reference[kongVault] {
	condition := commonv1alpha1.ConditionConfigStoreRefValid
	return reference[kongVault]{
		conditions: []string{condition},
		resolve: func(b *resolver, v kongVault) {
			ref := v.Spec.ConfigStoreRef
			if ref == nil || b.forDelete() {
				return
			}
			what := describe(kindConfigStore, ref.Namespace, ref.Name)
			from := referrer{group: groupConfiguration, kind: "KongVault"}
			if !refs.permitted(from, groupKonnect, kindConfigStore, ref.Namespace, ref.Name) {
				b.refuse(condition, commonv1alpha1.ReasonRefNotPermitted, "no KongReferenceGrant allows the reference to %s",
					grantFor(from, groupKonnect, kindConfigStore, ref.Namespace, ref.Name))
				return
			}
			if configNamesStore(v) {
				b.refuse(condition, commonv1alpha1.ReasonInvalid,
					"spec.config.config_store_id and spec.configStoreRef both name a config store: remove one of them")
				return
			}
			store, err := stores.Get(ref.Namespace, ref.Name)
			switch {
			case err != nil:
				absent(b, stores, condition, what, ref.Namespace, ref.Name, func() {
					b.unready(&b.missings, condition, commonv1alpha1.ReasonRefNotFound, what+" not found")
				})
			case isBeingDeleted(store):
				b.invalid(condition, commonv1alpha1.ReasonInvalid, "%s is being deleted", what)
			case store.Status.ID == "" || !controller.IsConditionTrue(store.Status.Conditions, commonv1alpha1.ConditionProgrammed):
				b.notProgrammed(condition, commonv1alpha1.ReasonNotProgrammed, what, store.Status.Conditions)
			case b.res.Placement.ControlPlaneID != "" && store.Status.ControlPlaneID.GetID() != b.res.Placement.ControlPlaneID:
				b.refuse(condition, commonv1alpha1.ReasonInvalid, "%s belongs to control plane %s, not to the vault's (%s): name a store of the vault's control plane",
					what, store.Status.ControlPlaneID.GetID(), b.res.Placement.ControlPlaneID)
			default:
				b.valid(condition, what+" is Programmed")
			}
		},
		dependencies: []controller.Dependency[kongVault]{{
			Name: "configStore", Source: stores,
			Keys: func(v kongVault) []string {
				if ref := v.Spec.ConfigStoreRef; ref != nil {
					return []string{key(ref.Namespace, ref.Name)}
				}
				return nil
			},
		}},
		namespaces: func(v kongVault) []string {
			if ref := v.Spec.ConfigStoreRef; ref != nil {
				return []string{ref.Namespace}
			}
			return nil
		},
	}
}

// configNamesStore reports whether a vault's config names a config store
// itself.
func configNamesStore(v kongVault) bool {
	if v.Spec.Config == nil || len(v.Spec.Config.Raw) == 0 {
		return false
	}
	var config map[string]any
	if json.Unmarshal(v.Spec.Config.Raw, &config) != nil {
		return false
	}
	_, named := config[configStoreIDField]
	return named
}

// configStoreID is the Konnect ID of the config store a vault names, ""
// when it names none (or the store has no ID yet).
func configStoreID(stores *controller.Informer[configStore], v kongVault) string {
	ref := v.Spec.ConfigStoreRef
	if ref == nil || stores == nil {
		return ""
	}
	store, err := stores.Get(ref.Namespace, ref.Name)
	if err != nil {
		return ""
	}
	return store.Status.ID
}
