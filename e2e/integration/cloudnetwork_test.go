package integration

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// A network is initializing in Konnect for a while: the status shows the
// state, Programmed waits for ready, and deletion waits until Konnect has
// finished terminating it. Its lifecycle on a Konnect that provisions at
// once, drift and adoption are walked by the harness (cloudkinds_test.go).
func TestCloudGatewayNetworkFollowsKonnectsStatesFromCreateToDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t, cloudOptions(3*time.Second, 2*time.Second))
	e.createAuthConfig("auth")
	e.createNetwork("net", "auth")
	get := func() (*cloudNetwork, error) { return e.network("net") }

	initializing := waitObject(e, "network initializing", get, func(n *cloudNetwork) error {
		return stateIs(n, n.Status.State, "initializing", commonv1alpha1.ReasonProvisioning)
	})
	if initializing.Status.ID == "" {
		t.Fatal("an initializing network has no Konnect ID in its status")
	}
	ready := waitObject(e, "network ready", get, func(n *cloudNetwork) error {
		return stateIs(n, n.Status.State, "ready", commonv1alpha1.ReasonProgrammed)
	})
	if ready.Status.ID != initializing.Status.ID || ready.Status.OrgID != e.orgID {
		t.Fatalf("status ID %q org %q, want %q and %q", ready.Status.ID, ready.Status.OrgID, initializing.Status.ID, e.orgID)
	}
	e.eventuallyEvent("KonnectCloudGatewayNetwork", "net", corev1.EventTypeNormal, controller.EventProvisioned)
	if got := e.simNetwork(e.ns + "-net"); got == nil || got["id"] != ready.Status.ID || got["cidr_block"] != "10.0.0.0/16" {
		t.Fatalf("the simulator holds %v, want the network %s", got, ready.Status.ID)
	}
	if n := e.calls("POST", "/networks"); n != 1 {
		t.Fatalf("%d network creates, want 1", n)
	}

	if err := e.cs.KonnectV1alpha1().KonnectCloudGatewayNetworks(e.ns).Delete(e.ctx, "net", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitObject(e, "network kept while terminating", get, func(n *cloudNetwork) error {
		return stateIs(n, n.Status.State, "terminating", commonv1alpha1.ReasonDeleting)
	})
	if e.simNetwork(e.ns+"-net") == nil {
		t.Fatal("the object is kept but the network is gone from Konnect already")
	}
	gone(e, "network", get)
	if n := len(e.sim.Networks(e.orgID)); n != 0 {
		t.Fatalf("%d networks left in Konnect", n)
	}
}

// A network Konnect cannot provision is reported as failed, with Konnect's
// reason and one Warning, and can still be deleted.
func TestCloudGatewayNetworkThatFailsToProvisionSaysWhy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, cloudOptions(time.Second, time.Second))
	e.sim.Faults().FailProvisioning(e.ns+"-net", "no capacity left in eu-central-1")
	e.createAuthConfig("auth")
	e.createNetwork("net", "auth")
	get := func() (*cloudNetwork, error) { return e.network("net") }

	failed := waitObject(e, "network failed", get, func(n *cloudNetwork) error {
		return stateIs(n, n.Status.State, "offline", commonv1alpha1.ReasonProvisioningFailed)
	})
	if msg := conditionMessage(failed, commonv1alpha1.ConditionProgrammed); !strings.Contains(msg, "no capacity left in eu-central-1") {
		t.Fatalf("Programmed says %q; want Konnect's reason", msg)
	}
	warning := e.eventuallyEvent("KonnectCloudGatewayNetwork", "net", corev1.EventTypeWarning, controller.EventProvisioningFailed)
	if !strings.Contains(warning.Message, "no capacity") {
		t.Fatalf("Warning says %q", warning.Message)
	}
	if got := e.simNetwork(e.ns + "-net"); got == nil || got["state"] != "offline" {
		t.Fatalf("the simulator holds %v, want the failed network offline", got)
	}
	// Still failed after more reads: the failure is not mistaken for a
	// transition that ends.
	e.settle()
	e.settle()
	if n, err := get(); err != nil || stateIs(n, n.Status.State, "offline", commonv1alpha1.ReasonProvisioningFailed) != nil {
		t.Fatalf("later: %+v, %v", n, err)
	}
	if n := len(e.events("KonnectCloudGatewayNetwork", "net")); n > 3 {
		t.Fatalf("%d Events about one failure", n)
	}

	if err := e.cs.KonnectV1alpha1().KonnectCloudGatewayNetworks(e.ns).Delete(e.ctx, "net", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	gone(e, "failed network", get)
	if n := len(e.sim.Networks(e.orgID)); n != 0 {
		t.Fatalf("%d networks left in Konnect", n)
	}
}

