package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// The Dedicated Cloud Gateway networks, transit gateways and data-plane
// group configurations through the shared per-kind harness (kindcase_test.go), on a simulator that
// provisions and terminates at once. Konnect keeps no tags on them, so
// they are adopted by matching only; an entity seeded to differ is never
// adopted, and its seed deletes it again. Konnect's states from create to
// delete, and the references, are tested in cloudnetwork_test.go and
// cloudtransit_test.go.

type (
	networkObj        = *cloudNetwork
	transitGatewayObj = *transitGateway
	configurationObj  = *dpConfig
)

var cloudNetworks = kindCase[networkObj]{
	kind: "KonnectCloudGatewayNetwork", collection: "networks", path: "/networks", untagged: true,
	options: cloudOptions(0, 0),
	client:  func(e *env) objectClient[networkObj] { return e.cs.KonnectV1alpha1().KonnectCloudGatewayNetworks(e.ns) },
	object:  func(e *env, name string) networkObj { return e.networkObject(name, "auth") },
	// A network's spec cannot change once it exists (only its name could
	// in Konnect, and the CRD refuses that too): changed recognises the
	// spec's name, which drift renames.
	changed: func(ent map[string]any) error {
		if name := fmt.Sprint(ent["name"]); strings.HasPrefix(name, "drifted-") {
			return fmt.Errorf("name = %s", name)
		}
		return nil
	},
	drift: func(e *env, _ string, ent map[string]any) {
		drifted := "drifted-" + fmt.Sprint(ent["id"])
		if _, err := e.konnect().CloudGateways.UpdateNetwork(e.ctx, fmt.Sprint(ent["id"]), components.PatchNetworkRequest{Name: &drifted}); err != nil {
			e.t.Fatal(err)
		}
	},
	lookup: func(e *env, _ string, n networkObj) (map[string]any, bool) {
		for _, ent := range e.sim.Networks(e.orgID) {
			if ent["id"] == n.Status.ID {
				return ent, true
			}
		}
		return nil, false
	},
	adopt: func(n networkObj, opts *commonv1alpha1.AdoptOptions) { n.Spec.Adopt = opts },
	seed: func(e *env, _, name string, matching bool) string {
		want := e.networkObject(name, "auth").Spec
		if !matching {
			want.CidrBlock = "10.5.0.0/16"
		}
		api := e.konnect()
		res, err := api.CloudGateways.CreateNetwork(e.ctx, components.CreateNetworkRequest{
			Name: want.Name, CloudGatewayProviderAccountID: want.CloudGatewayProviderAccountID, Region: want.Region,
			AvailabilityZones: want.AvailabilityZones, CidrBlock: want.CidrBlock,
		})
		if err != nil {
			e.t.Fatal(err)
		}
		id := res.GetNetwork().GetID()
		if !matching {
			e.t.Cleanup(func() {
				if _, err := api.CloudGateways.DeleteNetwork(e.ctx, id); err != nil {
					e.t.Error(err)
				}
			})
		}
		return id
	},
	differs: "cidr_block",
}

