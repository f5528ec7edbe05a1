package integration

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// The tests in this file are what a user reads: condition messages that
// name the root cause and stay put, and one Event per cause.

// warnings returns the Warning Events about an object, by reason.
func (e *env) warnings(kind, name string) map[string]int {
	out := map[string]int{}
	for _, ev := range e.events(kind, name) {
		if ev.Type == corev1.EventTypeWarning {
			out[ev.Reason] += int(max(ev.Count, 1))
		}
	}
	return out
}

func conditionMessage(obj conditioned, conditionType string) string {
	if c := meta.FindStatusCondition(obj.GetConditions(), conditionType); c != nil {
		return c.Message
	}
	return ""
}

// TestBadTokenIsNamedByEveryObjectBelowIt: with a token Konnect rejects,
// a KongService two hops away from the auth configuration names it and the
// reason, and so does a KongRoute three hops away; the messages do not change
// with time, and each object gets one ReferencesNotReady Warning.
func TestBadTokenIsNamedByEveryObjectBelowIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	_, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "auth"},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type:      konnectv1alpha1.KonnectAPIAuthTypeToken,
			Token:     "kpat_" + strings.Repeat("x", 40), // unknown to the simulator
			ServerURL: e.sim.URL,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.createControlPlane("cp", "auth")
	e.createService("svc")
	e.createRoute("route", withService("svc"))

	var authMessage string
	e.eventually("the auth configuration reports the rejected token", func() error {
		ac, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Get(e.ctx, "auth", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := conditionIs(ac, commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionFalse, ""); err != nil {
			return err
		}
		authMessage = conditionMessage(ac, commonv1alpha1.ConditionAPIAuthValid)
		return nil
	})
	rootCause := fmt.Sprintf("KonnectAPIAuthConfiguration %s/auth is not valid: %s", e.ns, authMessage)
	wantService := fmt.Sprintf("KonnectGatewayControlPlane %s/cp is not Programmed: %s", e.ns, rootCause)
	wantRoute := fmt.Sprintf("KongService %s/svc is not Programmed: %s", e.ns, wantService)
	e.eventually("the service and the route name the auth configuration and why", func() error {
		if got := conditionMessage(e.service("svc"), commonv1alpha1.ConditionControlPlaneRefValid); got != wantService {
			return fmt.Errorf("service: %q, want %q", got, wantService)
		}
		if got := conditionMessage(e.route("route"), commonv1alpha1.ConditionKongServiceRefValid); got != wantRoute {
			return fmt.Errorf("route: %q, want %q", got, wantRoute)
		}
		return nil
	})

	// Past the grace period: one Warning each, and the messages stay.
	serviceVersion := e.service("svc").ResourceVersion
	e.step(controller.DefaultReferenceGracePeriod)
	oneWarningEach := func() error {
		for kind, name := range map[string]string{"KongService": "svc", "KongRoute": "route"} {
			if got := e.warnings(kind, name); got[controller.EventReferenceFailed] != 1 || len(got) != 1 {
				return fmt.Errorf("%s Warnings %v, want one %s", kind, got, controller.EventReferenceFailed)
			}
		}
		return nil
	}
	e.eventually("one Warning each", oneWarningEach)
	e.stays("one Warning each", oneWarningEach)
	svc := e.service("svc")
	if svc.ResourceVersion != serviceVersion {
		t.Errorf("the service was written again while nothing changed: %q", conditionMessage(svc, commonv1alpha1.ConditionProgrammed))
	}
	if got, want := conditionMessage(svc, commonv1alpha1.ConditionProgrammed), "ControlPlaneRefValid: "+wantService; got != want {
		t.Errorf("service Programmed message %q, want %q", got, want)
	}
}

// TestFirstApplyRecordsNoWarnings: objects created children first wait a
// moment for each other; that shows in their conditions, not as Warnings.
func TestFirstApplyRecordsNoWarnings(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.createRoute("route", withService("svc"))
	e.createService("svc")
	e.createControlPlane("cp", "auth")
	e.createAuthConfig("auth")
	e.eventually("the route Programmed", func() error { return programmed(e.route("route")) })
	// Past the grace period, when a Warning of a lasting problem would come.
	e.step(controller.DefaultReferenceGracePeriod)
	e.stays("no Warning", func() error {
		list, err := e.kube.CoreV1().Events(e.ns).List(e.ctx, metav1.ListOptions{FieldSelector: "type=Warning"})
		if err != nil {
			return err
		}
		for _, ev := range list.Items {
			return fmt.Errorf("Warning on %s %s: %s %s", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Reason, ev.Message)
		}
		return nil
	})
	if n := len(e.events("KongRoute", "route")); n == 0 {
		t.Fatal("no Events at all about the route: the check above proves nothing")
	}
}

// TestControlPlaneDeletedFirstTellsItsChildren: a KongService whose control
// plane is deleted first says that its entity went with it, once.
func TestControlPlaneDeletedFirstTellsItsChildren(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.ready()
	e.createService("svc")
	id := e.programmedService("svc").Status.Konnect.ID
	e.deleteControlPlane("cp")
	ev := e.eventuallyEvent("KongService", "svc", corev1.EventTypeWarning, controller.EventDeletedWithParent)
	if !strings.Contains(ev.Message, id) || !strings.Contains(ev.Message, e.ns+"/cp not found") {
		t.Fatalf("Event %q does not name the entity and its control plane", ev.Message)
	}
	e.stays("a second DeletedWithParent Event", func() error {
		if n := e.warnings("KongService", "svc")[controller.EventDeletedWithParent]; n != 1 {
			return fmt.Errorf("%d DeletedWithParent Events", n)
		}
		return nil
	})

	e.deleteServiceAndWait(t, "svc")
	e.eventuallyEvent("KongService", "svc", corev1.EventTypeNormal, controller.EventDeletedWithParent)
}

// deleteServiceAndWait deletes a KongService and waits until it is gone.
func (e *env) deleteServiceAndWait(t *testing.T, name string) {
	t.Helper()
	if err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("KongService "+name+" gone", func() error {
		if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, name, metav1.GetOptions{}); err == nil {
			return fmt.Errorf("still there")
		}
		return nil
	})
}
