package konnect

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// simOrg is the organisation name the simulator tests give their token.
const simOrg = "acme"

// startSim serves a simulator for the test (it fails the test on any
// OpenAPI violation) and returns it with a client factory that trusts it.
func startSim(t *testing.T, simOpts konnectsim.Options, opts Options) (*konnectsim.TestServer, *ClientFactory) {
	t.Helper()
	if simOpts.Tokens == nil {
		simOpts.Tokens = map[string]string{testToken: simOrg}
	}
	sim := konnectsim.Start(t, simOpts)
	opts.RootCAs = sim.CAPool
	if opts.RequestsPerSecond == 0 {
		opts.RequestsPerSecond, opts.Burst = 1e6, 1e6
	}
	return sim, NewClientFactory(opts)
}

func simClient(t *testing.T, sim *konnectsim.TestServer, f *ClientFactory, token string) *Client {
	t.Helper()
	c, err := f.Client(sim.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// calls makes the SDK calls the tests need the way the operator makes them:
// each one labelled and its error classified by Call.
type calls struct{ api API }

func sdkCalls(c *Client) calls { return calls{api: c.API()} }

func (c calls) createControlPlane(ctx context.Context, name string) (string, error) {
	res, err := Call(ctx, Operation{Verb: "create", Entity: "control_plane"}, func(ctx context.Context) (*operations.CreateControlPlaneResponse, error) {
		return c.api.ControlPlanes.CreateControlPlane(ctx, components.CreateControlPlaneRequest{Name: name})
	})
	return res.GetControlPlane().GetID(), err
}

func (c calls) getControlPlane(ctx context.Context, id string) error {
	_, err := Call(ctx, Operation{Verb: "get", Entity: "control_plane"}, func(ctx context.Context) (*operations.GetControlPlaneResponse, error) {
		return c.api.ControlPlanes.GetControlPlane(ctx, id)
	})
	return err
}

func (c calls) deleteControlPlane(ctx context.Context, id string) error {
	_, err := Call(ctx, Operation{Verb: "delete", Entity: "control_plane"}, func(ctx context.Context) (*operations.DeleteControlPlaneResponse, error) {
		return c.api.ControlPlanes.DeleteControlPlane(ctx, id)
	})
	return err
}

func (c calls) listControlPlanes(ctx context.Context) error {
	_, err := Call(ctx, Operation{Verb: "list", Entity: "control_plane"}, func(ctx context.Context) (*operations.ListControlPlanesResponse, error) {
		return c.api.ControlPlanes.ListControlPlanes(ctx, operations.ListControlPlanesRequest{})
	})
	return err
}

var serviceOp = func(verb string) Operation { return Operation{Verb: verb, Entity: "service", Core: true} }

func (c calls) createService(ctx context.Context, cp string, body components.Service) (string, error) {
	res, err := Call(ctx, serviceOp("create"), func(ctx context.Context) (*operations.CreateServiceResponse, error) {
		return c.api.Services.CreateService(ctx, cp, body)
	})
	return deref(res.GetService().GetID()), err
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (c calls) getService(ctx context.Context, cp, id string) error {
	_, err := Call(ctx, serviceOp("get"), func(ctx context.Context) (*operations.GetServiceResponse, error) {
		return c.api.Services.GetService(ctx, id, cp)
	})
	return err
}

func (c calls) deleteService(ctx context.Context, cp, id string) error {
	_, err := Call(ctx, serviceOp("delete"), func(ctx context.Context) (*operations.DeleteServiceResponse, error) {
		return c.api.Services.DeleteService(ctx, cp, id)
	})
	return err
}

func (c calls) listServices(ctx context.Context, cp string, tags ...string) ([]components.ServiceOutput, error) {
	return ListAll(ctx, serviceOp("list"), tags, func(ctx context.Context, page Page) ([]components.ServiceOutput, *string, error) {
		res, err := c.api.Services.ListService(ctx, operations.ListServiceRequest{ControlPlaneID: cp, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	})
}

func (c calls) createRoute(ctx context.Context, cp, serviceID, path string) error {
	_, err := Call(ctx, Operation{Verb: "create", Entity: "route", Core: true}, func(ctx context.Context) (*operations.CreateRouteResponse, error) {
		return c.api.Routes.CreateRoute(ctx, cp, components.CreateRouteRouteJSON(components.RouteJSON{
			Paths: []string{path}, Service: &components.RouteJSONService{ID: &serviceID},
		}))
	})
	return err
}

func (c calls) createConsumer(ctx context.Context, cp string, body components.Consumer) error {
	_, err := Call(ctx, Operation{Verb: "create", Entity: "consumer", Core: true}, func(ctx context.Context) (*operations.CreateConsumerResponse, error) {
		return c.api.Consumers.CreateConsumer(ctx, cp, body)
	})
	return err
}

func (c calls) createTarget(ctx context.Context, cp, upstream, target string) error {
	_, err := Call(ctx, Operation{Verb: "create", Entity: "target", Core: true}, func(ctx context.Context) (*operations.CreateTargetWithUpstreamResponse, error) {
		return c.api.Targets.CreateTargetWithUpstream(ctx, operations.CreateTargetWithUpstreamRequest{
			ControlPlaneID: cp, UpstreamIDForTarget: upstream, TargetWithoutParents: components.TargetWithoutParents{Target: &target},
		})
	})
	return err
}

func (c calls) getDataPlaneCertificate(ctx context.Context, cp, id string) error {
	_, err := Call(ctx, Operation{Verb: "get", Entity: "dp_certificate"}, func(ctx context.Context) (*operations.GetDataplaneCertificateResponse, error) {
		return c.api.DPCertificates.GetDataplaneCertificate(ctx, cp, id)
	})
	return err
}

// must fails the test on err and returns v.
func must[T any](t *testing.T, what string) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

func ptr[T any](v T) *T { return &v }
