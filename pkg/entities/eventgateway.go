package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// EventGatewayKind describes KonnectEventGateways: event gateways of an
// organisation. A gateway carries the identity of its object as labels,
// and its name is unique in the organisation. It is deleted after the
// objects of what it holds (UsedBy), so that each of them deletes its
// entity first; Konnect would delete them with it.
func EventGatewayKind(refs *Refs) controller.Kind[eventGateway, egBody] {
	gvk := gvk(konnectv1alpha1.GroupVersion, KindEventGateway)
	return apiKind[eventGateway, egBody, egBody]{
		gvk:    gvk,
		placed: inOrganization(refs, gvk, EventGatewayKonnect),
		calls:  eventGatewaySDK.calls(),
		desired: func(g eventGateway, p controller.Placement) (egBody, error) {
			spec := g.Spec.APISpec
			body := egBody{"name": spec.Name, "description": spec.Description, "labels": egLabels(g, gvk, p.Cluster, spec.Labels)}
			if spec.MinRuntimeVersion != "" {
				// Unset, Konnect pins the latest release, which stays.
				body["min_runtime_version"] = spec.MinRuntimeVersion
			}
			return body, nil
		},
		differences: egDifferences(nil),
		labels:      egLabelsOf,
		usedBy:      []string{dependencyOf(KindEventGateway)},
	}.kind()
}

// EventGatewayKonnect returns the spec.konnect of a KonnectEventGateway.
func EventGatewayKonnect(g eventGateway) *konnectv1alpha2.KonnectConfiguration {
	return &g.Spec.KonnectConfiguration
}

// EventGatewayAuthKeys returns the key of the KonnectAPIAuthConfiguration
// an event gateway uses.
func EventGatewayAuthKeys(g eventGateway) []string { return authKeys(g, &g.Spec.KonnectConfiguration) }

var eventGatewaySDK = egSDK[components.CreateGatewayRequest, components.UpdateGatewayRequest, components.EventGatewayInfo]{
	entity: "event_gateway", path: egPath(), paged: true,
	create: func(ctx context.Context, api konnect.API, _ controller.Placement, body *components.CreateGatewayRequest) (*components.EventGatewayInfo, error) {
		res, err := api.EventGateways.CreateEventGateway(ctx, *body)
		return res.GetEventGatewayInfo(), err
	},
	update: func(ctx context.Context, api konnect.API, _ controller.Placement, id string, body *components.UpdateGatewayRequest) (*components.EventGatewayInfo, error) {
		res, err := api.EventGateways.UpdateEventGateway(ctx, id, *body)
		return res.GetEventGatewayInfo(), err
	},
	remove: func(ctx context.Context, api konnect.API, _ controller.Placement, id string) error {
		_, err := api.EventGateways.DeleteEventGateway(ctx, id)
		return err
	},
}
