package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// failoverNamespace holds the control plane of the kongservice sample,
// which the failover adds services to.
const (
	failoverNamespace = "e2e-kongservice"
	failoverServices  = 12
)

var (
	serviceKind      = schema.GroupVersionKind{Group: configurationGroup, Version: "v1alpha1", Kind: "KongService"}
	controlPlaneKind = schema.GroupVersionKind{Group: konnectGroup, Version: "v1alpha2", Kind: "KonnectGatewayControlPlane"}
)

// failoverPatience is how long the failover waits for what takes seconds
// on an idle machine: the standby's takeover and the rest of the batch.
const failoverPatience = 3 * time.Minute

// failover applies a batch of services, kills the leader with SIGKILL while
// it creates them, and checks that the standby takes the Lease, not before
// the old leader's ran out, and finishes the batch with exactly one Konnect
// service per KongService. It returns the new leader.
func failover(ctx context.Context, t *testing.T, c *clusterEnv, ops []*operatorProcess, lead *operatorProcess) *operatorProcess {
	var standby *operatorProcess
	for _, op := range ops {
		if op != lead {
			standby = op
		}
	}
	cp, err := c.get(ctx, controlPlaneKind, failoverNamespace, "sample-kongservice")
	if err != nil {
		t.Fatal(err)
	}
	cpID, _, _ := unstructured.NestedString(cp.Object, "status", "id")
	if cpID == "" {
		t.Fatal("the kongservice sample's control plane has no Konnect ID")
	}

	var manifest strings.Builder
	for i := range failoverServices {
		fmt.Fprintf(&manifest, `---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongService
metadata:
  name: failover-%d
spec:
  name: failover-%d
  host: failover-%d.example.com
  controlPlaneRef:
    type: konnectNamespacedRef
    konnectNamespacedRef:
      name: sample-kongservice
`, i, i, i)
	}
	if _, err := c.kubectl(ctx, manifest.String(), "apply", "--server-side", "-n", failoverNamespace, "-f", "-"); err != nil {
		t.Fatal(err)
	}
	// Let the leader start on the batch, then kill it mid-way.
	_ = eventually(ctx, 10*time.Second, func(ctx context.Context) error {
		if programmedCount(ctx, c, "failover-") == 0 {
			return fmt.Errorf("none programmed yet")
		}
		return nil
	})
	holder, renewed, err := leaseHolder(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if holder != lead.identity() {
		t.Fatalf("the Lease is held by %q, not by the leader %s", holder, lead.identity())
	}
	done := programmedCount(ctx, c, "failover-")
	before, err := c.kube.CoordinationV1().Leases(operatorNamespace).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	lead.kill()
	t.Logf("killed the leader %s with SIGKILL after %d of %d services were programmed (lease renewed %s before)",
		lead.name, done, failoverServices, killed.Sub(renewed).Round(time.Millisecond))

	handover, err := awaitHandover(ctx, c, before, failoverPatience)
	if err != nil {
		t.Fatal(err)
	}
	newLeader, err := leader(ctx, c, []*operatorProcess{standby}, failoverPatience)
	if err != nil {
		t.Fatal(err)
	}
	// The standby may take the Lease once leaseDuration has passed since the
	// last renewal it saw; it tries every retryPeriod (with up to 20%
	// jitter). How soon it did depends on the machine, and is only logged;
	// that it did not take the Lease before the old one ran out is decided
	// by the times both wrote into it.
	t.Logf("%s took over %s after the kill (at best %s)", newLeader.name, handover.acquired.Sub(killed).Round(time.Millisecond), leaseDuration+2*retryPeriod)
	if earliest := handover.lastRenewed.Add(handover.leaseDuration); handover.acquired.Before(earliest) {
		t.Errorf("%s acquired the Lease at %s, before the old leader's (renewed at %s for %s) ran out",
			newLeader.name, handover.acquired.Format(time.RFC3339Nano), handover.lastRenewed.Format(time.RFC3339Nano), handover.leaseDuration)
	}
	if handover.transitions != 1 {
		t.Errorf("the Lease changed hands %d times, want once", handover.transitions)
	}

	err = eventually(ctx, failoverPatience, func(ctx context.Context) error {
		if n := programmedCount(ctx, c, "failover-"); n != failoverServices {
			return fmt.Errorf("%d of %d failover services programmed", n, failoverServices)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkNoDuplicates(ctx, t, c, cpID)

	families, err := newLeader.metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sumMetric(families, "konnect_operator_reconcile_total", map[string]string{"kind": "KongService", "result": "success"}) == 0 {
		t.Error("the new leader's metrics show no successful KongService reconcile")
	}
	return newLeader
}

// programmedCount counts the programmed KongServices whose name starts
// with prefix in the failover namespace.
func programmedCount(ctx context.Context, c *clusterEnv, prefix string) int {
	items, err := c.list(ctx, serviceKind, failoverNamespace)
	if err != nil {
		return 0
	}
	n := 0
	for i := range items {
		if strings.HasPrefix(items[i].GetName(), prefix) && conditionsOf(&items[i])["Programmed"]["status"] == "True" {
			n++
		}
	}
	return n
}

// checkNoDuplicates asks Konnect for each KongService of the namespace by
// its k8s-uid tag (exactly one each), and for the control plane's services
// (exactly as many as KongServices).
func checkNoDuplicates(ctx context.Context, t *testing.T, c *clusterEnv, cpID string) {
	items, err := c.list(ctx, serviceKind, failoverNamespace)
	if err != nil {
		t.Fatal(err)
	}
	type page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	base := "/v2/control-planes/" + cpID + "/core-entities/services"
	for i := range items {
		var byUID page
		query := url.Values{"tags": {controller.TagKeyUID + ":" + string(items[i].GetUID())}}
		if err := suite.sim.get(ctx, base+"?"+query.Encode(), true, &byUID); err != nil {
			t.Fatal(err)
		}
		if len(byUID.Data) != 1 {
			t.Errorf("KongService %s: %d Konnect services carry its UID tag, want 1", items[i].GetName(), len(byUID.Data))
		}
	}
	var all page
	if err := suite.sim.get(ctx, base+"?size=1000", true, &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Data) != len(items) {
		t.Errorf("the control plane holds %d services for %d KongServices", len(all.Data), len(items))
	}
}

// handover is what the Lease says of a change of leader.
type handover struct {
	// lastRenewed is the old holder's last renewal seen in the Lease, and
	// leaseDuration how long it was valid for.
	lastRenewed   time.Time
	leaseDuration time.Duration
	// acquired is when the new holder says it acquired the Lease.
	acquired time.Time
	// transitions is how many times the Lease changed hands meanwhile.
	transitions int32
}

// awaitHandover follows the Lease, as it was while its old holder still
// ran, until someone else holds it.
func awaitHandover(ctx context.Context, c *clusterEnv, before *coordinationv1.Lease, patience time.Duration) (handover, error) {
	var h handover
	old := ptr.Deref(before.Spec.HolderIdentity, "")
	// The old holder's renewals: the one before it stopped, and any that was
	// on its way to the API server then.
	renewed := func(spec coordinationv1.LeaseSpec) {
		if spec.RenewTime != nil && spec.RenewTime.After(h.lastRenewed) {
			h.lastRenewed = spec.RenewTime.Time
			h.leaseDuration = time.Duration(ptr.Deref(spec.LeaseDurationSeconds, 0)) * time.Second
		}
	}
	renewed(before.Spec)
	err := eventually(ctx, patience, func(ctx context.Context) error {
		lease, err := c.kube.CoordinationV1().Leases(operatorNamespace).Get(ctx, leaseName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		spec := lease.Spec
		if holder := ptr.Deref(spec.HolderIdentity, ""); holder == old || holder == "" {
			renewed(spec)
			return fmt.Errorf("the Lease is still held by %q", holder)
		}
		if spec.AcquireTime == nil {
			return fmt.Errorf("the Lease's new holder wrote no acquire time")
		}
		h.acquired = spec.AcquireTime.Time
		h.transitions = ptr.Deref(spec.LeaseTransitions, 0) - ptr.Deref(before.Spec.LeaseTransitions, 0)
		return nil
	})
	return h, err
}
