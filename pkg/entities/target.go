package entities

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongTarget = *configurationv1alpha1.KongTarget

// TargetKind describes KongTargets: Konnect targets nested under the
// upstream of their KongUpstream, whose control plane and credentials they
// inherit. A refused cross-namespace upstream is reported on
// KongUpstreamRefValid, not ResolvedRefs.
func TargetKind(refs *Refs, upstreams *controller.Informer[kongUpstream]) controller.Kind[kongTarget, components.TargetWithoutParents] {
	gvk := configurationGVK("KongTarget")
	upstream := parentRef[kongTarget]{
		kind: kindUpstream, condition: commonv1alpha1.ConditionKongUpstreamRefValid,
		grantCondition: commonv1alpha1.ConditionKongUpstreamRefValid,
		name: func(t kongTarget) (string, string, bool) {
			ref := t.Spec.UpstreamRef
			return namespaceOr(ref.Namespace, t.Namespace), ref.Name, ref.Name != ""
		},
		record: func(t kongTarget, id string) { t.ControlPlaneStatus(true); t.Status.Konnect.UpstreamID = id },
	}
	return core[kongTarget, components.TargetWithoutParents, components.Target]{
		gvk:    gvk,
		placed: childOf(refs, gvk, upstreams, func(u kongUpstream) *cpRef { return u.Spec.ControlPlaneRef }, upstream),
		calls:  targetCalls,
		desired: func(t kongTarget, p controller.Placement) (components.TargetWithoutParents, error) {
			weight := int64(t.Spec.Weight)
			body := components.TargetWithoutParents{Target: &t.Spec.Target, Weight: &weight, Tags: controller.Tags(t, gvk, p.Cluster, t.Spec.Tags, t)}
			if p.ParentID != "" {
				// The upstream is in the path already; in the body it makes
				// a move to another upstream a change of the body.
				body.Upstream = &components.TargetWithoutParentsUpstream{ID: &p.ParentID}
			}
			return body, nil
		},
		adopt:   func(t kongTarget) *adoptOptions { return t.Spec.Adopt },
		matches: targetMatches,
		// Unique within the upstream, whose path is the parent's.
		uniqueKey: func(body components.TargetWithoutParents) string { return deref(body.Target) },
	}.kind()
}

// targetMatches compares the address (Konnect adds the default port 8000)
// and the weight (default 100).
func targetMatches(desired components.TargetWithoutParents, actual *components.Target) []string {
	var d diff
	d.check("target", withDefaultPort(deref(desired.Target)) == withDefaultPort(deref(actual.Target)))
	d.check("weight", orDefault(deref(desired.Weight), 100) == orDefault(deref(actual.Weight), 100))
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

// targetCalls are the calls of the targets of one upstream, p.ParentID.
var targetCalls = coreCalls[components.TargetWithoutParents, components.Target]{
	entity: "target",
	nested: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.TargetWithoutParents) (*components.Target, error) {
		res, err := api.Targets.CreateTargetWithUpstream(ctx, operations.CreateTargetWithUpstreamRequest{
			ControlPlaneID: p.ControlPlaneID, UpstreamIDForTarget: p.ParentID, TargetWithoutParents: body,
		})
		return res.GetTarget(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.TargetWithoutParents) (*components.Target, error) {
		res, err := api.Targets.UpsertTargetWithUpstream(ctx, operations.UpsertTargetWithUpstreamRequest{
			ControlPlaneID: p.ControlPlaneID, UpstreamIDForTarget: p.ParentID, TargetID: id, TargetWithoutParents: body,
		})
		return res.GetTarget(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Target, error) {
		res, err := api.Targets.GetTargetWithUpstream(ctx, operations.GetTargetWithUpstreamRequest{
			ControlPlaneID: p.ControlPlaneID, UpstreamIDForTarget: p.ParentID, TargetID: id,
		})
		return res.GetTarget(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.Targets.DeleteTargetWithUpstream(ctx, operations.DeleteTargetWithUpstreamRequest{
			ControlPlaneID: p.ControlPlaneID, UpstreamIDForTarget: p.ParentID, TargetID: id,
		})
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Target, *string, error) {
		res, err := api.Targets.ListTargetWithUpstream(ctx, operations.ListTargetWithUpstreamRequest{
			ControlPlaneID: p.ControlPlaneID, UpstreamIDForTarget: p.ParentID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags,
		})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	flat: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Target, *string, error) {
		res, err := api.Targets.ListTargets(ctx, operations.ListTargetsRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetListTargets().GetData(), res.GetListTargets().GetOffset(), err
	},
	id:   (*components.Target).GetID,
	tags: (*components.Target).GetTags,
}
