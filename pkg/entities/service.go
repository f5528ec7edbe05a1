package entities

import (
	"context"
	"errors"
	"net/url"
	"strconv"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongService = *configurationv1alpha1.KongService

// ServiceKind describes KongServices: Konnect gateway services of a control
// plane, with the client certificate and CA certificates they name. A
// service without a name is created under the object's UID, as its ID.
func ServiceKind(refs *Refs, certs *controller.Informer[kongCertificate], caCerts *controller.Informer[kongCACertificate]) controller.Kind[kongService, components.Service] {
	gvk := configurationGVK("KongService")
	placed := underControlPlane(refs, gvk, func(svc kongService) *cpRef { return svc.Spec.ControlPlaneRef }).
		with(serviceCertificates(refs, gvk, certs, caCerts))
	return core[kongService, components.Service, components.ServiceOutput]{
		gvk:    gvk,
		placed: placed,
		calls:  serviceCalls,
		desired: func(svc kongService, p controller.Placement) (components.Service, error) {
			return serviceBody(svc, gvk, p)
		},
		createUnder: func(svc kongService, body components.Service) string {
			if body.Name == nil && body.ID == nil {
				return string(svc.UID)
			}
			return ""
		},
		remove:    deleteService,
		adopt:     func(svc kongService) *adoptOptions { return svc.Spec.Adopt },
		matches:   serviceMatches,
		uniqueKey: func(body components.Service) string { return deref(body.Name) },
	}.kind()
}

// serviceBody is the service a KongService asks for; its certificates'
// IDs come from the status, where resolving them put them.
func serviceBody(svc kongService, gvk schemaGVK, p controller.Placement) (components.Service, error) {
	spec := svc.Spec.KongServiceAPISpec
	body := components.Service{
		ID:             optional(spec.ID),
		Name:           optional(spec.Name),
		Host:           spec.Host,
		Path:           optional(spec.Path),
		Retries:        spec.Retries,
		ConnectTimeout: spec.ConnectTimeout,
		ReadTimeout:    spec.ReadTimeout,
		WriteTimeout:   spec.WriteTimeout,
		Enabled:        spec.Enabled,
		TLSVerify:      spec.TLSVerify,
		TLSVerifyDepth: spec.TLSVerifyDepth,
		Tags:           controller.Tags(svc, gvk, p.Cluster, spec.Tags, svc),
	}
	if spec.Protocol != "" {
		body.Protocol = components.ServiceProtocol(spec.Protocol).ToPointer()
	}
	if spec.Port != 0 {
		body.Port = &spec.Port
	}
	if spec.URL != "" {
		// url is write-only in Konnect and the body always carries host:
		// send the parts it stands for instead.
		protocol, host, port, path, err := splitServiceURL(spec.URL)
		if err != nil {
			return body, err
		}
		body.Protocol, body.Host, body.Port, body.Path = components.ServiceProtocol(protocol).ToPointer(), host, &port, optional(path)
	}
	if st := svc.Status.Konnect; st != nil {
		if st.CertificateID != "" {
			body.ClientCertificate = &components.ClientCertificate{ID: &st.CertificateID}
		}
		body.CaCertificates = st.CACertificateIDs
	}
	return body, nil
}

// splitServiceURL splits a service URL into the fields it sets, with the
// port of the protocol when the URL has none, as Konnect does.
func splitServiceURL(raw string) (protocol, host string, port int64, path string, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "", "", 0, "", &konnect.InvalidInputError{Operation: "build service", Message: "url " + strconv.Quote(raw) + " is not an absolute URL"}
	}
	port = 80
	if u.Scheme == "https" || u.Scheme == "grpcs" || u.Scheme == "tls" {
		port = 443
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.ParseInt(p, 10, 64); err != nil {
			return "", "", 0, "", &konnect.InvalidInputError{Operation: "build service", Message: "url " + strconv.Quote(raw) + " has an invalid port"}
		}
	}
	return u.Scheme, u.Hostname(), port, u.Path, nil
}

// serviceMatches compares name, host, port, protocol and path, with
// Konnect's defaults for unset values.
func serviceMatches(desired components.Service, actual *components.ServiceOutput) []string {
	var d diff
	d.check("name", deref(desired.Name) == deref(actual.Name))
	d.check("host", desired.Host == actual.Host)
	d.check("port", orDefault(deref(desired.Port), 80) == orDefault(deref(actual.Port), 80))
	d.check("protocol", orDefault(deref(desired.Protocol), "http") == orDefault(deref(actual.Protocol), "http"))
	d.check("path", orDefault(deref(desired.Path), "/") == orDefault(deref(actual.Path), "/"))
	return d
}

// deleteService deletes a service. Konnect refuses while routes still use
// it; those routes cannot exist without it, so they are deleted first.
func deleteService(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
	err := serviceCalls.doDelete(ctx, api, p, id)
	if !refusedForChildren(err) {
		return err
	}
	routes, listErr := konnect.ListAll(ctx, routeCalls.op("list"), nil, func(ctx context.Context, page konnect.Page) ([]components.Route, *string, error) {
		res, err := api.Routes.ListRouteWithService(ctx, operations.ListRouteWithServiceRequest{
			ControlPlaneID: p.ControlPlaneID, ServiceID: id, Size: &page.Size, Offset: page.Offset, Tags: page.Tags,
		})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	})
	if listErr != nil {
		return errors.Join(err, listErr)
	}
	for i := range routes {
		if err := routeCalls.doDelete(ctx, api, p, deref(routeID(&routes[i]))); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	return serviceCalls.doDelete(ctx, api, p, id)
}

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
