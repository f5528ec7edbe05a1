package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// serviceCalls are the calls of a control plane's gateway services, which
// a certificate's deletion detaches from it.
var serviceCalls = coreCalls[components.Service, components.ServiceOutput]{
	entity: "service",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.Service) (*components.ServiceOutput, error) {
		res, err := api.Services.CreateService(ctx, p.ControlPlaneID, body)
		return res.GetService(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.Service) (*components.ServiceOutput, error) {
		res, err := api.Services.UpsertService(ctx, operations.UpsertServiceRequest{ControlPlaneID: p.ControlPlaneID, ServiceID: id, Service: body})
		return res.GetService(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.ServiceOutput, error) {
		res, err := api.Services.GetService(ctx, id, p.ControlPlaneID)
		return res.GetService(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.Services.DeleteService(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.ServiceOutput, *string, error) {
		res, err := api.Services.ListService(ctx, operations.ListServiceRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.ServiceOutput).GetID,
	tags: (*components.ServiceOutput).GetTags,
}
