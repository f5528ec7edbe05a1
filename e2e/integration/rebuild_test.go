package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/diff"
	"github.com/konnect-operator/konnect-operator/pkg/inventory"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// rebuildPeriod is the sync period of the disaster-recovery tests: each
// recovery must be over within two of them.
const rebuildPeriod = time.Hour

// withCloud adds the simulator's Dedicated Cloud Gateways to opts.
func withCloud(opts envOptions) envOptions {
	opts.cloud = cloudOptions(time.Second, time.Second).cloud
	return opts
}

// lostAndRebuilt builds the world, loses it and applies it again (change,
// when set, edits the manifests first; cpID is the control plane's Konnect
// ID). It returns the world's IDs and Konnect's entity count from before,
// with the operator stopped and the request log empty.
func (e *env) lostAndRebuilt(change func(cpID string, manifests []manifest)) (ids map[string]string, entities int, cpID string) {
	e.t.Helper()
	cpID = e.buildWorld(true)
	ids, err := e.worldIDs()
	if err != nil {
		e.t.Fatal(err)
	}
	entities = e.sim.Count(e.orgID)
	manifests := e.loseWorld()
	if change != nil {
		change(cpID, manifests)
	}
	e.sim.ResetCalls()
	e.restoreWorld(manifests)
	return ids, entities, cpID
}

// recovered checks what a recovery must reach: every object Programmed
// with its old entity's ID within two sync periods, and, over those
// periods and one more, no write to Konnect (no create, update or delete)
// and as many entities as before.
func (e *env) recovered(ids map[string]string, entities int) {
	e.t.Helper()
	e.within(2, rebuildPeriod, "every object Programmed with its old ID", func() error { return e.sameIDs(ids) })
	e.step(rebuildPeriod) // a whole period's listings find nothing to write either
	if n := e.writes(); n != 0 {
		e.t.Fatalf("%d writes to Konnect while taking the entities back: %v", n, e.sim.Calls())
	}
	if n := e.sim.Count(e.orgID); n != entities {
		e.t.Fatalf("Konnect holds %d entities, it held %d: duplicates", n, entities)
	}
	if e.listCalls("core-entities/services") == 0 {
		e.t.Fatalf("the services were never listed: %v", e.sim.Calls())
	}
	// The check a user runs: kubectl konnect diff finds nothing.
	var stdout, stderr strings.Builder
	status := diff.Run(e.ctx, diff.Options{
		Cluster: inventory.Cluster{Clientset: e.cs, Kube: e.kube}, Namespace: e.ns,
		Konnect: konnect.NewClientFactory(konnect.Options{RootCAs: e.sim.CAPool}), Token: testToken,
	}, &stdout, &stderr)
	if status != diff.ExitSame {
		e.t.Fatalf("kubectl konnect diff exits %d:\n%s%s", status, stdout.String(), stderr.String())
	}
}

// stillWritten checks that a taken-back object is the operator's as any
// other: a change of its spec reaches its entity.
func (e *env) stillWritten(cpID, serviceID string) {
	e.t.Helper()
	e.updateService("svc-unnamed", func(s *configurationv1alpha1.KongService) { s.Spec.Port = 8081 })
	e.eventually("the change written to the service taken back", func() error {
		ent, ok := e.entity(cpID, "services", serviceID)
		if !ok || fmt.Sprint(ent["port"]) != "8081" {
			return fmt.Errorf("service %s: %v", serviceID, ent)
		}
		return nil
	})
}

// TestRebuildWithTheSameIdentityTakesEverythingBack: a cluster rebuilt
// from Git, its operator given the old cluster's identity, takes back every
// entity, named or not, without a write and without a duplicate.
func TestRebuildWithTheSameIdentityTakesEverythingBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withCloud(envOptions{syncPeriod: rebuildPeriod, clusterIdentity: "prod-eu"}))
	ids, entities, cpID := e.lostAndRebuilt(nil)
	e.startOperator()
	e.recovered(ids, entities)
	e.eventuallyEvent("KongService", "svc-unnamed", corev1.EventTypeNormal, controller.EventTookBack)
	e.stillWritten(cpID, ids["kongservices/svc-unnamed"])
}

// TestRestoreWithoutStatusTakesEverythingBack: objects restored from a
// backup into the same cluster (its default identity), with their labels
// and annotations but neither status nor UIDs, take their entities back.
func TestRestoreWithoutStatusTakesEverythingBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withCloud(envOptions{syncPeriod: rebuildPeriod}))
	ids, entities, _ := e.lostAndRebuilt(func(_ string, manifests []manifest) {
		for _, m := range manifests {
			// What a backup keeps besides the spec: annotations, labels.
			annotations := m.obj.GetAnnotations()
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations["backup.example.com/taken"] = "nightly"
			m.obj.SetAnnotations(annotations)
		}
	})
	e.startOperator()
	e.recovered(ids, entities)
}

