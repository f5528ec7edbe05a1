package entities

import (
	"context"
	"fmt"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

const entityTransitGateway = "cloud_gateway_transit_gateway"

// TransitGatewayKind describes KonnectCloudGatewayTransitGateways:
// attachments of a KonnectCloudGatewayNetwork, which must be ready first,
// to the user's own cloud network. Konnect provisions them in the
// background (Async) and lets only an AWS transit gateway's CIDR blocks
// change. They live under their network (Placement.ParentID) and use its
// credentials.
func TransitGatewayKind(refs *Refs, networks *controller.Informer[network]) controller.Kind[transitGateway, components.CreateTransitGatewayRequest] {
	networkGVK := gvk(konnectv1alpha1.GroupVersion, kindNetwork)
	gvk := gvk(konnectv1alpha1.GroupVersion, kindTransitGateway)
	return controller.Kind[transitGateway, components.CreateTransitGatewayRequest]{
		GVK: gvk,
		Conditions: []string{
			commonv1alpha1.ConditionKonnectNetworkRefsValid, commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ConditionAPIAuthValid,
		},
		Resolve: func(ctx context.Context, tg transitGateway, purpose controller.Purpose) (controller.Resolution, error) {
			b := newResolver(ctx, purpose)
			ref := tg.Spec.NetworkRef
			if ref.Type != konnectv1alpha1.NetworkRefNamespacedRef || ref.NamespacedRef == nil {
				b.refuse(commonv1alpha1.ConditionKonnectNetworkRefsValid, commonv1alpha1.ReasonInvalid,
					"spec.networkRef must name a KonnectCloudGatewayNetwork (type namespacedRef)")
				return b.result()
			}
			found := networkOf(networks, tg.Namespace, ref.NamespacedRef, b.forDelete())
			n := found.network
			switch {
			case found.gone:
				// Konnect only lets a network go once its transit gateways
				// have gone.
				b.gone()
				return b.result()
			case n == nil:
				b.invalid(commonv1alpha1.ConditionKonnectNetworkRefsValid, found.reason, "%s", found.problem)
				b.refStateAt(found.refState)
				return b.result()
			}
			if recorded := tg.Status.NetworkID; recorded != "" && recorded != n.Status.ID {
				// Created in a network that was created again: it went
				// with the old one.
				if b.forDelete() && tg.Status.ID != "" {
					b.gone()
				}
				tg.Status.ID = ""
			}
			if !b.forDelete() {
				b.valid(commonv1alpha1.ConditionKonnectNetworkRefsValid, describe(kindNetwork, n.Namespace, n.Name)+" is ready")
			}
			tg.Status.NetworkID = n.Status.ID
			b.res.Placement.ParentID = n.Status.ID
			b.res.Placement.Auth = refs.authOf(b, referrerOf(networkGVK, n), n.Name, &n.Spec.KonnectConfiguration)
			return b.result()
		},
		Desired: func(_ context.Context, tg transitGateway, _ controller.Placement) (components.CreateTransitGatewayRequest, error) {
			return transitGatewayDesired(tg), nil
		},
		Create: createUnlisted(func(ctx context.Context, api konnect.API, tg transitGateway, p controller.Placement, desired components.CreateTransitGatewayRequest) (string, error) {
			res, err := konnect.Call(ctx, cloudOp("create", entityTransitGateway), func(ctx context.Context) (*operations.CreateTransitGatewayResponse, error) {
				return api.CloudGateways.CreateTransitGateway(ctx, p.ParentID, desired)
			})
			if err != nil {
				return "", err
			}
			answer := answerOf(res.GetTransitGatewayResponse())
			tg.Status.State = string(answer.state)
			return answer.id, nil
		}),
		Update: updateUnlisted(updateTransitGateway),
		Delete: func(ctx context.Context, api konnect.API, _ transitGateway, p controller.Placement, id string) error {
			_, err := konnect.Call(ctx, cloudOp("delete", entityTransitGateway), func(ctx context.Context) (*operations.DeleteTransitGatewayResponse, error) {
				return api.CloudGateways.DeleteTransitGateway(ctx, p.ParentID, id)
			})
			return err
		},
		FindByUID: findTransitGateway,
		// Found by its name and settings before every create.
		Recover: &controller.Recovery[transitGateway, components.CreateTransitGatewayRequest]{},
		Dependencies: []controller.Dependency[transitGateway]{{
			Name: dependencyNetwork, Source: networks,
			Keys: func(tg transitGateway) []string { return networkKeys(tg.Namespace, tg.Spec.NetworkRef) },
		}},
		Adopt: &controller.Adoption[transitGateway, components.CreateTransitGatewayRequest]{
			Options: func(tg transitGateway) *adoptOptions { return adoptMatchByDefault(tg.Spec.Adopt) },
			Inspect: func(ctx context.Context, api konnect.API, tg transitGateway, p controller.Placement, id string, desired components.CreateTransitGatewayRequest) (controller.Inspection, error) {
				got, err := getTransitGateway(ctx, api, tg, p, id)
				if err != nil {
					return controller.Inspection{}, err
				}
				want := desiredParts(desired)
				fixed := transitGatewayFixed(want, got)
				var cidrs diff
				cidrs.check("cidr_blocks", sameSet(want.cidrBlocks, got.cidrBlocks))
				return controller.Inspection{Differences: append(fixed, cidrs...), Incompatibilities: fixed}, nil
			},
		},
		Async: &controller.Async[transitGateway]{
			Recorded: func(tg transitGateway) controller.Progress {
				return transitGatewayProgress(transitGatewayAnswer{state: components.TransitGatewayState(tg.Status.State)})
			},
			Read: func(ctx context.Context, api konnect.API, tg transitGateway, p controller.Placement, id string) (controller.Progress, error) {
				got, err := getTransitGateway(ctx, api, tg, p, id)
				if err != nil {
					return controller.Progress{}, err
				}
				return transitGatewayProgress(got), nil
			},
		},
	}
}

// getTransitGateway reads a transit gateway and records its state in tg's
// status. A terminated one is reported not found.
func getTransitGateway(ctx context.Context, api konnect.API, tg transitGateway, p controller.Placement, id string) (transitGatewayAnswer, error) {
	op := cloudOp("get", entityTransitGateway)
	res, err := konnect.Call(ctx, op, func(ctx context.Context) (*operations.GetTransitGatewayResponse, error) {
		return api.CloudGateways.GetTransitGateway(ctx, p.ParentID, id)
	})
	if err != nil {
		return transitGatewayAnswer{}, err
	}
	got := answerOf(res.GetTransitGatewayResponse())
	if got.id == "" || got.state == components.TransitGatewayStateTerminated {
		return transitGatewayAnswer{}, &konnect.NotFoundError{Operation: op.String(), StatusCode: res.StatusCode, Message: "the transit gateway is terminated"}
	}
	tg.Status.State = string(got.state)
	return got, nil
}

// updateTransitGateway writes the CIDR blocks of an AWS transit gateway,
// the one change Konnect allows, once it is not in transition, and refuses
// a spec that needs a new transit gateway.
func updateTransitGateway(ctx context.Context, api konnect.API, tg transitGateway, p controller.Placement, id string, desired components.CreateTransitGatewayRequest) error {
	got, err := getTransitGateway(ctx, api, tg, p, id)
	if err != nil {
		return err
	}
	want := desiredParts(desired)
	if fixed := transitGatewayFixed(want, got); len(fixed) > 0 {
		return immutableError(cloudOp("update", entityTransitGateway), kindTransitGateway, id, fixed)
	}
	if want.kind != components.CreateTransitGatewayRequestTypeAWSTransitGateway || sameSet(want.cidrBlocks, got.cidrBlocks) {
		return nil
	}
	if transitGatewayProgress(got).Phase == controller.Transient {
		return controller.ErrInTransition
	}
	res, err := konnect.Call(ctx, cloudOp("update", entityTransitGateway), func(ctx context.Context) (*operations.UpdateTransitGatewayResponse, error) {
		return api.CloudGateways.UpdateTransitGateway(ctx, operations.UpdateTransitGatewayRequest{
			NetworkID: p.ParentID, TransitGatewayID: id,
			PatchTransitGatewayRequest: components.CreatePatchTransitGatewayRequestPatchAWSTransitGatewayAWSTransitGateway(
				components.PatchAWSTransitGatewayAWSTransitGateway{CidrBlocks: want.cidrBlocks}),
		})
	})
	if err == nil {
		if aws := res.GetPatchTransitGatewayResponse().AwsTransitGatewayResponse; aws != nil {
			tg.Status.State = string(aws.State)
		}
	}
	return err
}

// findTransitGateway finds the transit gateway of tg's name and kind in
// its network: Konnect keeps no owner on transit gateways, and names are
// unique in a network.
func findTransitGateway(ctx context.Context, api konnect.API, tg transitGateway, p controller.Placement) (string, error) {
	want := desiredParts(transitGatewayDesired(tg))
	size := cloudPageSize
	res, err := konnect.Call(ctx, cloudOp("list", entityTransitGateway), func(ctx context.Context) (*operations.ListTransitGatewaysResponse, error) {
		return api.CloudGateways.ListTransitGateways(ctx, operations.ListTransitGatewaysRequest{
			NetworkID: p.ParentID, PageSize: &size,
			Filter: &components.TransitGatewaysFilterParameters{Name: &components.CloudGatewaysStringFieldFilterOverride{Eq: &want.name}},
		})
	})
	if err != nil {
		return "", err
	}
	for _, item := range res.GetListTransitGatewaysResponse().GetData() {
		got := answerOf(&item)
		if len(transitGatewayFixed(want, got)) == 0 && got.state != components.TransitGatewayStateTerminating && got.state != components.TransitGatewayStateTerminated {
			return got.id, nil
		}
	}
	return "", nil
}

// transitGatewayProgress is where a transit gateway in Konnect's state is.
// Those waiting for the user (pending acceptance in the cloud account) are
// in transition too.
func transitGatewayProgress(got transitGatewayAnswer) controller.Progress {
	progress := controller.Progress{Phase: controller.Transient, State: string(got.state)}
	switch got.state {
	case components.TransitGatewayStateReady:
		progress.Phase = controller.Settled
	case components.TransitGatewayStateError:
		progress.Phase = controller.Failed
		progress.Message = orDefault(got.reason, "Konnect reports an error")
	case components.TransitGatewayStatePendingAcceptance, components.TransitGatewayStatePendingUserAction:
		progress.Message = fmt.Sprintf("Konnect waits for the attachment to be accepted in the cloud account (%s)", got.state)
	}
	return progress
}
