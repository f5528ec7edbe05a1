package integration

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/konnect-operator/konnect-operator/pkg/diff"
	"github.com/konnect-operator/konnect-operator/pkg/inventory"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// buildEventGatewayWorld creates an event gateway with one object of every
// kind it holds (a backend cluster, a listener, a virtual cluster, a
// schema registry, a data-plane certificate, and a policy of each of the
// four policy kinds, below the listener or the virtual cluster), and waits
// until all of them are Programmed.
func (e *env) buildEventGatewayWorld() {
	e.t.Helper()
	e.createAuthConfig("auth")
	e.egVirtualCluster()
	e.egListener()
	egRegistries.create(e, egRegistries.object(e, "registry"))
	egCertificates.create(e, egCertificates.object(e, "dp"))
	egListenerPolicies.create(e, egListenerPolicies.object(e, "forward"))
	egClusterPolicies.create(e, egClusterPolicies.object(e, "acls"))
	egConsumePolicies.create(e, egConsumePolicies.object(e, "consume"))
	egProducePolicies.create(e, egProducePolicies.object(e, "produce"))
	e.eventually("the event gateway world Programmed", func() error {
		_, err := e.worldIDs()
		return err
	})
}

// loseStatusIDs stops the operator and takes the Konnect ID out of the
// status of every object of the world, as a status lost with a backup
// restored without it: the objects keep their UIDs.
func (e *env) loseStatusIDs() {
	e.t.Helper()
	e.stopOperator()
	dyn := dynamic.NewForConfigOrDie(e.restConfig())
	for _, o := range e.worldObjects() {
		if !o.standsForEntity() {
			continue
		}
		patch := []byte(`{"status":{"id":null}}`)
		if _, err := dyn.Resource(o.gvr).Namespace(e.ns).Patch(e.ctx, o.obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			e.t.Fatal(err)
		}
	}
	for _, o := range e.worldObjects() {
		if o.standsForEntity() && o.entityID() != "" {
			e.t.Fatalf("%s still records ID %s", o.key(), o.entityID())
		}
	}
}

// TestEventGatewayEntitiesAreFoundAgainAfterTheirStatusIsLost: objects of
// every Event Gateway kind whose status lost its Konnect ID, in place
// (same UIDs) or with the objects applied again without status (new
// UIDs), find their entities again, by their identity labels (the
// data-plane certificate, which has none, by its certificate), below the
// gateway and below each policy's listener or virtual cluster: within two
// sync periods every object is Programmed with its old ID, nothing is
// created twice, nothing is written, and kubectl konnect diff finds
// nothing.
func TestEventGatewayEntitiesAreFoundAgainAfterTheirStatusIsLost(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		lose func(e *env)
	}{
		{"the status's ID cleared", func(e *env) { e.loseStatusIDs() }},
		{"the objects applied again without status", func(e *env) { e.restoreWorld(e.loseWorld()) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{syncPeriod: rebuildPeriod})
			e.buildEventGatewayWorld()
			ids, err := e.worldIDs()
			if err != nil {
				t.Fatal(err)
			}
			entities := e.sim.Count(e.orgID)
			tc.lose(e)
			e.sim.ResetCalls()
			e.startOperator()

			e.within(2, rebuildPeriod, "every object Programmed with its old ID", func() error { return e.sameIDs(ids) })
			e.step(rebuildPeriod) // a whole period's listings find nothing to write either
			if n := e.writes(); n != 0 {
				t.Fatalf("%d writes to Konnect while finding the entities again: %v", n, e.sim.Calls())
			}
			if n := e.sim.Count(e.orgID); n != entities {
				t.Fatalf("Konnect holds %d entities, it held %d: duplicates", n, entities)
			}
			for _, listed := range []string{"/listeners/{eventGatewayListenerId}/policies", "/cluster-policies", "/consume-policies", "/produce-policies"} {
				if e.calls("GET", listed) == 0 {
					t.Fatalf("%s was never listed: %v", listed, e.sim.Calls())
				}
			}
			var stdout, stderr strings.Builder
			status := diff.Run(e.ctx, diff.Options{
				Cluster: inventory.Cluster{Clientset: e.cs, Kube: e.kube}, Namespace: e.ns,
				Konnect: konnect.NewClientFactory(konnect.Options{RootCAs: e.sim.CAPool}), Token: testToken,
			}, &stdout, &stderr)
			if status != diff.ExitSame {
				t.Fatalf("kubectl konnect diff exits %d:\n%s%s", status, stdout.String(), stderr.String())
			}
		})
	}
}