// TestRebuildWithANewIdentityNamesTheOwnerUntilItIsGiven: a rebuilt
// cluster whose operator has its new default identity leaves the old
// cluster's entities alone, every object saying which cluster owns them
// and how to take them back; started with the old identity, it takes them
// back as if it had had it from the start.
func TestRebuildWithANewIdentityNamesTheOwnerUntilItIsGiven(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withCloud(envOptions{syncPeriod: rebuildPeriod, clusterIdentity: "prod-eu"}))
	ids, entities, _ := e.lostAndRebuilt(nil)
	e.opts.clusterIdentity = "prod-eu-rebuilt"
	e.startOperator()
	e.within(2, rebuildPeriod, "every object naming the cluster that owns its entity", func() error {
		return e.namingTheOwner("prod-eu")
	})
	e.stays("nothing written meanwhile", func() error {
		if n := e.writes(); n != 0 {
			return fmt.Errorf("%d writes: %v", n, e.sim.Calls())
		}
		return e.namingTheOwner("prod-eu")
	})
	cp := e.controlPlane("cp")
	if msg := conditionMessage(cp, commonv1alpha1.ConditionProgrammed); !strings.Contains(msg, "--cluster-identity=prod-eu") {
		t.Fatalf("the control plane does not say how to take its entity back: %q", msg)
	}

	// The way out the condition names.
	e.stopOperator()
	e.opts.clusterIdentity = "prod-eu"
	e.startOperator()
	e.recovered(ids, entities)
}

// namingTheOwner checks that every object of the world that stands for an
// entity in the control plane reports Programmed=False naming the cluster
// that owns it. The cloud gateways' networks and transit gateways carry no
// identity in Konnect: they are found by their names and settings, and
// taken back whatever the cluster.
func (e *env) namingTheOwner(owner string) error {
	for _, o := range e.worldObjects() {
		if !o.standsForEntity() || o.gvr.Resource == "konnectcloudgatewaynetworks" || o.gvr.Resource == "konnectcloudgatewaytransitgateways" {
			continue
		}
		c := programmedConditionOf(o.obj)
		if c == nil || c["status"] != "False" || !strings.Contains(fmt.Sprint(c["message"]), "cluster "+owner) {
			return fmt.Errorf("%s does not name cluster %s: %v", o.key(), owner, c)
		}
	}
	return nil
}

// TestMirroredControlPlaneTakesItsEntitiesBack: applied again with the
// control plane mirrored by ID (the way to use a control plane the cluster
// does not own), every object in it takes its entity back; none is
// created a second time, unnamed services and routes included.
func TestMirroredControlPlaneTakesItsEntitiesBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withCloud(envOptions{syncPeriod: rebuildPeriod, clusterIdentity: "prod-eu"}))
	ids, entities, cpID := e.lostAndRebuilt(func(cpID string, manifests []manifest) {
		for _, m := range manifests {
			if m.gvr.Resource != "konnectgatewaycontrolplanes" {
				continue
			}
			unstructured.RemoveNestedField(m.obj.Object, "spec", "createControlPlaneRequest")
			if err := unstructured.SetNestedField(m.obj.Object, string(konnectv1alpha2.ControlPlaneSourceMirror), "spec", "source"); err != nil {
				t.Fatal(err)
			}
			if err := unstructured.SetNestedField(m.obj.Object, cpID, "spec", "mirror", "konnect", "id"); err != nil {
				t.Fatal(err)
			}
		}
	})
	e.startOperator()
	e.recovered(ids, entities)
	if err := conditionIs(e.controlPlane("cp"), commonv1alpha1.ConditionMirrored, metav1.ConditionTrue, ""); err != nil {
		t.Fatal(err)
	}

	// What is in the control plane goes with its objects; the control
	// plane is not the cluster's and stays, until the test removes it, and
	// so do the grants that let objects use it (the cluster-scoped vault):
	// a delete that uses a control plane needs its grant as much as a sync.
	e.deleteWorldBut("konnectgatewaycontrolplanes", "konnectapiauthconfigurations", "kongreferencegrants")
	for _, collection := range []string{"services", "routes", "consumers", "plugins", "upstreams", "certificates"} {
		if left := e.entities(cpID, collection); len(left) != 0 {
			t.Errorf("%d %s left in the mirrored control plane", len(left), collection)
		}
	}
	e.removeFromKonnect(cpID)
}

// deleteWorldBut deletes the world's objects but those of the named
// resources, as a user does, and waits until they are gone.
func (e *env) deleteWorldBut(keep ...string) {
	e.t.Helper()
	dyn := dynamic.NewForConfigOrDie(e.restConfig())
	for _, o := range e.worldObjects() {
		if slices.Contains(keep, o.gvr.Resource) {
			continue
		}
		err := dyn.Resource(o.gvr).Namespace(o.obj.GetNamespace()).Delete(e.ctx, o.obj.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			e.t.Fatal(err)
		}
	}
	e.eventually("the objects deleted", func() error {
		for _, o := range e.worldObjects() {
			if !slices.Contains(keep, o.gvr.Resource) {
				return fmt.Errorf("%s is still there", o.key())
			}
		}
		return nil
	})
}
