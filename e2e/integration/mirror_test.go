package integration

import (
	"context"
	"fmt"
	"github.com/Kong/sdk-konnect-go/models/components"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// existingControlPlane creates a control plane in Konnect behind the
// operator's back and returns its ID.
func (e *env) existingControlPlane(name string) string {
	e.t.Helper()
	cp, err := e.konnect().ControlPlanes.CreateControlPlane(e.ctx, components.CreateControlPlaneRequest{Name: e.ns + "-" + name})
	if err != nil {
		e.t.Fatal(err)
	}
	return cp.GetControlPlane().GetID()
}

// createMirror creates a KonnectGatewayControlPlane mirroring id.
func (e *env) createMirror(name, id string) {
	e.t.Helper()
	source := konnectv1alpha2.ControlPlaneSourceMirror
	cp := &konnectv1alpha2.KonnectGatewayControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha2.KonnectGatewayControlPlaneSpec{
			Source:  &source,
			Mirror:  &konnectv1alpha2.MirrorSpec{Konnect: konnectv1alpha2.MirrorKonnect{ID: id}},
			Konnect: &konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: "auth"}},
		},
	}
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Create(e.ctx, cp, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) deleteControlPlane(name string) {
	e.t.Helper()
	if err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) controlPlaneGone(name string) error {
	_, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("control plane %s still exists: %w", name, err)
	}
	return nil
}

// controlPlaneWrites counts the requests that would change a control plane.
func (e *env) controlPlaneWrites() int {
	return e.sim.CallCount("POST", "/v2/control-planes") + e.sim.CallCount("PATCH", "/v2/control-planes/{controlPlaneId}") +
		e.sim.CallCount("DELETE", "/v2/control-planes/{controlPlaneId}") + e.calls("PUT", "/group-memberships") + e.calls("POST", "/group-memberships")
}

func TestMirroredControlPlane(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period})
	e.createAuthConfig("auth")
	mirroredID := e.existingControlPlane("existing")
	writesBefore := e.controlPlaneWrites()

	e.createMirror("mirror", mirroredID)
	var mirror *konnectv1alpha2.KonnectGatewayControlPlane
	e.eventually("mirror Programmed", func() error {
		mirror = e.controlPlane("mirror")
		if err := conditionIs(mirror, commonv1alpha1.ConditionMirrored, metav1.ConditionTrue, commonv1alpha1.ReasonMirrored); err != nil {
			return err
		}
		return programmed(mirror)
	})
	t.Run("the status reports the mirrored control plane", func(t *testing.T) {
		e := e.with(t)
		if mirror.Status.ID != mirroredID || mirror.Status.ClusterType != konnectv1alpha2.ClusterTypeControlPlane {
			t.Fatalf("status id %q cluster type %q, want %q %s", mirror.Status.ID, mirror.Status.ClusterType, mirroredID, konnectv1alpha2.ClusterTypeControlPlane)
		}
		if ep := mirror.Status.KonnectEndpoints; ep == nil || ep.ControlPlane == "" || ep.Telemetry == "" {
			t.Fatalf("endpoints not recorded: %+v", ep)
		}
		if mirror.Status.OrgID != e.orgID {
			t.Fatalf("organization %q, want %q", mirror.Status.OrgID, e.orgID)
		}
		e.eventuallyEvent("KonnectGatewayControlPlane", "mirror", corev1.EventTypeNormal, controller.EventBorrowed)
	})

	t.Run("children are written into the mirrored control plane", func(t *testing.T) {
		e := e.with(t)
		e.createService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = cpRef("mirror") })
		svc := e.programmedService("svc")
		if svc.Status.Konnect.ControlPlaneID != mirroredID {
			t.Fatalf("service placed in %q, want %q", svc.Status.Konnect.ControlPlaneID, mirroredID)
		}
		if _, ok := e.entity(mirroredID, "services", svc.Status.Konnect.ID); !ok {
			t.Fatal("the service is not in the mirrored control plane")
		}
	})

	t.Run("the mirrored control plane is read every sync period and never written", func(t *testing.T) {
		e := e.with(t)
		reads := e.sim.CallCount("GET", "/v2/control-planes")
		e.step(period)
		e.step(period)
		if got := e.sim.CallCount("GET", "/v2/control-planes"); got <= reads {
			t.Fatalf("the mirror was not read again within two sync periods (%d reads before, %d after)", reads, got)
		}
		if got := e.controlPlaneWrites(); got != writesBefore {
			t.Fatalf("the operator wrote %d times to control planes", got-writesBefore)
		}
	})

	t.Run("a missing control plane is reported and not created", func(t *testing.T) {
		e := e.with(t)
		e.createMirror("ghost", "0000cccc-0000-4000-8000-000000000001")
		e.eventually("mirror failure reported", func() error {
			ghost := e.controlPlane("ghost")
			if err := conditionIs(ghost, commonv1alpha1.ConditionMirrored, metav1.ConditionFalse, entities.ReasonMirrorFailed); err != nil {
				return err
			}
			return conditionIs(ghost, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, "")
		})
		if got := e.controlPlaneWrites(); got != writesBefore {
			t.Fatalf("the operator wrote %d times to control planes", got-writesBefore)
		}
		e.deleteControlPlane("ghost")
		e.eventually("ghost mirror deleted", func() error { return e.controlPlaneGone("ghost") })
	})

	t.Run("a deleted mirror waits for its children, then leaves Konnect alone", func(t *testing.T) {
		e := e.with(t)
		e.deleteControlPlane("mirror")
		e.eventuallyEvent("KonnectGatewayControlPlane", "mirror", corev1.EventTypeNormal, controller.EventWaitingForDependents)
		e.eventually("the service sees its control plane going", func() error {
			return conditionIs(e.service("svc"), commonv1alpha1.ConditionControlPlaneRefValid, metav1.ConditionFalse, "")
		})
		if err := e.controlPlaneGone("mirror"); err == nil {
			t.Fatal("the mirror went while a service still had an entity in it")
		}
		if err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(e.ctx, "svc", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("mirror released", func() error { return e.controlPlaneGone("mirror") })
		if n := len(e.entities(mirroredID, "services")); n != 0 {
			t.Fatalf("%d services left in the mirrored control plane", n)
		}
		if _, err := e.konnect().ControlPlanes.GetControlPlane(e.ctx, mirroredID); err != nil {
			t.Fatalf("the mirrored control plane should still exist: %v", err)
		}
		if got := e.controlPlaneWrites(); got != writesBefore {
			t.Fatalf("the operator wrote %d times to control planes", got-writesBefore)
		}
	})

	e.removeFromKonnect(mirroredID)
}

