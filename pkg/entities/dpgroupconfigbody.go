package entities

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/Kong/sdk-konnect-go/models/components"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// configurationDesired is the configuration cfg asks Konnect for: the
// whole deployment of its control plane, with the Konnect IDs of the
// networks its groups name.
func configurationDesired(cfg dpGroupConfig, p controller.Placement, networks *controller.Informer[network]) (components.CreateConfigurationRequest, error) {
	groups := make([]components.CreateConfigurationDataPlaneGroup, 0, len(cfg.Spec.DataplaneGroups))
	for i, g := range cfg.Spec.DataplaneGroups {
		networkID, err := groupNetworkID(networks, cfg.Namespace, g.NetworkRef)
		if err != nil {
			return components.CreateConfigurationRequest{}, fmt.Errorf("spec.dataplane_groups[%d]: %w", i, err)
		}
		group := components.CreateConfigurationDataPlaneGroup{
			Provider: components.ProviderName(g.Provider), Region: g.Region,
			CloudGatewayNetworkID: &networkID, Autoscale: autoscale(g.Autoscale),
		}
		for _, env := range g.Environment {
			group.Environment = append(group.Environment, components.ConfigurationDataPlaneGroupEnvironmentField{Name: env.Name, Value: env.Value})
		}
		groups = append(groups, group)
	}
	version := cfg.Spec.Version
	return components.CreateConfigurationRequest{
		ControlPlaneID: p.ControlPlaneID, ControlPlaneGeo: controlPlaneGeo(p.Auth.ServerURL),
		Version: &version, DataplaneGroups: groups, APIAccess: apiAccess(cfg),
		Kind: components.ConfigurationKindDedicatedV0.ToPointer(),
	}, nil
}

// groupNetworkID is the Konnect ID of the network ref names.
func groupNetworkID(networks *controller.Informer[network], namespace string, ref konnectv1alpha1.NetworkRef) (string, error) {
	if ref.Type == konnectv1alpha1.NetworkRefKonnectID {
		return deref(ref.KonnectID), nil
	}
	if ref.NamespacedRef == nil {
		return "", fmt.Errorf("networkRef names no network")
	}
	n, err := networks.Get(namespaceOr(ref.NamespacedRef.Namespace, namespace), ref.NamespacedRef.Name)
	if err != nil || n.Status.ID == "" {
		return "", fmt.Errorf("%s has no Konnect ID yet", describe(kindNetwork, namespace, ref.NamespacedRef.Name))
	}
	return n.Status.ID, nil
}

func autoscale(a konnectv1alpha1.ConfigurationDataPlaneGroupAutoscale) *components.ConfigurationDataPlaneGroupAutoscale {
	switch {
	case a.Type == konnectv1alpha1.AutoscaleStatic && a.Static != nil:
		// Konnect deprecates static scaling, but Kong Operator's kind offers it
		// and Konnect still takes it.
		out := components.CreateConfigurationDataPlaneGroupAutoscaleConfigurationDataPlaneGroupAutoscaleStatic(components.ConfigurationDataPlaneGroupAutoscaleStatic{ //nolint:staticcheck // see above
			Kind: components.KindStatic, InstanceType: components.InstanceTypeName(a.Static.InstanceType), RequestedInstances: a.Static.RequestedInstances,
		})
		return &out
	case a.Type == konnectv1alpha1.AutoscaleAutopilot && a.Autopilot != nil:
		out := components.CreateConfigurationDataPlaneGroupAutoscaleConfigurationDataPlaneGroupAutoscaleAutopilot(components.ConfigurationDataPlaneGroupAutoscaleAutopilot{
			Kind: components.ConfigurationDataPlaneGroupAutoscaleAutopilotKindAutopilot, BaseRps: a.Autopilot.BaseRps,
			MaxRps: a.Autopilot.MaxRps, //nolint:staticcheck // deprecated by Konnect, still part of Kong Operator's kind
		})
		return &out
	}
	return nil // the schema refuses any other combination
}

