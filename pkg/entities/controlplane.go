package entities

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type controlPlane = *konnectv1alpha2.KonnectGatewayControlPlane

// ControlPlaneAdapter reconciles KonnectGatewayControlPlanes into Konnect
// control planes.
type ControlPlaneAdapter struct {
	Refs *Refs
}

var _ controller.DependentAdapter[controlPlane, konnect.ControlPlane] = (*ControlPlaneAdapter)(nil)

// GroupVersionKind implements controller.Adapter.
func (a *ControlPlaneAdapter) GroupVersionKind() schema.GroupVersionKind {
	return gvk(konnectv1alpha2.GroupVersion, kindControlPlane)
}

// Managed implements controller.Adapter: mirrors only read an existing
// control plane and are reconciled separately.
func (a *ControlPlaneAdapter) Managed(cp controlPlane) bool { return !cp.IsMirror() }

// ConditionTypes implements controller.Adapter.
func (a *ControlPlaneAdapter) ConditionTypes() []string {
	return []string{commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ConditionAPIAuthValid}
}

// Resolve implements controller.Adapter.
func (a *ControlPlaneAdapter) Resolve(_ context.Context, cp controlPlane, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	b.res.Placement.Auth = a.Refs.auth(b, cp, true)
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *ControlPlaneAdapter) Desired(_ context.Context, cp controlPlane, _ controller.Placement) (konnect.ControlPlane, error) {
	desired := konnect.ControlPlane{Labels: controller.Labels(cp, a.GroupVersionKind(), nil)}
	req := cp.Spec.CreateControlPlaneRequest
	if req == nil {
		return desired, nil
	}
	desired.Name = req.Name
	desired.Description = deref(req.Description)
	desired.ClusterType = deref(req.ClusterType)
	desired.AuthType = deref(req.AuthType)
	desired.CloudGateway = req.CloudGateway
	for _, u := range req.ProxyURLs {
		desired.ProxyURLs = append(desired.ProxyURLs, konnect.ProxyURL{Host: u.Host, Port: int(u.Port), Protocol: u.Protocol})
	}
	desired.Labels = controller.Labels(cp, a.GroupVersionKind(), req.Labels)
	return desired, nil
}

// Create implements controller.Adapter.
func (a *ControlPlaneAdapter) Create(ctx context.Context, c *konnect.Client, cp controlPlane, _ controller.Placement, desired konnect.ControlPlane) (string, error) {
	created, err := c.CreateControlPlane(ctx, desired)
	if err != nil {
		return "", err
	}
	recordEndpoints(cp, created)
	return created.ID, nil
}

// Update implements controller.Adapter. A control plane is patched; one that
// is gone answers NotFound and is created again.
func (a *ControlPlaneAdapter) Update(ctx context.Context, c *konnect.Client, cp controlPlane, _ controller.Placement, id string, desired konnect.ControlPlane) error {
	updated, err := c.UpdateControlPlane(ctx, id, desired)
	if err != nil {
		return err
	}
	recordEndpoints(cp, updated)
	return nil
}

// Delete implements controller.Adapter. Konnect deletes the control plane's
// entities with it.
func (a *ControlPlaneAdapter) Delete(ctx context.Context, c *konnect.Client, _ controlPlane, _ controller.Placement, id string) error {
	return c.DeleteControlPlane(ctx, id)
}

// FindByUID implements controller.Adapter: control planes carry the UID as
// a label.
func (a *ControlPlaneAdapter) FindByUID(ctx context.Context, c *konnect.Client, cp controlPlane, _ controller.Placement) (string, error) {
	found, err := c.ListControlPlanes(ctx, konnect.ControlPlaneFilter{Labels: map[string]string{controller.TagKeyUID: string(cp.UID)}})
	if err != nil || len(found) == 0 {
		return "", err
	}
	return found[0].ID, nil
}

// ExtraFinalizers lists the finalizers removed together with the operator's
// own once the control plane is deleted.
func (a *ControlPlaneAdapter) ExtraFinalizers() []string {
	return []string{commonv1alpha1.FinalizerGatewayControlPlane}
}

// Dependencies implements controller.DependentAdapter.
func (a *ControlPlaneAdapter) Dependencies() []controller.Dependency[controlPlane] {
	return []controller.Dependency[controlPlane]{{
		Name:   "authConfig",
		Source: a.Refs.AuthConfigs,
		Keys:   AuthConfigKeys,
	}}
}

// AuthConfigKeys returns the key of the KonnectAPIAuthConfiguration a
// control plane uses.
func AuthConfigKeys(cp controlPlane) []string {
	if cp.Spec.Konnect == nil || cp.Spec.Konnect.AuthRef.Name == "" {
		return nil
	}
	namespace := cp.Namespace
	if ns := cp.Spec.Konnect.AuthRef.Namespace; ns != nil && *ns != "" {
		namespace = *ns
	}
	return []string{key(namespace, cp.Spec.Konnect.AuthRef.Name)}
}

func recordEndpoints(cp controlPlane, answered konnect.ControlPlane) {
	if answered.Config.ClusterType != "" {
		cp.Status.ClusterType = answered.Config.ClusterType
	}
	if answered.Config.ControlPlaneEndpoint != "" && answered.Config.TelemetryEndpoint != "" {
		cp.Status.KonnectEndpoints = &konnectv1alpha2.KonnectEndpoints{
			ControlPlane: answered.Config.ControlPlaneEndpoint,
			Telemetry:    answered.Config.TelemetryEndpoint,
		}
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
