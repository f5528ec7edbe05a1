package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// A tenant who may write only in its namespace, and whose auth
// configuration names a server of its own, tries to have the operator send
// it another namespace's token: by naming that namespace's Secret, and
// then by syncing, deleting its control plane and deleting its auth
// configuration. Its server (a simulator of its own, which records the
// Authorization header of every request it receives) never sees that
// token; the deletion waits and says how to go on, and goes once the
// tenant's configuration is its own again.

// updateAuthConfig changes an auth configuration of the env's namespace.
func (e *env) updateAuthConfig(name string, change func(*konnectv1alpha1.KonnectAPIAuthConfiguration)) {
	e.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ac, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(ac)
		_, err = e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Update(e.ctx, ac, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// requestsWith counts the requests a simulator received that carried
// token (judged by its hash: the log holds no token).
func requestsWith(sim *konnectsim.TestServer, token string) int {
	want := konnectsim.CredentialOf(token)
	n := 0
	for _, r := range sim.Requests() {
		if r.Credential == want {
			n++
		}
	}
	return n
}

func TestAnotherNamespacesTokenNeverReachesATenantsServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{otherNamespace: true, neighbour: true})
	victim, tenant := e, e.in(e.other)
	// The victim: its token in a Secret of its namespace, on Konnect.
	victim.readyFromSecret()
	// The tenant: its own token, on its own server.
	tenant.tokenSecret("own", neighbourToken, tokenLabels)
	tenant.createAuthConfigFrom("auth", "own", e.neighbour.URL)
	tenant.createControlPlane("cp", "auth")
	tenant.eventually("the tenant's control plane Programmed on its server", func() error { return programmed(tenant.controlPlane("cp")) })
	stolen := func() error {
		if n := requestsWith(e.neighbour, testToken); n > 0 {
			return fmt.Errorf("the tenant's server received the victim's token %d times", n)
		}
		return nil
	}

	// The tenant names the victim's Secret, without a grant.
	tenant.updateAuthConfig("auth", func(ac *konnectv1alpha1.KonnectAPIAuthConfiguration) {
		ac.Spec.SecretRef = &corev1.SecretReference{Namespace: victim.ns, Name: "token"}
	})
	tenant.eventually("the tenant's configuration refused", func() error {
		ac := tenant.authConfig("auth")
		if err := conditionIs(ac, commonv1alpha1.ConditionResolvedRefs, metav1.ConditionFalse, commonv1alpha1.ReasonRefNotPermitted); err != nil {
			return err
		}
		return conditionIs(ac, commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
	})
	// Syncs: the control plane reconciled, and every periodic listing due.
	tenant.eventually("the tenant's control plane refuses its configuration", func() error {
		return conditionIs(tenant.controlPlane("cp"), commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
	})
	tenant.step(e.opts.syncPeriod)
	tenant.step(e.opts.syncPeriod)
	if err := stolen(); err != nil {
		t.Fatalf("after the syncs: %v", err)
	}

	// The tenant deletes its control plane: the delete waits, saying why.
	if err := tenant.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(tenant.ns).Delete(e.ctx, "cp", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	tenant.eventually("the deletion waits and says how to go on", func() error {
		c := meta.FindStatusCondition(tenant.controlPlane("cp").Status.Conditions, commonv1alpha1.ConditionProgrammed)
		if c == nil || c.Reason != controller.ReasonCannotDelete {
			return fmt.Errorf("Programmed %+v, want reason %s", c, controller.ReasonCannotDelete)
		}
		if !strings.Contains(c.Message, "nothing is sent") || !strings.Contains(c.Message, commonv1alpha1.AnnotationDeletionPolicy+"=orphan") {
			return fmt.Errorf("the message %q does not say what happens and how to go on", c.Message)
		}
		return nil
	})
	tenant.eventuallyEvent("KonnectGatewayControlPlane", "cp", corev1.EventTypeWarning, controller.ReasonCannotDelete)
	// And its auth configuration.
	if err := tenant.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(tenant.ns).Delete(e.ctx, "auth", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	tenant.stays("the control plane and the configuration wait, and nothing reaches the tenant's server", func() error {
		if cp := tenant.controlPlane("cp"); !slices.Contains(cp.Finalizers, commonv1alpha1.FinalizerKonnectCleanup) {
			return fmt.Errorf("the control plane lost its cleanup finalizer")
		}
		if _, err := tenant.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(tenant.ns).Get(e.ctx, "auth", metav1.GetOptions{}); err != nil {
			return fmt.Errorf("the configuration its control plane waits for: %w", err)
		}
		return stolen()
	})
	if n := e.neighbour.CallCount("DELETE", "/v2/control-planes/{controlPlaneId}"); n != 0 {
		t.Fatalf("%d deletes reached the tenant's server", n)
	}

	// The tenant's own Secret again: the deletion goes on with its own
	// token, and everything goes.
	tenant.updateAuthConfig("auth", func(ac *konnectv1alpha1.KonnectAPIAuthConfiguration) {
		ac.Spec.SecretRef = &corev1.SecretReference{Name: "own"}
	})
	tenant.eventually("the control plane and its configuration gone", func() error {
		if _, err := tenant.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(tenant.ns).Get(e.ctx, "cp", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("control plane: %w", err)
		}
		if _, err := tenant.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(tenant.ns).Get(e.ctx, "auth", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("auth configuration: %w", err)
		}
		return nil
	})
	if n := e.neighbour.CallCount("DELETE", "/v2/control-planes/{controlPlaneId}"); n != 1 {
		t.Fatalf("%d deletes of the control plane on the tenant's server, want 1", n)
	}
	if err := stolen(); err != nil {
		t.Fatal(err)
	}
	if requestsWith(e.neighbour, neighbourToken) == 0 {
		t.Fatal("the tenant's server recorded no request with the tenant's own token: it records nothing")
	}
}

// A grant that allowed a control plane of another namespace to use an auth
// configuration is revoked between two reconciles: the next one sends
// nothing with the token, for a change or a deletion, until the grant is
// back; then the deletion finishes and leaves nothing.
func TestARevokedGrantStopsTheUseOfTheTokenAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{otherNamespace: true})
	home, tenant := e, e.in(e.other)
	home.createAuthConfig("shared")
	home.createGrant("allow", kindCP, tenant.ns, kindAuth, "shared")
	cp := tenant.controlPlaneObject("cp", "shared")
	cp.Spec.Konnect.AuthRef.Namespace = &home.ns
	if _, err := tenant.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(tenant.ns).Create(e.ctx, cp, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tenant.eventually("the control plane Programmed under the grant", func() error { return programmed(tenant.controlPlane("cp")) })
	tenant.createService("svc")
	tenant.programmedService("svc")
	e.settle()
	before := len(e.sim.Requests())

	home.deleteGrant("allow")
	tenant.eventually("the control plane refuses the reference", func() error {
		return conditionIs(tenant.controlPlane("cp"), commonv1alpha1.ConditionAPIAuthResolvedRef, metav1.ConditionFalse, commonv1alpha1.ReasonRefNotPermitted)
	})
	// A change to write, periodic work, and a deletion: none is sent.
	tenant.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Tags = append(s.Spec.Tags, "changed") })
	tenant.step(e.opts.syncPeriod)
	if err := tenant.cs.ConfigurationV1alpha1().KongServices(tenant.ns).Delete(e.ctx, "svc", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	tenant.eventuallyEvent("KongService", "svc", corev1.EventTypeWarning, controller.ReasonCannotDelete)
	tenant.stays("nothing sent for the tenant once the grant is gone", func() error {
		for _, r := range e.sim.Requests()[before:] {
			// The configuration's own periodic check is its namespace's.
			if r.Method == "GET" && r.Path == "/v3/organizations/me" {
				continue
			}
			return fmt.Errorf("%s %s after the grant was revoked", r.Method, r.Path)
		}
		return nil
	})

	// The grant restored: the deletion finishes, nothing is left.
	home.createGrant("allow", kindCP, tenant.ns, kindAuth, "shared")
	tenant.eventually("the service deleted", func() error {
		if _, err := tenant.cs.ConfigurationV1alpha1().KongServices(tenant.ns).Get(e.ctx, "svc", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %w", err)
		}
		return nil
	})
	if n := len(e.entities(tenant.controlPlane("cp").Status.ID, "services")); n != 0 {
		t.Fatalf("%d services left in Konnect", n)
	}
	// The control plane goes while the grant lets it use the token.
	if err := tenant.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(tenant.ns).Delete(e.ctx, "cp", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	tenant.eventually("the control plane deleted", func() error {
		if _, err := tenant.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(tenant.ns).Get(e.ctx, "cp", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %w", err)
		}
		return nil
	})
}