// transitGateways are attached to the network "net".
var transitGateways = kindCase[transitGatewayObj]{
	kind: "KonnectCloudGatewayTransitGateway", collection: "transit-gateways", path: "/transit-gateways", untagged: true,
	options: cloudOptions(0, 0),
	client: func(e *env) objectClient[transitGatewayObj] {
		return e.cs.KonnectV1alpha1().KonnectCloudGatewayTransitGateways(e.ns)
	},
	setup: func(e *env) {
		e.createNetwork("net", "auth")
		cloudNetworks.programmed(e, "net")
	},
	object: func(_ *env, name string) transitGatewayObj { return transitGatewayObject(name, "net") },
	// Only an AWS transit gateway's CIDR blocks can change in Konnect.
	change: func(tg transitGatewayObj) {
		tg.Spec.AWSTransitGateway.CIDRBlocks = []string{"192.168.0.0/16", "172.16.0.0/16"}
	},
	changed: func(ent map[string]any) error {
		if blocks := fmt.Sprint(ent["cidr_blocks"]); blocks != "[192.168.0.0/16 172.16.0.0/16]" {
			return fmt.Errorf("cidr_blocks = %s", blocks)
		}
		return nil
	},
	drift: func(e *env, _ string, ent map[string]any) {
		if _, err := e.konnect().CloudGateways.UpdateTransitGateway(e.ctx, operations.UpdateTransitGatewayRequest{
			NetworkID: cloudNetworks.get(e, "net").Status.ID, TransitGatewayID: fmt.Sprint(ent["id"]),
			PatchTransitGatewayRequest: components.CreatePatchTransitGatewayRequestPatchAWSTransitGatewayAWSTransitGateway(
				components.PatchAWSTransitGatewayAWSTransitGateway{CidrBlocks: []string{"192.168.0.0/16"}}),
		}); err != nil {
			e.t.Fatal(err)
		}
	},
	lookup: func(e *env, _ string, tg transitGatewayObj) (map[string]any, bool) {
		for _, ent := range e.sim.TransitGateways(e.orgID, tg.Status.NetworkID) {
			if ent["id"] == tg.Status.ID {
				return ent, true
			}
		}
		return nil, false
	},
	adopt: func(tg transitGatewayObj, opts *commonv1alpha1.AdoptOptions) { tg.Spec.Adopt = opts },
	seed: func(e *env, _, name string, matching bool) string {
		want := transitGatewayObject(name, "net").Spec.AWSTransitGateway
		if !matching {
			want.CIDRBlocks = []string{"10.200.0.0/16"}
		}
		api, networkID := e.konnect(), cloudNetworks.get(e, "net").Status.ID
		res, err := api.CloudGateways.CreateTransitGateway(e.ctx, networkID, components.CreateCreateTransitGatewayRequestAWSTransitGateway(components.AWSTransitGateway{
			Name: want.Name, CidrBlocks: want.CIDRBlocks,
			TransitGatewayAttachmentConfig: components.AwsTransitGatewayAttachmentConfig{
				Kind:             components.AWSTransitGatewayAttachmentConfigAWSTransitGatewayAttachmentTypeAwsTransitGatewayAttachment,
				TransitGatewayID: want.AttachmentConfig.TransitGatewayID, RAMShareArn: want.AttachmentConfig.RAMShareArn,
			},
		}))
		if err != nil {
			e.t.Fatal(err)
		}
		id := res.GetTransitGatewayResponse().AwsTransitGatewayResponse.GetID()
		if !matching {
			e.t.Cleanup(func() {
				if _, err := api.CloudGateways.DeleteTransitGateway(e.ctx, networkID, id); err != nil {
					e.t.Error(err)
				}
			})
		}
		return id
	},
	differs: "cidr_blocks",
}

// cloudControlPlaneFor is the cloud control plane of a configuration
// named name: a control plane has one configuration, so each has its own.
func (e *env) cloudControlPlaneFor(name string) string {
	e.t.Helper()
	cp := "cp-" + name
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Get(e.ctx, cp, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		e.createCloudControlPlane(cp, "auth", true)
	}
	return cp
}