func TestDeletingTheNamespaceOfAMirrorCleansItsChildren(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.createAuthConfig("auth")
	mirroredID := e.existingControlPlane("existing")
	e.createMirror("mirror", mirroredID)
	e.createService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = cpRef("mirror") })
	e.createRoute("route", withService("svc"))
	consumer := &configurationv1.KongConsumer{
		ObjectMeta: metav1.ObjectMeta{Name: "consumer"},
		Username:   "consumer",
		Spec:       configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef("mirror")},
	}
	if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, consumer, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("children Programmed", func() error {
		for _, obj := range []conditioned{e.service("svc"), e.route("route"), e.consumer("consumer")} {
			if err := programmed(obj); err != nil {
				return err
			}
		}
		return nil
	})

	e.deleteNamespaceNow()
	for _, collection := range []string{"services", "routes", "consumers"} {
		if n := len(e.entities(mirroredID, collection)); n != 0 {
			t.Errorf("%d %s left in the mirrored control plane", n, collection)
		}
	}
	if _, err := e.konnect().ControlPlanes.GetControlPlane(e.ctx, mirroredID); err != nil {
		t.Fatalf("the mirrored control plane should still exist: %v", err)
	}
	e.removeFromKonnect(mirroredID)
}

// removeFromKonnect deletes a control plane the test created behind the
// operator's back, so that the final check finds Konnect empty.
func (e *env) removeFromKonnect(id string) {
	e.t.Helper()
	if _, err := e.konnect().ControlPlanes.DeleteControlPlane(e.ctx, id); err != nil {
		e.t.Fatal(err)
	}
}

// deleteNamespaceNow deletes the test's namespace and waits until it is
// gone, without checking Konnect.
func (e *env) deleteNamespaceNow() {
	e.t.Helper()
	if err := e.kube.CoreV1().Namespaces().Delete(e.ctx, e.ns, metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(e.ctx, 100*time.Millisecond, patience, true, func(context.Context) (bool, error) {
		_, err := e.kube.CoreV1().Namespaces().Get(e.ctx, e.ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		e.t.Fatalf("namespace %s was not deleted: %v", e.ns, err)
	}
}
