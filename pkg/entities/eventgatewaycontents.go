package entities

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// EventGatewayContents is an event gateway and everything it holds that
// the operator has a kind for, as Konnect's API writes it: JSON values,
// read as the kinds read them (the SDK's answer types drop a policy's and
// a schema registry's config). What kubectl konnect export turns into
// objects.
type EventGatewayContents struct {
	Gateway               map[string]any
	BackendClusters       []map[string]any
	Listeners             []map[string]any
	VirtualClusters       []map[string]any
	SchemaRegistries      []map[string]any
	DataPlaneCertificates []map[string]any
	// ListenerPolicies are the policies of each listener, by the
	// listener's ID; ClusterPolicies, ConsumePolicies and ProducePolicies
	// those of each virtual cluster, by the virtual cluster's ID.
	ListenerPolicies map[string][]map[string]any
	ClusterPolicies  map[string][]map[string]any
	ConsumePolicies  map[string][]map[string]any
	ProducePolicies  map[string][]map[string]any
}

// ErrNoEventGateway is returned by FindEventGateway when no event gateway
// has the name or ID asked for.
var ErrNoEventGateway = errors.New("no such event gateway")

// FindEventGateway returns the event gateway whose ID, or else whose name,
// is nameOrID. Konnect filters no gateway listing, so the organisation's
// gateways are listed (one request per 100).
func FindEventGateway(ctx context.Context, api konnect.API, nameOrID string) (map[string]any, error) {
	gateways, err := eventGatewaySDK.calls().doList(ctx, api, controller.Placement{})
	if err != nil {
		return nil, err
	}
	for _, g := range gateways {
		if g["id"] == nameOrID {
			return g, nil
		}
	}
	for _, g := range gateways {
		if g["name"] == nameOrID {
			return g, nil
		}
	}
	return nil, fmt.Errorf("%w: the organisation has no event gateway with ID or name %q", ErrNoEventGateway, nameOrID)
}

// ReadEventGateway reads every collection of gateway that the operator
// has a kind for: one request per 100 entities of each collection below
// the gateway, and one per listener and per virtual cluster for each of
// their policy collections.
func ReadEventGateway(ctx context.Context, api konnect.API, gateway map[string]any) (EventGatewayContents, error) {
	id, _ := gateway["id"].(string)
	out := EventGatewayContents{
		Gateway:          gateway,
		ListenerPolicies: map[string][]map[string]any{}, ClusterPolicies: map[string][]map[string]any{},
		ConsumePolicies: map[string][]map[string]any{}, ProducePolicies: map[string][]map[string]any{},
	}
	in := controller.Placement{ParentID: id}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(contentsConcurrency)
	list := func(sdk apiCalls[egBody, egBody], into *[]map[string]any) {
		g.Go(func() (err error) { *into, err = sdk.doList(gctx, api, in); return })
	}
	list(backendClusterSDK.calls(), &out.BackendClusters)
	list(listenerSDK.calls(), &out.Listeners)
	list(virtualClusterSDK.calls(), &out.VirtualClusters)
	list(schemaRegistrySDK.calls(), &out.SchemaRegistries)
	list(dataPlaneCertificateSDK.calls(), &out.DataPlaneCertificates)
	if err := g.Wait(); err != nil {
		return EventGatewayContents{}, err
	}
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(contentsConcurrency)
	var mu sync.Mutex
	policies := func(sdk apiCalls[egBody, egBody], parents []map[string]any, into map[string][]map[string]any) {
		for _, parent := range parents {
			parentID, _ := parent["id"].(string)
			g.Go(func() error {
				found, err := sdk.doList(gctx, api, controller.Placement{GrandparentID: id, ParentID: parentID})
				mu.Lock()
				defer mu.Unlock()
				into[parentID] = found
				return err
			})
		}
	}
	policies(listenerPolicySDK.calls(), out.Listeners, out.ListenerPolicies)
	policies(clusterPolicySDK.calls(), out.VirtualClusters, out.ClusterPolicies)
	policies(consumePolicySDK.calls(), out.VirtualClusters, out.ConsumePolicies)
	policies(producePolicySDK.calls(), out.VirtualClusters, out.ProducePolicies)
	if err := g.Wait(); err != nil {
		return EventGatewayContents{}, err
	}
	return out, nil
}
