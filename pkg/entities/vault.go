package entities

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongVault = *configurationv1alpha1.KongVault

// VaultAdapter reconciles the cluster-scoped KongVaults into Konnect
// vaults. A vault has no namespace, so its control-plane reference must
// name one, and a KongReferenceGrant there must admit KongVaults from the
// namespace "".
type VaultAdapter struct {
	Refs *Refs
	// Watches reports whether the operator watches a namespace. Every
	// operator sees every KongVault; each takes only those whose control
	// plane is in a namespace it watches, so that operators watching
	// different namespaces do not fight over one vault.
	Watches func(namespace string) bool
}

var (
	_ controller.DependentAdapter[kongVault, konnect.Vault] = (*VaultAdapter)(nil)
	_ controller.Adopter[kongVault, konnect.Vault]          = (*VaultAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *VaultAdapter) GroupVersionKind() schema.GroupVersionKind {
	return configurationGVK("KongVault")
}

// Managed implements controller.Adapter. A Konnect reference without a
// namespace is reported by every operator (it is an error wherever it is
// seen).
func (a *VaultAdapter) Managed(v kongVault) bool {
	ref := v.Spec.ControlPlaneRef
	if !ref.IsKonnect() {
		return false
	}
	return ref.KonnectNamespacedRef.Namespace == "" || a.Watches(ref.KonnectNamespacedRef.Namespace)
}

// ConditionTypes implements controller.Adapter.
func (a *VaultAdapter) ConditionTypes() []string {
	return append([]string{commonv1alpha1.ConditionConfigStoreRefValid}, controlPlaneConditionTypes...)
}

// Resolve implements controller.Adapter.
func (a *VaultAdapter) Resolve(_ context.Context, v kongVault, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	if v.Spec.ControlPlaneRef.KonnectNamespacedRef.Namespace == "" {
		b.invalid(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid,
			"KongVault is cluster-scoped: controlPlaneRef.konnectNamespacedRef.namespace must name the control plane's namespace")
		if purpose == controller.ForDelete {
			// Nothing can have been created without a control plane.
			b.gone()
		}
		return b.done(), nil
	}
	a.Refs.placeUnderControlPlane(b, referrerOf(a.GroupVersionKind(), v), v.Spec.ControlPlaneRef, v.ControlPlaneStatus(true))
	if ref := v.Spec.ConfigStoreRef; ref != nil && purpose == controller.ForSync {
		// KonnectConfigStore is not a kind this operator manages: there is
		// no ID to inject as config.config_store_id.
		b.invalid(commonv1alpha1.ConditionConfigStoreRefValid, commonv1alpha1.ReasonInvalid,
			"configStoreRef names KonnectConfigStore %s/%s, a kind this operator does not manage; set config.config_store_id instead",
			ref.Namespace, ref.Name)
	}
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *VaultAdapter) Desired(_ context.Context, v kongVault, _ controller.Placement) (konnect.Vault, error) {
	config := map[string]any{}
	if v.Spec.Config != nil && len(v.Spec.Config.Raw) > 0 {
		if err := json.Unmarshal(v.Spec.Config.Raw, &config); err != nil {
			return konnect.Vault{}, fmt.Errorf("spec.config is not a JSON object: %w", err)
		}
	}
	return konnect.Vault{
		Name:        v.Spec.Backend,
		Prefix:      v.Spec.Prefix,
		Description: v.Spec.Description,
		Config:      config,
		Tags:        controller.Tags(v, a.GroupVersionKind(), v.Spec.Tags, v),
	}, nil
}

// Create implements controller.Adapter.
func (a *VaultAdapter) Create(ctx context.Context, c *konnect.Client, _ kongVault, p controller.Placement, desired konnect.Vault) (string, error) {
	created, err := c.CreateVault(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *VaultAdapter) Update(ctx context.Context, c *konnect.Client, _ kongVault, p controller.Placement, id string, desired konnect.Vault) error {
	_, err := c.UpsertVault(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter.
func (a *VaultAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongVault, p controller.Placement, id string) error {
	return c.DeleteVault(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *VaultAdapter) FindByUID(ctx context.Context, c *konnect.Client, v kongVault, p controller.Placement) (string, error) {
	found, err := c.ListVaults(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(v)}})
	return firstID(found, func(v konnect.Vault) string { return v.ID }, err)
}

// Dependencies implements controller.DependentAdapter. The grant that
// matters lives in the control plane's namespace.
func (a *VaultAdapter) Dependencies() []controller.Dependency[kongVault] {
	return []controller.Dependency[kongVault]{
		controlPlaneDependency(a.Refs, func(v kongVault) []string {
			return controlPlaneKeys(v.Spec.ControlPlaneRef, "")
		}),
		grantDependency(a.Refs, func(v kongVault) []string {
			return otherNamespaces("", controlPlaneNamespace(v.Spec.ControlPlaneRef, ""))
		}),
	}
}

// AdoptOptions implements controller.Adopter.
func (a *VaultAdapter) AdoptOptions(v kongVault) *commonv1alpha1.AdoptOptions { return v.Spec.Adopt }

// Fetch implements controller.Adopter.
func (a *VaultAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongVault, p controller.Placement, id string) (konnect.Vault, string, error) {
	found, err := c.GetVault(ctx, p.ControlPlaneID, id)
	return found, controller.UIDFromTags(found.Tags), err
}

// Differences implements controller.Adopter: backend (Konnect's name),
// prefix, description and config.
func (a *VaultAdapter) Differences(desired, actual konnect.Vault) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("prefix", desired.Prefix == actual.Prefix)
	d.check("description", desired.Description == actual.Description)
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
