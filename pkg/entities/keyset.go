package entities

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongKeySet = *configurationv1alpha1.KongKeySet

// KeySetAdapter reconciles KongKeySets into Konnect key sets. Konnect
// deletes a set's keys with it.
type KeySetAdapter struct {
	Refs *Refs
}

var (
	_ controller.DependentAdapter[kongKeySet, konnect.KeySet] = (*KeySetAdapter)(nil)
	_ controller.Adopter[kongKeySet, konnect.KeySet]          = (*KeySetAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *KeySetAdapter) GroupVersionKind() schema.GroupVersionKind {
	return configurationGVK(kindKeySet)
}

// Managed implements controller.Adapter.
func (a *KeySetAdapter) Managed(s kongKeySet) bool { return s.Spec.ControlPlaneRef.IsKonnect() }

// ConditionTypes implements controller.Adapter.
func (a *KeySetAdapter) ConditionTypes() []string { return controlPlaneConditionTypes }

// Resolve implements controller.Adapter.
func (a *KeySetAdapter) Resolve(_ context.Context, s kongKeySet, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	a.Refs.placeUnderControlPlane(b, referrerOf(a.GroupVersionKind(), s), s.Spec.ControlPlaneRef, s.ControlPlaneStatus(true))
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *KeySetAdapter) Desired(_ context.Context, s kongKeySet, _ controller.Placement) (konnect.KeySet, error) {
	return konnect.KeySet{Name: s.Spec.Name, Tags: controller.Tags(s, a.GroupVersionKind(), s.Spec.Tags, s)}, nil
}

// Create implements controller.Adapter.
func (a *KeySetAdapter) Create(ctx context.Context, c *konnect.Client, _ kongKeySet, p controller.Placement, desired konnect.KeySet) (string, error) {
	created, err := c.CreateKeySet(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *KeySetAdapter) Update(ctx context.Context, c *konnect.Client, _ kongKeySet, p controller.Placement, id string, desired konnect.KeySet) error {
	_, err := c.UpsertKeySet(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter.
func (a *KeySetAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongKeySet, p controller.Placement, id string) error {
	return c.DeleteKeySet(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *KeySetAdapter) FindByUID(ctx context.Context, c *konnect.Client, s kongKeySet, p controller.Placement) (string, error) {
	found, err := c.ListKeySets(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(s)}})
	return firstID(found, func(s konnect.KeySet) string { return s.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *KeySetAdapter) Dependencies() []controller.Dependency[kongKeySet] {
	return []controller.Dependency[kongKeySet]{
		controlPlaneDependency(a.Refs, func(s kongKeySet) []string {
			return controlPlaneKeys(s.Spec.ControlPlaneRef, s.Namespace)
		}),
		grantDependency(a.Refs, func(s kongKeySet) []string {
			return otherNamespaces(s.Namespace, controlPlaneNamespace(s.Spec.ControlPlaneRef, s.Namespace))
		}),
	}
}

// AdoptOptions implements controller.Adopter.
func (a *KeySetAdapter) AdoptOptions(s kongKeySet) *commonv1alpha1.AdoptOptions { return s.Spec.Adopt }

// Fetch implements controller.Adopter.
func (a *KeySetAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongKeySet, p controller.Placement, id string) (konnect.KeySet, string, error) {
	found, err := c.GetKeySet(ctx, p.ControlPlaneID, id)
	return found, controller.UIDFromTags(found.Tags), err
}

// Differences implements controller.Adopter: the name, and the user's tags
// (spec.tags and the konghq.com/tags annotation), each of which the entity
// must carry.
func (a *KeySetAdapter) Differences(desired, actual konnect.KeySet) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("tags", !slices.ContainsFunc(userTags(desired.Tags), func(t string) bool { return !slices.Contains(actual.Tags, t) }))
	return d
}

// identityTagKeys are the keys of the tags the operator generates (§2.7).
var identityTagKeys = []string{
	"k8s-generation", "k8s-group", "k8s-kind", "k8s-name", controller.TagKeyUID, "k8s-version", "k8s-namespace", "managed-by",
}

// userTags drops the tags the operator generates from tags.
func userTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		k, _, _ := strings.Cut(t, ":")
		if !slices.Contains(identityTagKeys, k) {
			out = append(out, t)
		}
	}
	return out
}
