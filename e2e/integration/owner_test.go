package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// clusterIdentity is the identity the test's operator writes on entities.
func (e *env) clusterIdentity() string {
	e.t.Helper()
	if e.opts.clusterIdentity != "" {
		return e.opts.clusterIdentity
	}
	ns, err := e.kube.CoreV1().Namespaces().Get(e.ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return string(ns.UID)
}

// clusterLabel is the k8s-cluster label of a control plane in Konnect.
func (e *env) clusterLabel(cpID string) any {
	labels, _ := e.controlPlaneEntity(cpID)["labels"].(map[string]any)
	return labels[controller.TagKeyCluster]
}

// serviceWrites counts the requests that create, write or delete services.
func (e *env) serviceWrites() int {
	return e.calls("POST", "core-entities/services") + e.calls("PUT", serviceUpserts) + e.calls("PATCH", "core-entities/services") +
		e.calls("DELETE", "core-entities/services")
}

// ownedByOther checks that obj reports Programmed=False because the
// operator of cluster owner owns its entity.
func ownedByOther(obj conditioned, owner string) error {
	if err := conditionIs(obj, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonOwnedByOtherCluster); err != nil {
		return err
	}
	if msg := conditionMessage(obj, commonv1alpha1.ConditionProgrammed); !strings.Contains(msg, "cluster "+owner) {
		return fmt.Errorf("%s: Programmed says %q, which does not name cluster %s", obj.GetName(), msg, owner)
	}
	return nil
}

// TestOneOwnerPerEntity: the operator of cluster-a writes its identity on
// what it creates; the operator of cluster-b, started on the same objects
// and the same Konnect, reports those entities as another cluster's,
// writes none of their changes, and leaves them in Konnect when their
// objects are deleted. A mirror of cluster-a's control plane stays usable,
// and spec.adopt with mode override takes an entity over deliberately.
func TestOneOwnerPerEntity(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	// cluster-a's control plane stays in Konnect on purpose.
	e := newEnv(t, envOptions{syncPeriod: period, clusterIdentity: "cluster-a", keepNamespace: true})
	cpID := e.ready()
	// The service lives in cluster-a's control plane through a mirror, which
	// cluster-b's operator reads without owning it.
	e.createMirror("mirror", cpID)
	onMirror := func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = cpRef("mirror") }
	e.createService("svc", onMirror)
	svcID := e.programmedService("svc").Status.Konnect.ID
	if got := e.clusterLabel(cpID); got != "cluster-a" {
		t.Fatalf("the control plane's label %s is %v, want cluster-a", controller.TagKeyCluster, got)
	}
	if tags := tagsOf(e.serviceEntity(cpID, svcID)); !slices.Contains(tags, "k8s-cluster:cluster-a") {
		t.Fatalf("the service's tags %v do not name cluster-a", tags)
	}
	e.settle()
	e.stopOperator()

	e.opts.clusterIdentity = "cluster-b"
	e.startOperator()
	e.step(period) // every listing, and every periodic read, has run
	e.eventually("cluster-a's entities reported as such", func() error {
		if err := ownedByOther(e.controlPlane("cp"), "cluster-a"); err != nil {
			return err
		}
		if err := ownedByOther(e.service("svc"), "cluster-a"); err != nil {
			return err
		}
		return programmed(e.controlPlane("mirror"))
	})
	e.eventuallyEvent("KongService", "svc", corev1.EventTypeWarning, controller.EventForeign)

	t.Run("a change of the spec is not written", func(t *testing.T) {
		e := e.with(t)
		e.settle()
		e.sim.ResetCalls()
		before := e.serviceEntity(cpID, svcID)
		e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Port = 8080 })
		// Seen first: the operator may not have had the change yet when it
		// is next idle.
		e.eventually("the change reported as another cluster's", func() error {
			return ownedByOther(e.service("svc"), "cluster-a")
		})
		e.stays("cluster-a's service left as it is", func() error {
			if n := e.serviceWrites(); n != 0 {
				return fmt.Errorf("%d service writes: %v", n, e.sim.Calls())
			}
			if after := e.serviceEntity(cpID, svcID); fmt.Sprint(after) != fmt.Sprint(before) {
				return fmt.Errorf("the entity changed:\n before %v\n after  %v", before, after)
			}
			return ownedByOther(e.service("svc"), "cluster-a")
		})
	})

	t.Run("deleting the objects leaves the entities", func(t *testing.T) {
		e := e.with(t)
		e.sim.ResetCalls()
		e.deleteService("svc")
		e.deleteControlPlane("cp")
		e.eventually("the control plane object gone", func() error { return e.controlPlaneGone("cp") })
		for kind, name := range map[string]string{"KongService": "svc", "KonnectGatewayControlPlane": "cp"} {
			ev := e.eventuallyEvent(kind, name, corev1.EventTypeNormal, controller.EventOrphaned)
			if !strings.Contains(ev.Message, "cluster cluster-a") {
				t.Errorf("%s %s: the Event says %q, which does not name cluster-a", kind, name, ev.Message)
			}
		}
		if tags := tagsOf(e.serviceEntity(cpID, svcID)); !slices.Contains(tags, "k8s-cluster:cluster-a") {
			t.Errorf("the service left behind was changed: tags %v", tags)
		}
		if got := e.clusterLabel(cpID); got != "cluster-a" {
			t.Errorf("the control plane left behind was changed: label %v", got)
		}
		if n := e.serviceWrites() + e.controlPlaneWrites(); n != 0 {
			t.Errorf("%d writes to Konnect: %v", n, e.sim.Calls())
		}
	})

	t.Run("spec.adopt override takes the entity over", func(t *testing.T) {
		e := e.with(t)
		e.createService("taken", onMirror, adopt(svcID, commonv1alpha1.AdoptModeOverride))
		taken := e.programmedService("taken")
		if taken.Status.Konnect.ID != svcID {
			t.Fatalf("adopted %q, want %q", taken.Status.Konnect.ID, svcID)
		}
		tags := tagsOf(e.serviceEntity(cpID, svcID))
		if !slices.Contains(tags, "k8s-cluster:cluster-b") || slices.Contains(tags, "k8s-cluster:cluster-a") || !slices.Contains(tags, controller.UIDTag(taken)) {
			t.Fatalf("after the takeover the tags are %v; want cluster-b's and the new object's UID", tags)
		}
		// cluster-b's now: a change of the spec is written.
		e.updateService("taken", func(s *configurationv1alpha1.KongService) { s.Spec.Port = 8081 })
		e.eventually("the change written", func() error {
			if port := e.serviceEntity(cpID, svcID)["port"]; fmt.Sprint(port) != "8081" {
				return fmt.Errorf("port %v", port)
			}
			return programmed(e.service("taken"))
		})
	})
}
