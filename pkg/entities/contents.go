package entities

import (
	"context"
	"errors"
	"fmt"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Contents is everything in one control plane that the operator has a kind
// for, as Konnect answers it: what kubectl konnect export turns into
// objects. Nested collections (targets, SNIs, credentials) are read whole,
// each entity naming its parent.
type Contents struct {
	ControlPlane   components.ControlPlane
	Services       []components.ServiceOutput
	Routes         []components.Route
	Upstreams      []components.Upstream
	Targets        []components.Target
	Certificates   []components.Certificate
	CACertificates []components.CACertificate
	SNIs           []components.Sni
	Consumers      []components.Consumer
	ConsumerGroups []components.ConsumerGroup
	// Memberships are the sorted IDs of the groups of each consumer (by
	// consumer ID).
	Memberships           map[string][]string
	BasicAuths            []components.BasicAuth
	APIKeys               []components.KeyAuth
	ACLs                  []components.ACL
	JWTs                  []components.Jwt
	HMACs                 []components.HMACAuth
	Plugins               []components.Plugin
	Keys                  []components.Key
	KeySets               []components.KeySet
	Vaults                []components.Vault
	DataPlaneCertificates []components.DataPlaneClientCertificate
	ConfigStores          []components.ConfigStore
}

// contentsConcurrency is how many collections are read at once: enough to
// keep a rate-limited client busy, few enough not to burst.
const contentsConcurrency = 4

// ErrNoControlPlane is returned by FindControlPlane when no control plane
// has the name or ID asked for.
var ErrNoControlPlane = errors.New("no such control plane")

// FindControlPlane returns the control plane whose ID, or else whose name,
// is nameOrID.
func FindControlPlane(ctx context.Context, api konnect.API, nameOrID string) (components.ControlPlane, error) {
	if _, err := uuid.Parse(nameOrID); err == nil {
		byID, err := listControlPlanes(ctx, api, operations.ListControlPlanesRequest{Filter: &components.ControlPlaneFilterParameters{ID: &components.ID{Eq: &nameOrID}}})
		if err != nil {
			return components.ControlPlane{}, err
		}
		if len(byID) > 0 {
			return byID[0], nil
		}
	}
	byName, err := listControlPlanes(ctx, api, operations.ListControlPlanesRequest{
		Filter: &components.ControlPlaneFilterParameters{Name: &components.ControlPlaneFilterParametersName{Eq: &nameOrID}},
	})
	if err != nil {
		return components.ControlPlane{}, err
	}
	if len(byName) == 0 {
		return components.ControlPlane{}, fmt.Errorf("%w: the organisation has no control plane with ID or name %q", ErrNoControlPlane, nameOrID)
	}
	return byName[0], nil
}

// ReadControlPlane reads every collection of cp that the operator has a
// kind for: one list request per 1,000 entities of each collection, plus one
// per consumer group for its members.
func ReadControlPlane(ctx context.Context, api konnect.API, cp components.ControlPlane) (Contents, error) {
	out := Contents{ControlPlane: cp}
	p := controller.Placement{ControlPlaneID: cp.ID}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(contentsConcurrency)
	read := func(into func() error) { g.Go(into) }
	read(func() (err error) { out.Services, err = listEvery(ctx, api, p, serviceCalls); return })
	read(func() (err error) { out.Routes, err = listEvery(ctx, api, p, routeCalls); return })
	read(func() (err error) { out.Upstreams, err = listEvery(ctx, api, p, upstreamCalls); return })
	read(func() (err error) { out.Targets, err = listEvery(ctx, api, p, targetCalls); return })
	read(func() (err error) { out.Certificates, err = listEvery(ctx, api, p, certificateCalls); return })
	read(func() (err error) { out.CACertificates, err = listEvery(ctx, api, p, caCertificateCalls); return })
	read(func() (err error) { out.SNIs, err = listEvery(ctx, api, p, sniCalls); return })
	read(func() (err error) { out.Consumers, err = listEvery(ctx, api, p, consumerCalls); return })
	read(func() (err error) { out.ConsumerGroups, err = listEvery(ctx, api, p, consumerGroupCalls); return })
	read(func() (err error) { out.Memberships, err = membershipsOf(ctx, api, p); return })
	read(func() (err error) { out.BasicAuths, err = listEvery(ctx, api, p, basicAuthCalls); return })
	read(func() (err error) { out.APIKeys, err = listEvery(ctx, api, p, apiKeyCalls); return })
	read(func() (err error) { out.ACLs, err = listEvery(ctx, api, p, aclCalls); return })
	read(func() (err error) { out.JWTs, err = listEvery(ctx, api, p, jwtCalls); return })
	read(func() (err error) { out.HMACs, err = listEvery(ctx, api, p, hmacCalls); return })
	read(func() (err error) { out.Plugins, err = listEvery(ctx, api, p, pluginCalls); return })
	read(func() (err error) { out.Keys, err = listEvery(ctx, api, p, keyCalls); return })
	read(func() (err error) { out.KeySets, err = listEvery(ctx, api, p, keySetCalls); return })
	read(func() (err error) { out.Vaults, err = listEvery(ctx, api, p, vaultCalls); return })
	read(func() (err error) { out.DataPlaneCertificates, err = pins.list(ctx, api, p); return })
	read(func() (err error) { out.ConfigStores, err = configStoreCalls.doList(ctx, api, p); return })
	if err := g.Wait(); err != nil {
		return Contents{}, err
	}
	return out, nil
}

// listEvery returns the whole collection in p's control plane, every
// parent's entities at once for a nested collection.
func listEvery[D, A any](ctx context.Context, api konnect.API, p controller.Placement, c coreCalls[D, A]) ([]A, error) {
	fetch := c.list
	if c.nested {
		fetch = c.flat
	}
	return konnect.ListAll(ctx, c.op("list"), nil, func(ctx context.Context, page konnect.Page) ([]A, *string, error) {
		return fetch(ctx, api, p, page)
	})
}
