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

// ControlPlaneAdapter reconciles KonnectGatewayControlPlanes: an Origin
// control plane is created and owned in Konnect (a group also gets its
// members, see controlplane_group.go); a Mirror only reads an existing one
// (controlplane_mirror.go).
type ControlPlaneAdapter struct {
	Refs *Refs
}

// ControlPlaneDesired is what a KonnectGatewayControlPlane asks of Konnect.
// Everything that decides a Konnect call is in it, so that its fingerprint
// changes when a member gets its ID or the mirrored ID changes.
type ControlPlaneDesired struct {
	// ControlPlane is the control plane to create or patch (Origin).
	ControlPlane konnect.ControlPlane
	// MirrorID is the ID of the control plane to read (Mirror).
	MirrorID string
	// Group is true for a CLUSTER_TYPE_CONTROL_PLANE_GROUP.
	Group bool
	// Members are the sorted Konnect IDs of the group's resolved members.
	Members []string
	// Unresolved names the members that cannot be used yet, with why.
	Unresolved []string
}

var (
	_ controller.DependentAdapter[controlPlane, ControlPlaneDesired] = (*ControlPlaneAdapter)(nil)
	_ controller.AfterSyncer[controlPlane]                           = (*ControlPlaneAdapter)(nil)
	_ controller.Borrower[controlPlane]                              = (*ControlPlaneAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *ControlPlaneAdapter) GroupVersionKind() schema.GroupVersionKind {
	return gvk(konnectv1alpha2.GroupVersion, kindControlPlane)
}

// Managed implements controller.Adapter.
func (a *ControlPlaneAdapter) Managed(controlPlane) bool { return true }

// ConditionTypes implements controller.Adapter.
func (a *ControlPlaneAdapter) ConditionTypes() []string {
	return []string{commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ConditionAPIAuthValid}
}

// Resolve implements controller.Adapter.
func (a *ControlPlaneAdapter) Resolve(_ context.Context, cp controlPlane, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	b.res.Placement.Auth = a.Refs.auth(b, cp, true)
	if id := mirrorID(cp); cp.IsMirror() && cp.Status.ID != "" && cp.Status.ID != id {
		// The mirror now names another control plane: read that one.
		cp.Status.ID = ""
	}
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *ControlPlaneAdapter) Desired(_ context.Context, cp controlPlane, _ controller.Placement) (ControlPlaneDesired, error) {
	if cp.IsMirror() {
		return ControlPlaneDesired{MirrorID: mirrorID(cp)}, nil
	}
	desired := ControlPlaneDesired{ControlPlane: konnect.ControlPlane{Labels: controller.Labels(cp, a.GroupVersionKind(), nil)}}
	req := cp.Spec.CreateControlPlaneRequest
	if req == nil {
		return desired, nil
	}
	desired.ControlPlane = konnect.ControlPlane{
		Name:         req.Name,
		Description:  deref(req.Description),
		ClusterType:  deref(req.ClusterType),
		AuthType:     deref(req.AuthType),
		CloudGateway: req.CloudGateway,
		Labels:       controller.Labels(cp, a.GroupVersionKind(), req.Labels),
	}
	for _, u := range req.ProxyURLs {
		desired.ControlPlane.ProxyURLs = append(desired.ControlPlane.ProxyURLs, konnect.ProxyURL{Host: u.Host, Port: int(u.Port), Protocol: u.Protocol})
	}
	if isGroupRequest(cp) {
		desired.Group = true
		desired.Members, desired.Unresolved = a.members(cp)
	}
	return desired, nil
}

// Create implements controller.Adapter.
func (a *ControlPlaneAdapter) Create(ctx context.Context, c *konnect.Client, cp controlPlane, _ controller.Placement, desired ControlPlaneDesired) (string, error) {
	if cp.IsMirror() {
		return readMirror(ctx, c, cp, desired.MirrorID)
	}
	created, err := c.CreateControlPlane(ctx, desired.ControlPlane)
	if err != nil {
		return "", err
	}
	recordEndpoints(cp, created)
	return created.ID, nil
}

// Update implements controller.Adapter. A control plane is patched; one that
// is gone answers NotFound and is created again. A mirror is read again.
func (a *ControlPlaneAdapter) Update(ctx context.Context, c *konnect.Client, cp controlPlane, _ controller.Placement, id string, desired ControlPlaneDesired) error {
	if cp.IsMirror() {
		_, err := readMirror(ctx, c, cp, id)
		return err
	}
	updated, err := c.UpdateControlPlane(ctx, id, desired.ControlPlane)
	if err != nil {
		return err
	}
	recordEndpoints(cp, updated)
	return nil
}

// Delete implements controller.Adapter. Konnect deletes the control plane's
// entities with it. Mirrors never get here (see Borrows).
func (a *ControlPlaneAdapter) Delete(ctx context.Context, c *konnect.Client, _ controlPlane, _ controller.Placement, id string) error {
	return c.DeleteControlPlane(ctx, id)
}

// FindByUID implements controller.Adapter: control planes carry the UID as
// a label. A mirror is found by its ID, never by a label.
func (a *ControlPlaneAdapter) FindByUID(ctx context.Context, c *konnect.Client, cp controlPlane, _ controller.Placement) (string, error) {
	if cp.IsMirror() {
		return "", nil
	}
	found, err := c.ListControlPlanes(ctx, konnect.ControlPlaneFilter{Labels: map[string]string{controller.TagKeyUID: string(cp.UID)}})
	if err != nil || len(found) == 0 {
		return "", err
	}
	return found[0].ID, nil
}

// AfterSync implements controller.AfterSyncer: a group's members are set
// after every create and update.
func (a *ControlPlaneAdapter) AfterSync(ctx context.Context, c *konnect.Client, cp controlPlane, _ controller.Placement, id string, _ bool) error {
	if cp.IsMirror() || !isGroupRequest(cp) {
		return nil
	}
	return a.syncMembers(ctx, c, cp, id)
}

// ExtraFinalizers lists the finalizers removed together with the operator's
// own once the control plane is deleted.
func (a *ControlPlaneAdapter) ExtraFinalizers() []string {
	return []string{commonv1alpha1.FinalizerGatewayControlPlane}
}

// Dependencies implements controller.DependentAdapter.
func (a *ControlPlaneAdapter) Dependencies() []controller.Dependency[controlPlane] {
	return []controller.Dependency[controlPlane]{
		{
			Name:   "authConfig",
			Source: a.Refs.AuthConfigs,
			Keys:   AuthConfigKeys,
		},
		{
			// A group sets its members again when one of them changes.
			Name:   "members",
			Source: a.Refs.ControlPlanes,
			Keys:   memberKeys,
		},
		grantDependency(a.Refs, func(cp controlPlane) []string {
			return otherNamespaces(cp.Namespace, authConfigNamespace(cp))
		}),
	}
}

// AuthConfigKeys returns the key of the KonnectAPIAuthConfiguration a
// control plane uses.
func AuthConfigKeys(cp controlPlane) []string {
	if cp.Spec.Konnect == nil || cp.Spec.Konnect.AuthRef.Name == "" {
		return nil
	}
	return []string{key(authConfigNamespace(cp), cp.Spec.Konnect.AuthRef.Name)}
}

// authConfigNamespace returns the namespace of the control plane's
// KonnectAPIAuthConfiguration.
func authConfigNamespace(cp controlPlane) string {
	if cp.Spec.Konnect != nil {
		if ns := cp.Spec.Konnect.AuthRef.Namespace; ns != nil && *ns != "" {
			return *ns
		}
	}
	return cp.Namespace
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