// A network needs its auth configuration, in its namespace or, with a
// KongReferenceGrant, in another.
func TestCloudGatewayNetworkWaitsForItsAuthConfiguration(t *testing.T) {
	t.Parallel()
	o := cloudOptions(0, 0)
	o.otherNamespace = true
	e := newEnv(t, o)
	get := func(name string) func() (*cloudNetwork, error) {
		return func() (*cloudNetwork, error) { return e.network(name) }
	}
	programmedNetwork := func(n *cloudNetwork) error { return programmed(n) }

	e.createNetwork("missing", "auth")
	waitObject(e, "network without auth", get("missing"), func(n *cloudNetwork) error {
		return conditionIs(n, commonv1alpha1.ConditionAPIAuthResolvedRef, metav1.ConditionFalse, commonv1alpha1.ReasonRefNotFound)
	})
	if n := len(e.sim.Networks(e.orgID)); n != 0 {
		t.Fatalf("%d networks created without credentials", n)
	}
	e.createAuthConfig("auth")
	waitObject(e, "network once its auth exists", get("missing"), programmedNetwork)

	// Credentials in another namespace need a grant.
	e.readyIn(e.other, "remote")
	other := e.other
	e.createNetwork("remote", "", func(n *cloudNetwork) {
		n.Spec.KonnectConfiguration.AuthRef.Name = "remote-auth"
		n.Spec.KonnectConfiguration.AuthRef.Namespace = &other
		n.Spec.CidrBlock = "10.1.0.0/16"
	})
	waitObject(e, "network with an auth in another namespace", get("remote"), func(n *cloudNetwork) error {
		return conditionIs(n, commonv1alpha1.ConditionAPIAuthResolvedRef, metav1.ConditionFalse, commonv1alpha1.ReasonRefNotPermitted)
	})
	e.grant(e.other, "networks", "konnect.konghq.com", "KonnectAPIAuthConfiguration",
		grantFrom{group: "konnect.konghq.com", kind: "KonnectCloudGatewayNetwork", namespace: e.ns})
	waitObject(e, "network once the grant exists", get("remote"), programmedNetwork)
}

// A network made outside the cluster is adopted by matching when
// spec.adopt names no mode (the mode Kong Operator uses for cloud-gateway
// kinds): an equal one without a write, one that differs refused, and
// deleting the object that refused it leaves it in Konnect.
func TestCloudGatewayNetworkAdoptionByMatching(t *testing.T) {
	t.Parallel()
	e := newEnv(t, cloudOptions(0, 0))
	e.createAuthConfig("auth")
	outside := func(name, cidr string) string {
		t.Helper()
		res, err := e.konnect().CloudGateways.CreateNetwork(e.ctx, components.CreateNetworkRequest{
			Name: e.ns + "-" + name, CloudGatewayProviderAccountID: testProviderAccount, Region: "eu-central-1",
			AvailabilityZones: []string{"euc1-az1", "euc1-az2"}, CidrBlock: cidr,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.GetNetwork().GetID()
	}
	adopt := func(id string) *commonv1alpha1.AdoptOptions {
		// No mode: match.
		return &commonv1alpha1.AdoptOptions{From: commonv1alpha1.AdoptSourceKonnect, Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: id}}
	}

	same := outside("same", "10.0.0.0/16")
	creates := e.calls("POST", "/networks")
	e.createNetwork("same", "auth", func(n *cloudNetwork) { n.Spec.Adopt = adopt(same) })
	got := waitObject(e, "adopted network", func() (*cloudNetwork, error) { return e.network("same") }, func(n *cloudNetwork) error {
		if err := conditionIs(n, commonv1alpha1.ConditionAdopted, metav1.ConditionTrue, commonv1alpha1.ReasonAdopted); err != nil {
			return err
		}
		return programmed(n)
	})
	if got.Status.ID != same || e.calls("POST", "/networks") != creates || e.calls("PATCH", "/networks") != 0 {
		t.Fatalf("adopted %q (want %q) with %d creates and %d updates", got.Status.ID, same, e.calls("POST", "/networks")-creates, e.calls("PATCH", "/networks"))
	}

	differs := outside("differs", "10.5.0.0/16")
	e.createNetwork("differs", "auth", func(n *cloudNetwork) { n.Spec.Adopt = adopt(differs); n.Spec.CidrBlock = "10.6.0.0/16" })
	refused := waitObject(e, "network that differs", func() (*cloudNetwork, error) { return e.network("differs") }, func(n *cloudNetwork) error {
		return conditionIs(n, commonv1alpha1.ConditionAdopted, metav1.ConditionFalse, commonv1alpha1.ReasonNotMatch)
	})
	if !strings.Contains(conditionMessage(refused, commonv1alpha1.ConditionAdopted), "cidr_block") {
		t.Fatalf("Adopted says %q; want it to name cidr_block", conditionMessage(refused, commonv1alpha1.ConditionAdopted))
	}
	if refused.Status.ID != "" && refused.Status.ID != differs {
		t.Fatalf("status ID %q", refused.Status.ID)
	}
	if n := len(e.sim.Networks(e.orgID)); n != 2 {
		t.Fatalf("%d networks in Konnect, want the two made outside", n)
	}
	// Deleting an object that never adopted its network leaves the network;
	// the test removes it itself.
	if err := e.cs.KonnectV1alpha1().KonnectCloudGatewayNetworks(e.ns).Delete(e.ctx, "differs", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	gone(e, "network that differs", func() (*cloudNetwork, error) { return e.network("differs") })
	if e.simNetwork(e.ns+"-differs") == nil {
		t.Fatal("deleting an object that did not adopt its network deleted the network")
	}
	if _, err := e.konnect().CloudGateways.DeleteNetwork(e.ctx, differs); err != nil {
		t.Fatal(err)
	}
}
