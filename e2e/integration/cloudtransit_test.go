package integration

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// A transit gateway waits for its network to be ready, follows Konnect's
// states, and its network is deleted only after it. Its lifecycle on a
// Konnect that provisions at once (a change of its CIDR blocks among it),
// drift and adoption are walked by the harness (cloudkinds_test.go).
func TestCloudGatewayTransitGatewayFollowsItsNetwork(t *testing.T) {
	t.Parallel()
	e := newEnv(t, cloudOptions(2*time.Second, time.Second))
	e.createAuthConfig("auth")
	e.createNetwork("net", "auth")
	e.createTransitGateway("tgw", "net")
	get := func() (*transitGateway, error) { return e.transitGateway("tgw") }
	getNetwork := func() (*cloudNetwork, error) { return e.network("net") }

	// The network is initializing: the transit gateway waits, uncreated.
	waitObject(e, "transit gateway waiting for its network", get, func(tg *transitGateway) error {
		return conditionIs(tg, commonv1alpha1.ConditionKonnectNetworkRefsValid, metav1.ConditionFalse, commonv1alpha1.ReasonNotProgrammed)
	})
	n, err := getNetwork()
	if err != nil {
		t.Fatal(err)
	}
	if n.Status.State == "ready" {
		t.Fatal("the network was ready before the transit gateway was seen waiting; the test proves nothing")
	}
	if tgs := e.sim.TransitGateways(e.orgID, n.Status.ID); len(tgs) != 0 {
		t.Fatalf("transit gateways created on a network that is %s: %v", n.Status.State, tgs)
	}
	waitObject(e, "transit gateway initializing", get, func(tg *transitGateway) error {
		return stateIs(tg, tg.Status.State, "initializing", commonv1alpha1.ReasonProvisioning)
	})
	ready := waitObject(e, "transit gateway ready", get, func(tg *transitGateway) error {
		return stateIs(tg, tg.Status.State, "ready", commonv1alpha1.ReasonProgrammed)
	})
	n, _ = getNetwork()
	if ready.Status.NetworkID != n.Status.ID {
		t.Fatalf("status.networkID %q, want the network's %q", ready.Status.NetworkID, n.Status.ID)
	}
	e.eventuallyEvent("KonnectCloudGatewayTransitGateway", "tgw", corev1.EventTypeNormal, controller.EventProvisioned)

	// The network waits for the transit gateway attached to it.
	if err := e.cs.KonnectV1alpha1().KonnectCloudGatewayNetworks(e.ns).Delete(e.ctx, "net", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventuallyEvent("KonnectCloudGatewayNetwork", "net", corev1.EventTypeNormal, controller.EventWaitingForDependents)
	e.stays("network deleted while a transit gateway uses it", func() error {
		if e.simNetwork(e.ns+"-net") == nil {
			return fmt.Errorf("the network is gone from Konnect")
		}
		if _, err := getNetwork(); err != nil {
			return err
		}
		return nil
	})
	if err := e.cs.KonnectV1alpha1().KonnectCloudGatewayTransitGateways(e.ns).Delete(e.ctx, "tgw", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitObject(e, "transit gateway kept while terminating", get, func(tg *transitGateway) error {
		return stateIs(tg, tg.Status.State, "terminating", commonv1alpha1.ReasonDeleting)
	})
	gone(e, "transit gateway", get)
	gone(e, "network", getNetwork)
	if n := len(e.sim.Networks(e.orgID)); n != 0 {
		t.Fatalf("%d networks left in Konnect", n)
	}
}

// A transit gateway names a network that does not exist, one in another
// namespace, or one that failed: it waits and says which.
func TestCloudGatewayTransitGatewayReferenceFailures(t *testing.T) {
	t.Parallel()
	o := cloudOptions(time.Second, 0)
	o.otherNamespace = true
	e := newEnv(t, o)
	e.createAuthConfig("auth")
	get := func(name string) func() (*transitGateway, error) {
		return func() (*transitGateway, error) { return e.transitGateway(name) }
	}
	refused := func(name, reason, programmedReason string) {
		t.Helper()
		waitObject(e, name+" refused", get(name), func(tg *transitGateway) error {
			if err := conditionIs(tg, commonv1alpha1.ConditionKonnectNetworkRefsValid, metav1.ConditionFalse, reason); err != nil {
				return err
			}
			return conditionIs(tg, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, programmedReason)
		})
	}

	e.createTransitGateway("missing", "nowhere")
	refused("missing", commonv1alpha1.ReasonRefNotFound, commonv1alpha1.ReasonWaitingForReferences)

	other := e.other
	e.createTransitGateway("elsewhere", "net", func(tg *transitGateway) { tg.Spec.NetworkRef.NamespacedRef.Namespace = other })
	refused("elsewhere", commonv1alpha1.ReasonRefNotPermitted, commonv1alpha1.ReasonConditionWithStatusFalseExists)

	e.sim.Faults().FailProvisioning(e.ns+"-failing", "the CIDR block overlaps another network")
	e.createNetwork("failing", "auth", func(n *cloudNetwork) { n.Spec.Name = e.ns + "-failing" })
	e.createTransitGateway("on-failed", "failing")
	waitObject(e, "failed network", func() (*cloudNetwork, error) { return e.network("failing") }, func(n *cloudNetwork) error {
		return conditionIs(n, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonProvisioningFailed)
	})
	refused("on-failed", commonv1alpha1.ReasonNotProgrammed, commonv1alpha1.ReasonBlockedByReference)

	// The missing network appears: the transit gateway follows.
	e.createNetwork("nowhere", "auth", func(n *cloudNetwork) { n.Spec.CidrBlock = "10.2.0.0/16" })
	waitObject(e, "transit gateway once its network exists", get("missing"), func(tg *transitGateway) error { return programmed(tg) })
	for _, name := range []string{"elsewhere", "on-failed"} {
		if tg, err := e.transitGateway(name); err != nil || tg.Status.ID != "" {
			t.Fatalf("%s: %+v, %v; want no Konnect ID", name, tg, err)
		}
	}
	var all int
	for _, n := range e.sim.Networks(e.orgID) {
		all += len(e.sim.TransitGateways(e.orgID, fmt.Sprint(n["id"])))
	}
	if all != 1 {
		t.Fatalf("%d transit gateways in Konnect, want 1", all)
	}
	if !slices.ContainsFunc(e.events("KonnectCloudGatewayTransitGateway", "missing"), func(ev corev1.Event) bool { return ev.Type == corev1.EventTypeNormal }) {
		t.Fatal("no Normal Event about the transit gateway created")
	}
}