// apiAccess is cfg's API access, Konnect's default when unset.
func apiAccess(cfg dpGroupConfig) *components.APIAccess {
	if cfg.Spec.APIAccess == nil {
		return components.APIAccessPrivatePlusPublic.ToPointer()
	}
	return components.APIAccess(*cfg.Spec.APIAccess).ToPointer()
}

// recordGroups records the data-plane groups Konnect answered in cfg's
// status.
func recordGroups(cfg dpGroupConfig, groups []components.ConfigurationDataPlaneGroup) {
	out := make([]konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfigurationStatusGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfigurationStatusGroup{
			ID: g.GetID(), CloudGatewayNetworkID: deref(g.GetCloudGatewayNetworkID()),
			Provider: string(g.GetProvider()), Region: g.GetRegion(), State: string(g.GetState()),
			PrivateIPAddresses: g.GetPrivateIPAddresses(), EgressIPAddresses: g.GetEgressIPAddresses(),
		})
	}
	cfg.Status.DataPlaneGroups = out
}

// groupsProgress is where a configuration whose groups are in states is:
// settled once every group is ready; its state is the least advanced of
// its groups'.
func groupsProgress(states []string) controller.Progress {
	for _, waiting := range []components.ConfigurationDataPlaneGroupState{
		components.ConfigurationDataPlaneGroupStateTerminating,
		components.ConfigurationDataPlaneGroupStateCreated,
		components.ConfigurationDataPlaneGroupStateInitializing,
	} {
		if slices.Contains(states, string(waiting)) {
			return controller.Progress{Phase: controller.Transient, State: string(waiting)}
		}
	}
	for _, s := range states {
		if s != string(components.ConfigurationDataPlaneGroupStateReady) && s != string(components.ConfigurationDataPlaneGroupStateTerminated) {
			// A state Konnect added after this SDK: wait and see.
			return controller.Progress{Phase: controller.Transient, State: s}
		}
	}
	return controller.Progress{Phase: controller.Settled, State: string(components.ConfigurationDataPlaneGroupStateReady)}
}

// configurationDiffers names the fields of the configuration in Konnect
// that differ from the desired one, for adoption by matching.
func configurationDiffers(desired components.CreateConfigurationRequest, actual *components.ConfigurationManifest) []string {
	var d diff
	d.check("version", deref(desired.Version) == deref(actual.GetVersion()))
	d.check("api_access", deref(desired.APIAccess) == orDefault(deref(actual.GetAPIAccess()), components.APIAccessPrivatePlusPublic))
	want := make([]string, 0, len(desired.DataplaneGroups))
	for _, g := range desired.DataplaneGroups {
		want = append(want, groupKey(g.Provider, g.Region, deref(g.CloudGatewayNetworkID), g.Autoscale, g.Environment))
	}
	var got []string
	for _, g := range actual.GetDataplaneGroups() {
		if g.GetState() != components.ConfigurationDataPlaneGroupStateTerminating && g.GetState() != components.ConfigurationDataPlaneGroupStateTerminated {
			got = append(got, groupKey(g.GetProvider(), g.GetRegion(), deref(g.GetCloudGatewayNetworkID()), g.GetAutoscale(), g.GetEnvironment()))
		}
	}
	d.check("dataplane_groups", sameSet(want, got))
	return d
}

// groupKey is everything that decides a data-plane group, as one string.
func groupKey(provider components.ProviderName, region, networkID string, scale *components.ConfigurationDataPlaneGroupAutoscale, env []components.ConfigurationDataPlaneGroupEnvironmentField) string {
	b, _ := json.Marshal([]any{provider, region, networkID, scale, orEmpty(env)})
	return string(b)
}

func orEmpty[E any](s []E) []E {
	if s == nil {
		return []E{}
	}
	return s
}