// putConfiguration writes, through Konnect's API, the configuration of the
// control plane cpID that configurationObject describes, with instances
// instances, and returns its ID.
func (e *env) putConfiguration(cpID string, instances int64) string {
	e.t.Helper()
	version := "3.9"
	scale := components.CreateConfigurationDataPlaneGroupAutoscaleConfigurationDataPlaneGroupAutoscaleStatic(components.ConfigurationDataPlaneGroupAutoscaleStatic{ //nolint:staticcheck // what the kind offers
		Kind: components.KindStatic, InstanceType: components.InstanceTypeNameSmall, RequestedInstances: instances,
	})
	networkID := cloudNetworks.get(e, "net").Status.ID
	res, err := e.konnect().CloudGateways.CreateConfiguration(e.ctx, components.CreateConfigurationRequest{
		ControlPlaneID: cpID, ControlPlaneGeo: components.ControlPlaneGeoUs, Version: &version,
		APIAccess: components.APIAccessPrivatePlusPublic.ToPointer(), Kind: components.ConfigurationKindDedicatedV0.ToPointer(),
		DataplaneGroups: []components.CreateConfigurationDataPlaneGroup{{
			Provider: components.ProviderNameAws, Region: "eu-central-1", CloudGatewayNetworkID: &networkID, Autoscale: &scale,
			Environment: []components.ConfigurationDataPlaneGroupEnvironmentField{{Name: "KONG_LOG_LEVEL", Value: "debug"}},
		}},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.GetConfigurationManifest().GetID()
}

// requestedInstances is the instances the first group of a configuration
// asks for.
func requestedInstances(ent map[string]any) string {
	groups, _ := ent["dataplane_groups"].([]any)
	if len(groups) == 0 {
		return "no group"
	}
	autoscale, _ := groups[0].(map[string]any)["autoscale"].(map[string]any)
	return fmt.Sprint(autoscale["requested_instances"])
}

// configurations are each of a cloud control plane of their own, with one
// group on the network "net". Deleting one leaves the control plane's
// configuration in Konnect, without groups.
var configurations = kindCase[configurationObj]{
	kind: "KonnectCloudGatewayDataPlaneGroupConfiguration", collection: "configurations", path: "/cloud-gateways/configurations", untagged: true,
	options: cloudOptions(0, 0),
	client: func(e *env) objectClient[configurationObj] {
		return e.cs.KonnectV1alpha1().KonnectCloudGatewayDataPlaneGroupConfigurations(e.ns)
	},
	setup: func(e *env) {
		e.createNetwork("net", "auth")
		cloudNetworks.programmed(e, "net")
	},
	object: func(e *env, name string) configurationObj {
		return configurationObject(name, e.cloudControlPlaneFor(name), namespacedNetwork("net"))
	},
	change: func(cfg configurationObj) { cfg.Spec.DataplaneGroups[0].Autoscale.Static.RequestedInstances = 3 },
	changed: func(ent map[string]any) error {
		if got := requestedInstances(ent); got != "3" {
			return fmt.Errorf("requested instances: %s, want 3", got)
		}
		return nil
	},
	drift: func(e *env, _ string, ent map[string]any) { e.putConfiguration(fmt.Sprint(ent["control_plane_id"]), 1) },
	lookup: func(e *env, _ string, cfg configurationObj) (map[string]any, bool) {
		ent := e.sim.Configuration(e.orgID, cfg.Status.ControlPlaneID)
		return ent, ent != nil && ent["id"] == cfg.Status.ID
	},
	resetOnDelete: func(ent map[string]any) error {
		if groups, _ := ent["dataplane_groups"].([]any); len(groups) != 0 {
			return fmt.Errorf("groups left: %v", groups)
		}
		return nil
	},
	adopt: func(cfg configurationObj, opts *commonv1alpha1.AdoptOptions) { cfg.Spec.Adopt = opts },
	seed: func(e *env, _, name string, matching bool) string {
		cpID := e.programmedControlPlane(e.cloudControlPlaneFor(name))
		instances := int64(2)
		if !matching {
			instances = 1
		}
		return e.putConfiguration(cpID, instances)
	},
	differs: "dataplane_groups",
}

func TestCloudGatewayNetwork(t *testing.T)        { cloudNetworks.test(t) }
func TestCloudGatewayTransitGateway(t *testing.T) { transitGateways.test(t) }
func TestCloudGatewayDataPlaneGroupConfiguration(t *testing.T) {
	configurations.test(t)
}
