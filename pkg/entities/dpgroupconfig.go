package entities

import (
	"context"
	"fmt"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

const entityDPGroupConfig = "cloud_gateway_configuration"

type dpGroupConfig = *konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfiguration

// DataPlaneGroupConfigurationKind describes
// KonnectCloudGatewayDataPlaneGroupConfigurations: the Dedicated Cloud
// Gateway deployment of a control plane created with cloud_gateway: true.
// Konnect keeps one configuration per control plane and replaces it as a
// whole on every write (PUT semantics), and has no delete: deleting the
// object writes a configuration without data-plane groups and waits until
// Konnect has terminated them. The groups are provisioned in the
// background (Async) on networks that must be ready first.
func DataPlaneGroupConfigurationKind(refs *Refs, networks *controller.Informer[network]) controller.Kind[dpGroupConfig, components.CreateConfigurationRequest] {
	gvk := gvk(konnectv1alpha1.GroupVersion, kindDPGroupConfig)
	controlPlaneRef := func(cfg dpGroupConfig) *cpRef { return &cfg.Spec.ControlPlaneRef }
	placed := underControlPlane(refs, gvk, controlPlaneRef).with(reference[dpGroupConfig]{
		conditions: []string{commonv1alpha1.ConditionKonnectNetworkRefsValid},
		resolve: func(b *resolver, cfg dpGroupConfig) {
			if b.res.Ready && !b.forDelete() {
				checkCloudGateway(b, refs, cfg)
			}
			resolveNetworks(b, networks, cfg)
		},
		dependencies: []controller.Dependency[dpGroupConfig]{{
			Name: dependencyNetwork, Source: networks,
			Keys: func(cfg dpGroupConfig) []string { return networkKeys(cfg.Namespace, groupNetworkRefs(cfg)...) },
		}},
	})
	return controller.Kind[dpGroupConfig, components.CreateConfigurationRequest]{
		GVK:        gvk,
		Conditions: placed.conditions,
		Resolve:    placed.resolve,
		Desired: func(_ context.Context, cfg dpGroupConfig, p controller.Placement) (components.CreateConfigurationRequest, error) {
			return configurationDesired(cfg, p, networks)
		},
		Create: createUnlisted(func(ctx context.Context, api konnect.API, cfg dpGroupConfig, p controller.Placement, desired components.CreateConfigurationRequest) (string, error) {
			manifest, err := putConfiguration(ctx, api, "create", desired)
			if konnect.IsConflict(err) {
				// Konnect refuses a configuration equal to the current one:
				// the control plane is configured so already.
				return findConfiguration(ctx, api, cfg, p)
			}
			if err != nil {
				return "", err
			}
			recordGroups(cfg, manifest.GetDataplaneGroups())
			return manifest.GetID(), nil
		}),
		Update: updateUnlisted(func(ctx context.Context, api konnect.API, cfg dpGroupConfig, _ controller.Placement, id string, desired components.CreateConfigurationRequest) error {
			// Konnect refuses a write equal to the configuration, and each
			// write replaces it whole: compare first.
			current, err := getConfiguration(ctx, api, id)
			if err != nil {
				return err
			}
			if len(configurationDiffers(desired, current)) == 0 {
				recordGroups(cfg, current.GetDataplaneGroups())
				return nil
			}
			manifest, err := putConfiguration(ctx, api, "update", desired)
			if konnect.IsConflict(err) {
				return nil // the configuration equals the spec already
			}
			if err == nil {
				recordGroups(cfg, manifest.GetDataplaneGroups())
			}
			return err
		}),
		Delete: func(ctx context.Context, api konnect.API, cfg dpGroupConfig, p controller.Placement, _ string) error {
			empty := components.CreateConfigurationRequest{
				ControlPlaneID: p.ControlPlaneID, ControlPlaneGeo: controlPlaneGeo(p.Auth.ServerURL),
				Version: &cfg.Spec.Version, DataplaneGroups: []components.CreateConfigurationDataPlaneGroup{},
				APIAccess: apiAccess(cfg),
			}
			_, err := putConfiguration(ctx, api, "delete", empty)
			if konnect.IsConflict(err) {
				return nil // no groups left already
			}
			return err
		},
		FindByUID: findConfiguration,
		// Konnect keeps one per control plane: found before every write.
		Recover:      &controller.Recovery[dpGroupConfig, components.CreateConfigurationRequest]{},
		Dependencies: placed.allDependencies(),
		Managed:      placed.managed,
		Adopt: &controller.Adoption[dpGroupConfig, components.CreateConfigurationRequest]{
			Options: func(cfg dpGroupConfig) *adoptOptions { return adoptMatchByDefault(cfg.Spec.Adopt) },
			Inspect: func(ctx context.Context, api konnect.API, _ dpGroupConfig, p controller.Placement, id string, desired components.CreateConfigurationRequest) (controller.Inspection, error) {
				manifest, err := getConfiguration(ctx, api, id)
				if err != nil {
					return controller.Inspection{}, err
				}
				var fixed diff
				fixed.check("control_plane_id", manifest.GetControlPlaneID() == p.ControlPlaneID)
				return controller.Inspection{Differences: append(fixed, configurationDiffers(desired, manifest)...), Incompatibilities: fixed}, nil
			},
		},
		Async: &controller.Async[dpGroupConfig]{
			Recorded: func(cfg dpGroupConfig) controller.Progress {
				states := make([]string, 0, len(cfg.Status.DataPlaneGroups))
				for _, g := range cfg.Status.DataPlaneGroups {
					states = append(states, g.State)
				}
				return groupsProgress(states)
			},
			Read: readConfiguration,
		},
	}
}

// checkCloudGateway refuses a control plane that was created without
// cloud_gateway: true: Konnect deploys data-plane groups only for those.
// A mirrored control plane's setting is not known here; Konnect says.
func checkCloudGateway(b *resolver, refs *Refs, cfg dpGroupConfig) {
	ref := cfg.Spec.ControlPlaneRef.KonnectNamespacedRef
	cp, err := refs.ControlPlanes.Get(namespaceOr(ref.Namespace, cfg.Namespace), ref.Name)
	if err != nil || cp.Spec.CreateControlPlaneRequest == nil {
		return
	}
	if cloud := cp.Spec.CreateControlPlaneRequest.CloudGateway; cloud == nil || !*cloud {
		b.refuse(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid,
			"%s was not created with cloud_gateway: true; Dedicated Cloud Gateways need a control plane created with spec.createControlPlaneRequest.cloud_gateway: true",
			describe(kindControlPlane, cp.Namespace, cp.Name))
	}
}

// groupNetworkRefs are the network references of cfg's data-plane groups.
func groupNetworkRefs(cfg dpGroupConfig) []konnectv1alpha1.NetworkRef {
	refs := make([]konnectv1alpha1.NetworkRef, 0, len(cfg.Spec.DataplaneGroups))
	for _, g := range cfg.Spec.DataplaneGroups {
		refs = append(refs, g.NetworkRef)
	}
	return refs
}

// resolveNetworks sets KonnectNetworkRefsValid: every network a group
// names by object must be ready in Konnect before the configuration is
// written. Deleting needs none of them.
func resolveNetworks(b *resolver, networks *controller.Informer[network], cfg dpGroupConfig) {
	if b.forDelete() {
		return
	}
	var ready []string
	for i, ref := range groupNetworkRefs(cfg) {
		if ref.Type == konnectv1alpha1.NetworkRefKonnectID {
			continue
		}
		if ref.NamespacedRef == nil {
			b.refuse(commonv1alpha1.ConditionKonnectNetworkRefsValid, commonv1alpha1.ReasonInvalid,
				"spec.dataplane_groups[%d].networkRef names no network: set namespacedRef.name or konnectID", i)
			return
		}
		found := networkOf(networks, cfg.Namespace, ref.NamespacedRef, false)
		if found.network == nil {
			b.invalid(commonv1alpha1.ConditionKonnectNetworkRefsValid, found.reason, "spec.dataplane_groups[%d]: %s", i, found.problem)
			b.refStateAt(found.refState)
			return
		}
		ready = append(ready, found.network.Name)
	}
	message := "every network is named by its Konnect ID"
	if len(ready) > 0 {
		message = fmt.Sprintf("%s %s ready", kindNetwork, strings.Join(ready, ", "))
	}
	b.valid(commonv1alpha1.ConditionKonnectNetworkRefsValid, message)
}

func putConfiguration(ctx context.Context, api konnect.API, verb string, req components.CreateConfigurationRequest) (*components.ConfigurationManifest, error) {
	res, err := konnect.Call(ctx, cloudOp(verb, entityDPGroupConfig), func(ctx context.Context) (*operations.CreateConfigurationResponse, error) {
		return api.CloudGateways.CreateConfiguration(ctx, req)
	})
	if err != nil {
		return nil, err
	}
	return res.GetConfigurationManifest(), nil
}

func getConfiguration(ctx context.Context, api konnect.API, id string) (*components.ConfigurationManifest, error) {
	res, err := konnect.Call(ctx, cloudOp("get", entityDPGroupConfig), func(ctx context.Context) (*operations.GetConfigurationResponse, error) {
		return api.CloudGateways.GetConfiguration(ctx, id)
	})
	if err != nil {
		return nil, err
	}
	return res.GetConfigurationManifest(), nil
}

// findConfiguration returns the ID of the configuration of cfg's control
// plane, "" when it has none: Konnect keeps one per control plane (and
// geo), whoever wrote it, and the next write replaces it.
func findConfiguration(ctx context.Context, api konnect.API, _ dpGroupConfig, p controller.Placement) (string, error) {
	size := cloudPageSize
	res, err := konnect.Call(ctx, cloudOp("list", entityDPGroupConfig), func(ctx context.Context) (*operations.ListConfigurationsResponse, error) {
		return api.CloudGateways.ListConfigurations(ctx, operations.ListConfigurationsRequest{
			PageSize: &size,
			Filter:   &components.ConfigurationsFilterParameters{ControlPlaneID: &components.IDFieldFilter{Eq: &p.ControlPlaneID}},
		})
	})
	if err != nil {
		return "", err
	}
	geo := controlPlaneGeo(p.Auth.ServerURL)
	for _, found := range res.GetListConfigurationsResponse().GetData() {
		if found.GetControlPlaneID() == p.ControlPlaneID && found.GetControlPlaneGeo() == geo {
			return found.GetID(), nil
		}
	}
	return "", nil
}

// readConfiguration reads the configuration, records its data-plane groups
// and reports their progress. Once the object is being deleted, a
// configuration without groups counts as gone: Konnect keeps the empty
// configuration, but nothing of the object's is deployed any more.
func readConfiguration(ctx context.Context, api konnect.API, cfg dpGroupConfig, _ controller.Placement, id string) (controller.Progress, error) {
	manifest, err := getConfiguration(ctx, api, id)
	if err != nil {
		return controller.Progress{}, err
	}
	groups := manifest.GetDataplaneGroups()
	if isBeingDeleted(cfg) && len(groups) == 0 {
		return controller.Progress{}, &konnect.NotFoundError{Operation: cloudOp("get", entityDPGroupConfig).String(), StatusCode: 200,
			Message: "the configuration has no data-plane groups left"}
	}
	recordGroups(cfg, groups)
	states := make([]string, 0, len(groups))
	for _, g := range groups {
		states = append(states, string(g.GetState()))
	}
	return groupsProgress(states), nil
}
