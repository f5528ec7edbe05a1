package entities

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongTarget = *configurationv1alpha1.KongTarget

// TargetAdapter reconciles KongTargets into Konnect targets, nested under
// the upstream of their KongUpstream, whose control plane and credentials
// they inherit.
type TargetAdapter struct {
	Refs      *Refs
	Upstreams *controller.Informer[kongUpstream]
}

var (
	_ controller.DependentAdapter[kongTarget, konnect.Target] = (*TargetAdapter)(nil)
	_ controller.Adopter[kongTarget, konnect.Target]          = (*TargetAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *TargetAdapter) GroupVersionKind() schema.GroupVersionKind {
	return configurationGVK("KongTarget")
}

// Managed implements controller.Adapter: a target is the operator's when its
// upstream is bound to a Konnect control plane; a missing upstream is
// reported on the target rather than ignored.
func (a *TargetAdapter) Managed(t kongTarget) bool {
	namespace, name := upstreamRefOf(t)
	u, err := a.Upstreams.Get(namespace, name)
	return err != nil || u.Spec.ControlPlaneRef.IsKonnect()
}

// ConditionTypes implements controller.Adapter. A refused cross-namespace
// upstream is reported on KongUpstreamRefValid, not ResolvedRefs.
func (a *TargetAdapter) ConditionTypes() []string {
	return []string{
		commonv1alpha1.ConditionKongUpstreamRefValid,
		commonv1alpha1.ConditionControlPlaneRefValid,
		commonv1alpha1.ConditionAPIAuthResolvedRef,
		commonv1alpha1.ConditionAPIAuthValid,
	}
}

func upstreamRefOf(t kongTarget) (namespace, name string) {
	return namespaceOr(t.Spec.UpstreamRef.Namespace, t.Namespace), t.Spec.UpstreamRef.Name
}

// Resolve implements controller.Adapter.
func (a *TargetAdapter) Resolve(_ context.Context, t kongTarget, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	status := t.ControlPlaneStatus(true)
	namespace, name := upstreamRefOf(t)
	if namespace != t.Namespace && !b.forDelete() &&
		!a.Refs.permitted(referrerOf(a.GroupVersionKind(), t), groupConfiguration, kindUpstream, namespace, name) {
		b.invalid(commonv1alpha1.ConditionKongUpstreamRefValid, commonv1alpha1.ReasonRefNotPermitted,
			"no KongReferenceGrant in namespace %s allows the reference to %s %s/%s", namespace, kindUpstream, namespace, name)
		return b.done(), nil
	}
	u, upstreamID := parent(b, a.Upstreams, commonv1alpha1.ConditionKongUpstreamRefValid, kindUpstream, namespace, name)
	if upstreamID == "" {
		return b.done(), nil
	}
	t.Status.Konnect.UpstreamID = upstreamID
	cp := a.Refs.controlPlane(b, referrerOf(a.GroupVersionKind(), u), u.Spec.ControlPlaneRef, false, false)
	if cp == nil {
		return b.done(), nil
	}
	b.res.Placement.Auth = a.Refs.auth(b, cp, false)
	b.placeIn(status, cp.Status.ID)
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *TargetAdapter) Desired(_ context.Context, t kongTarget, _ controller.Placement) (konnect.Target, error) {
	weight := t.Spec.Weight
	return konnect.Target{
		Target:     t.Spec.Target,
		Weight:     &weight,
		Tags:       controller.Tags(t, a.GroupVersionKind(), t.Spec.Tags, t),
		UpstreamID: t.Status.Konnect.UpstreamID,
	}, nil
}

// Create implements controller.Adapter.
func (a *TargetAdapter) Create(ctx context.Context, c *konnect.Client, _ kongTarget, p controller.Placement, desired konnect.Target) (string, error) {
	created, err := c.CreateTarget(ctx, p.ControlPlaneID, desired.UpstreamID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *TargetAdapter) Update(ctx context.Context, c *konnect.Client, _ kongTarget, p controller.Placement, id string, desired konnect.Target) error {
	_, err := c.UpsertTarget(ctx, p.ControlPlaneID, desired.UpstreamID, id, desired)
	return err
}

// Delete implements controller.Adapter.
func (a *TargetAdapter) Delete(ctx context.Context, c *konnect.Client, t kongTarget, p controller.Placement, id string) error {
	return c.DeleteTarget(ctx, p.ControlPlaneID, t.Status.Konnect.UpstreamID, id)
}

// FindByUID implements controller.Adapter.
func (a *TargetAdapter) FindByUID(ctx context.Context, c *konnect.Client, t kongTarget, p controller.Placement) (string, error) {
	found, err := c.ListTargets(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(t)}})
	return firstID(found, func(t konnect.Target) string { return t.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *TargetAdapter) Dependencies() []controller.Dependency[kongTarget] {
	return []controller.Dependency[kongTarget]{
		{
			Name:   "upstream",
			Source: a.Upstreams,
			Keys: func(t kongTarget) []string {
				namespace, name := upstreamRefOf(t)
				return []string{key(namespace, name)}
			},
		},
		grantDependency(a.Refs, func(t kongTarget) []string {
			namespace, _ := upstreamRefOf(t)
			return otherNamespaces(t.Namespace, namespace)
		}),
	}
}

// AdoptOptions implements controller.Adopter.
func (a *TargetAdapter) AdoptOptions(t kongTarget) *commonv1alpha1.AdoptOptions { return t.Spec.Adopt }

// Fetch implements controller.Adopter: the target is read under the
// upstream.
func (a *TargetAdapter) Fetch(ctx context.Context, c *konnect.Client, t kongTarget, p controller.Placement, id string) (konnect.Target, string, error) {
	found, err := c.GetTarget(ctx, p.ControlPlaneID, t.Status.Konnect.UpstreamID, id)
	return found, controller.UIDFromTags(found.Tags), err
}

// Differences implements controller.Adopter: the address (Konnect adds the
// default port 8000) and the weight (default 100).
func (a *TargetAdapter) Differences(desired, actual konnect.Target) []string {
	var d diff
	d.check("target", withDefaultPort(desired.Target) == withDefaultPort(actual.Target))
	d.check("weight", intOr(desired.Weight, 100) == intOr(actual.Weight, 100))
	return d
}

// withDefaultPort appends Konnect's default target port to an address
// without one.
func withDefaultPort(target string) string {
	i := strings.LastIndex(target, ":")
	if i >= 0 && !strings.HasSuffix(target, "]") {
		if _, err := strconv.Atoi(target[i+1:]); err == nil {
			return target
		}
	}
	return fmt.Sprintf("%s:8000", target)
}
