package entities

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongConsumerGroup = *configurationv1beta1.KongConsumerGroup

// ConsumerGroupAdapter reconciles KongConsumerGroups into Konnect consumer
// groups. Memberships are driven from the KongConsumer side.
type ConsumerGroupAdapter struct {
	Refs *Refs
}

var _ controller.DependentAdapter[kongConsumerGroup, konnect.ConsumerGroup] = (*ConsumerGroupAdapter)(nil)

// GroupVersionKind implements controller.Adapter.
func (a *ConsumerGroupAdapter) GroupVersionKind() schema.GroupVersionKind {
	return gvk(configurationv1beta1.GroupVersion, "KongConsumerGroup")
}

// Managed implements controller.Adapter.
func (a *ConsumerGroupAdapter) Managed(g kongConsumerGroup) bool {
	return g.Spec.ControlPlaneRef.IsKonnect()
}

// ConditionTypes implements controller.Adapter.
func (a *ConsumerGroupAdapter) ConditionTypes() []string { return controlPlaneConditionTypes }

// Resolve implements controller.Adapter.
func (a *ConsumerGroupAdapter) Resolve(_ context.Context, g kongConsumerGroup, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	a.Refs.placeUnderControlPlane(b, referrerOf(a.GroupVersionKind(), g), g.Spec.ControlPlaneRef, g.ControlPlaneStatus(true))
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *ConsumerGroupAdapter) Desired(_ context.Context, g kongConsumerGroup, _ controller.Placement) (konnect.ConsumerGroup, error) {
	return konnect.ConsumerGroup{Name: g.Spec.Name, Tags: controller.Tags(g, a.GroupVersionKind(), g.Spec.Tags, g)}, nil
}

// Create implements controller.Adapter.
func (a *ConsumerGroupAdapter) Create(ctx context.Context, c *konnect.Client, _ kongConsumerGroup, p controller.Placement, desired konnect.ConsumerGroup) (string, error) {
	created, err := c.CreateConsumerGroup(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *ConsumerGroupAdapter) Update(ctx context.Context, c *konnect.Client, _ kongConsumerGroup, p controller.Placement, id string, desired konnect.ConsumerGroup) error {
	_, err := c.UpsertConsumerGroup(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter. Konnect drops the group's
// memberships with it.
func (a *ConsumerGroupAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongConsumerGroup, p controller.Placement, id string) error {
	return c.DeleteConsumerGroup(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *ConsumerGroupAdapter) FindByUID(ctx context.Context, c *konnect.Client, g kongConsumerGroup, p controller.Placement) (string, error) {
	found, err := c.ListConsumerGroups(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(g)}})
	return firstID(found, func(g konnect.ConsumerGroup) string { return g.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *ConsumerGroupAdapter) Dependencies() []controller.Dependency[kongConsumerGroup] {
	return []controller.Dependency[kongConsumerGroup]{
		controlPlaneDependency(a.Refs, func(g kongConsumerGroup) []string {
			return controlPlaneKeys(g.Spec.ControlPlaneRef, g.Namespace)
		}),
		grantDependency(a.Refs, func(g kongConsumerGroup) []string {
			return otherNamespaces(g.Namespace, controlPlaneNamespace(g.Spec.ControlPlaneRef, g.Namespace))
		}),
	}
}
