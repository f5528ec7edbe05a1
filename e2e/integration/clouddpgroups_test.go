package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// groupsIn returns the data-plane groups of the control plane's
// configuration in the simulator.
func (e *env) groupsIn(cpID string) []map[string]any {
	cfg := e.sim.Configuration(e.orgID, cpID)
	raw, _ := cfg["dataplane_groups"].([]any)
	var out []map[string]any
	for _, g := range raw {
		out = append(out, g.(map[string]any))
	}
	return out
}

// A configuration waits for its network, follows its data-plane groups to
// ready, is written again as a whole on a change, keeps its network in use,
// and on deletion removes its groups and waits until they are gone.
func TestCloudGatewayDataPlaneGroupConfigurationFollowsItsGroups(t *testing.T) {
	t.Parallel()
	e := newEnv(t, cloudOptions(2*time.Second, time.Second))
	e.createAuthConfig("auth")
	e.createCloudControlPlane("cp", "auth", true)
	e.createNetwork("net", "auth")
	e.createConfiguration("dcgw", "cp", namespacedNetwork("net"))
	get := func() (*dpConfig, error) { return e.configuration("dcgw") }
	getNetwork := func() (*cloudNetwork, error) { return e.network("net") }

	waitObject(e, "configuration waiting for its network", get, func(cfg *dpConfig) error {
		return conditionIs(cfg, commonv1alpha1.ConditionKonnectNetworkRefsValid, metav1.ConditionFalse, commonv1alpha1.ReasonNotProgrammed)
	})
	if n, err := getNetwork(); err != nil || n.Status.State == "ready" {
		t.Fatalf("network %+v, %v: the configuration must be seen waiting while the network is not ready", n, err)
	}
	cpID := waitObject(e, "control plane", func() (*konnectv1alpha2.KonnectGatewayControlPlane, error) {
		return e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Get(e.ctx, "cp", metav1.GetOptions{})
	}, func(cp *konnectv1alpha2.KonnectGatewayControlPlane) error { return programmed(cp) }).Status.ID
	if cfg := e.sim.Configuration(e.orgID, cpID); cfg != nil {
		t.Fatalf("configuration written before its network was ready: %v", cfg)
	}
	waitObject(e, "configuration initializing", get, func(cfg *dpConfig) error {
		if err := conditionIs(cfg, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonProvisioning); err != nil {
			return err
		}
		if len(cfg.Status.DataPlaneGroups) != 1 || cfg.Status.DataPlaneGroups[0].State != "initializing" {
			return fmt.Errorf("groups %+v", cfg.Status.DataPlaneGroups)
		}
		return nil
	})
	ready := waitObject(e, "configuration ready", get, func(cfg *dpConfig) error { return programmed(cfg) })
	n, _ := getNetwork()
	group := ready.Status.DataPlaneGroups[0]
	if group.State != "ready" || group.ID == "" || group.CloudGatewayNetworkID != n.Status.ID || group.Region != "eu-central-1" || len(group.EgressIPAddresses) == 0 {
		t.Fatalf("status group %+v, want a ready group on network %s with its addresses", group, n.Status.ID)
	}
	if ready.Status.ControlPlaneID != cpID || ready.Status.ID == "" {
		t.Fatalf("status control plane %q, ID %q", ready.Status.ControlPlaneID, ready.Status.ID)
	}
	e.eventuallyEvent("KonnectCloudGatewayDataPlaneGroupConfiguration", "dcgw", corev1.EventTypeNormal, controller.EventProvisioned)
	cfg := e.sim.Configuration(e.orgID, cpID)
	if cfg["version"] != "3.9" || cfg["api_access"] != "private+public" || cfg["control_plane_geo"] != "us" {
		t.Fatalf("Konnect holds %v", cfg)
	}

	// A change writes the whole configuration again; the group starts over.
	e.updateConfiguration("dcgw", func(c *dpConfig) { c.Spec.DataplaneGroups[0].Autoscale.Static.RequestedInstances = 3 })
	e.eventually("three instances in Konnect", func() error {
		groups := e.groupsIn(cpID)
		if len(groups) != 1 || fmt.Sprint(groups[0]["autoscale"]) != "map[instance_type:small kind:static requested_instances:3]" {
			return fmt.Errorf("groups %v", groups)
		}
		if groups[0]["id"] != group.ID {
			return fmt.Errorf("the group was replaced: %v", groups[0]["id"])
		}
		return nil
	})
	waitObject(e, "configuration ready again", get, func(cfg *dpConfig) error { return programmed(cfg) })
	if n := e.calls("PUT", "/cloud-gateways/configurations"); n != 2 {
		var log []string
		for _, r := range e.sim.Requests() {
			if strings.Contains(r.Path, "cloud-gateways/configurations") {
				log = append(log, fmt.Sprintf("%+v", r))
			}
		}
		t.Fatalf("%d configuration writes, want 2 (create and change):\n%s", n, strings.Join(log, "\n"))
	}

	// The network stays while the configuration uses it.
	if err := e.cs.KonnectV1alpha1().KonnectCloudGatewayNetworks(e.ns).Delete(e.ctx, "net", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventuallyEvent("KonnectCloudGatewayNetwork", "net", corev1.EventTypeNormal, controller.EventWaitingForDependents)
	e.stays("network deleted while a configuration uses it", func() error {
		if e.simNetwork(e.ns+"-net") == nil {
			return fmt.Errorf("the network is gone from Konnect")
		}
		return nil
	})

	// Deleting the configuration removes its groups and waits for them.
	if err := e.cs.KonnectV1alpha1().KonnectCloudGatewayDataPlaneGroupConfigurations(e.ns).Delete(e.ctx, "dcgw", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitObject(e, "configuration kept while its groups terminate", get, func(cfg *dpConfig) error {
		return conditionIs(cfg, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonDeleting)
	})
	if groups := e.groupsIn(cpID); len(groups) != 1 || groups[0]["state"] != "terminating" {
		t.Fatalf("groups %v, want the one group terminating", groups)
	}
	gone(e, "configuration", get)
	if groups := e.groupsIn(cpID); len(groups) != 0 {
		t.Fatalf("groups left in Konnect: %v", groups)
	}
	gone(e, "network", getNetwork)
}

// Every reference of a configuration that cannot be used keeps it out of
// Konnect and says why; a network named by its Konnect ID needs no object.
func TestCloudGatewayDataPlaneGroupConfigurationReferenceFailures(t *testing.T) {
	t.Parallel()
	o := cloudOptions(0, 0)
	o.otherNamespace = true
	e := newEnv(t, o)
	e.createAuthConfig("auth")
	e.createCloudControlPlane("cloud", "auth", true)
	e.createCloudControlPlane("plain", "auth", false)
	e.sim.Faults().FailProvisioning(e.ns+"-failing", "quota exceeded")
	e.createNetwork("net", "auth")
	e.createNetwork("failing", "auth", func(n *cloudNetwork) { n.Spec.Name = e.ns + "-failing"; n.Spec.CidrBlock = "10.3.0.0/16" })
	waitObject(e, "network ready", func() (*cloudNetwork, error) { return e.network("net") }, func(n *cloudNetwork) error { return programmed(n) })
	get := func(name string) func() (*dpConfig, error) {
		return func() (*dpConfig, error) { return e.configuration(name) }
	}
	refused := func(name, conditionType, reason, programmedReason string) {
		t.Helper()
		waitObject(e, name+" refused", get(name), func(cfg *dpConfig) error {
			if err := conditionIs(cfg, conditionType, metav1.ConditionFalse, reason); err != nil {
				return err
			}
			return conditionIs(cfg, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, programmedReason)
		})
	}

	e.createConfiguration("no-cp", "absent", namespacedNetwork("net"))
	refused("no-cp", commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid, commonv1alpha1.ReasonWaitingForReferences)
	e.createConfiguration("not-cloud", "plain", namespacedNetwork("net"))
	refused("not-cloud", commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid, commonv1alpha1.ReasonConditionWithStatusFalseExists)
	if msg := conditionMessage(waitObject(e, "", get("not-cloud"), func(*dpConfig) error { return nil }), commonv1alpha1.ConditionControlPlaneRefValid); !strings.Contains(msg, "cloud_gateway: true") {
		t.Fatalf("ControlPlaneRefValid says %q; want it to name cloud_gateway", msg)
	}
	e.createConfiguration("no-network", "cloud", namespacedNetwork("absent"))
	refused("no-network", commonv1alpha1.ConditionKonnectNetworkRefsValid, commonv1alpha1.ReasonRefNotFound, commonv1alpha1.ReasonWaitingForReferences)
	other := e.other
	elsewhere := namespacedNetwork("net")
	elsewhere.NamespacedRef.Namespace = other
	e.createConfiguration("elsewhere", "cloud", elsewhere)
	refused("elsewhere", commonv1alpha1.ConditionKonnectNetworkRefsValid, commonv1alpha1.ReasonRefNotPermitted, commonv1alpha1.ReasonConditionWithStatusFalseExists)
	e.createConfiguration("on-failed", "cloud", namespacedNetwork("failing"))
	refused("on-failed", commonv1alpha1.ConditionKonnectNetworkRefsValid, commonv1alpha1.ReasonNotProgrammed, commonv1alpha1.ReasonBlockedByReference)
	cloudID := waitObject(e, "control plane", func() (*konnectv1alpha2.KonnectGatewayControlPlane, error) {
		return e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Get(e.ctx, "cloud", metav1.GetOptions{})
	}, func(cp *konnectv1alpha2.KonnectGatewayControlPlane) error { return programmed(cp) }).Status.ID
	if cfg := e.sim.Configuration(e.orgID, cloudID); cfg != nil {
		t.Fatalf("a configuration reached Konnect through a broken reference: %v", cfg)
	}
	if n := e.calls("PUT", "/cloud-gateways/configurations"); n != 0 {
		t.Fatalf("%d configuration writes through broken references", n)
	}

	// A network named by its Konnect ID: made outside the cluster.
	res, err := e.konnect().CloudGateways.CreateNetwork(e.ctx, components.CreateNetworkRequest{
		Name: e.ns + "-outside", CloudGatewayProviderAccountID: testProviderAccount, Region: "eu-central-1",
		AvailabilityZones: []string{"euc1-az1"}, CidrBlock: "10.9.0.0/16",
	})
	if err != nil {
		t.Fatal(err)
	}
	outsideID := res.GetNetwork().GetID()
	for _, name := range []string{"elsewhere", "on-failed", "no-network"} {
		if err := e.cs.KonnectV1alpha1().KonnectCloudGatewayDataPlaneGroupConfigurations(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.createConfiguration("by-id", "cloud", konnectv1alpha1.NetworkRef{Type: konnectv1alpha1.NetworkRefKonnectID, KonnectID: &outsideID})
	waitObject(e, "configuration on a network named by ID", get("by-id"), func(cfg *dpConfig) error { return programmed(cfg) })
	if groups := e.groupsIn(cloudID); len(groups) != 1 || groups[0]["cloud_gateway_network_id"] != outsideID {
		t.Fatalf("groups %v, want one on %s", groups, outsideID)
	}
	if err := e.cs.KonnectV1alpha1().KonnectCloudGatewayDataPlaneGroupConfigurations(e.ns).Delete(e.ctx, "by-id", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	gone(e, "configuration by-id", get("by-id"))
	if _, err := e.konnect().CloudGateways.DeleteNetwork(e.ctx, outsideID); err != nil {
		t.Fatal(err)
	}
}
