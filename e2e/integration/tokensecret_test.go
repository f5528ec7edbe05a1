package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/companions"
)

// tokenSecret creates a Secret holding token under the data key "token",
// with the given labels.
func (e *env) tokenSecret(name, token string, labels map[string]string) {
	e.t.Helper()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Data:       map[string][]byte{"token": []byte(token)},
	}
	if _, err := e.kube.CoreV1().Secrets(e.ns).Create(e.ctx, s, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

var tokenLabels = map[string]string{commonv1alpha1.LabelCredential: "konnect"}

// createAuthConfigFrom creates an auth configuration that reads its token
// from the Secret secretName, on serverURL ("" for the simulator).
func (e *env) createAuthConfigFrom(name, secretName, serverURL string) {
	e.t.Helper()
	if serverURL == "" {
		serverURL = e.sim.URL
	}
	_, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type:      konnectv1alpha1.KonnectAPIAuthTypeSecretRef,
			SecretRef: &corev1.SecretReference{Name: secretName},
			ServerURL: serverURL,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
}

// readyFromSecret is ready with the token in a labelled Secret.
func (e *env) readyFromSecret() string {
	e.t.Helper()
	e.tokenSecret("token", testToken, tokenLabels)
	e.createAuthConfigFrom("auth", "token", "")
	e.createControlPlane("cp", "auth")
	return e.programmedControlPlane("cp")
}

// protected reports whether the Secret carries the in-use finalizer; a
// missing Secret is an error.
func (e *env) protected(name string) (bool, error) {
	s, err := e.kube.CoreV1().Secrets(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	return slices.Contains(s.Finalizers, commonv1alpha1.FinalizerSecretInUse), nil
}

func (e *env) eventuallyProtected(name string, want bool) {
	e.t.Helper()
	e.eventually(fmt.Sprintf("Secret %s protected=%v", name, want), func() error {
		got, err := e.protected(name)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("protected=%v", got)
		}
		return nil
	})
}

func (e *env) eventuallyGone(what string, get func() error) {
	e.t.Helper()
	e.eventually(what+" gone", func() error {
		if err := get(); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (%w)", err)
		}
		return nil
	})
}

// TestTokenSecretIsKeptWhileAnAuthConfigurationReadsIt: the token Secret
// carries the in-use finalizer exactly while a configuration reads it: it
// follows a change of secretRef, survives its own deletion while in use,
// and is released when the configuration goes or the label is removed.
func TestTokenSecretIsKeptWhileAnAuthConfigurationReadsIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	secrets := e.kube.CoreV1().Secrets(e.ns)
	auths := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns)
	e.tokenSecret("first", testToken, tokenLabels)
	e.tokenSecret("second", testToken, tokenLabels)
	e.tokenSecret("unused", testToken, tokenLabels)
	e.createAuthConfigFrom("auth", "first", "")
	e.eventually("auth configuration valid", func() error {
		return conditionIs(e.authConfig("auth"), commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid)
	})
	e.eventuallyProtected("first", true)
	if p, err := e.protected("unused"); err != nil || p {
		t.Fatalf("a token Secret no configuration reads is protected (%v, %v)", p, err)
	}

	t.Run("the finalizer follows secretRef", func(t *testing.T) {
		e := e.with(t)
		ac := e.authConfig("auth")
		ac.Spec.SecretRef.Name = "second"
		if _, err := auths.Update(e.ctx, ac, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventuallyProtected("second", true)
		e.eventuallyProtected("first", false)
	})
	t.Run("a Secret in use outlives its deletion, with an Event saying why", func(t *testing.T) {
		e := e.with(t)
		if err := secrets.Delete(e.ctx, "second", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		ev := e.eventuallyEvent("Secret", "second", corev1.EventTypeNormal, companions.EventDeletionBlocked)
		if !strings.Contains(ev.Message, "KonnectAPIAuthConfiguration "+e.ns+"/auth") {
			t.Fatalf("Event %q does not name the configuration", ev.Message)
		}
		s, err := secrets.Get(e.ctx, "second", metav1.GetOptions{})
		if err != nil || s.DeletionTimestamp == nil {
			t.Fatalf("the Secret should be kept while being deleted: %v", err)
		}
		// Still read: a token Secret being deleted is a token all the same.
		e.stays("configuration stays valid", func() error {
			return conditionIs(e.authConfig("auth"), commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid)
		})
	})
	t.Run("deleting the configuration releases its Secret", func(t *testing.T) {
		e := e.with(t)
		if err := auths.Delete(e.ctx, "auth", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventuallyGone("configuration", func() error { _, err := auths.Get(e.ctx, "auth", metav1.GetOptions{}); return err })
		e.eventuallyGone("Secret being deleted", func() error { _, err := secrets.Get(e.ctx, "second", metav1.GetOptions{}); return err })
	})
	t.Run("removing the label releases the Secret and the configuration says why", func(t *testing.T) {
		e := e.with(t)
		e.createAuthConfigFrom("relabelled", "first", "")
		e.eventuallyProtected("first", true)
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, commonv1alpha1.LabelCredential)
		if _, err := secrets.Patch(e.ctx, "first", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventuallyProtected("first", false)
		e.eventually("missing label reported", func() error {
			ac := e.authConfig("relabelled")
			if err := conditionIs(ac, commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
				return err
			}
			if msg := meta.FindStatusCondition(ac.Status.Conditions, commonv1alpha1.ConditionAPIAuthValid).Message; !strings.Contains(msg, "lacks the label konghq.com/credential=konnect") {
				return fmt.Errorf("message %q", msg)
			}
			return nil
		})
	})
}

// TestNamespaceDeletionWithTheTokenInASecretFinishesAfterARestart: the
// namespace is deleted while the operator is down, so that the token
// Secret is deleted along with everything else and the operator that comes
// back has never read the token: the Secret's finalizer kept it, and
// everything is deleted from Konnect.
func TestNamespaceDeletionWithTheTokenInASecretFinishesAfterARestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.readyFromSecret()
	for i := range 3 {
		e.createService(fmt.Sprintf("svc-%d", i))
		e.createRoute(fmt.Sprintf("route-%d", i), withService(fmt.Sprintf("svc-%d", i)))
		e.createConsumer(fmt.Sprintf("consumer-%d", i))
	}
	e.eventually("everything Programmed", func() error {
		for i := range 3 {
			for _, obj := range []conditioned{e.service(fmt.Sprintf("svc-%d", i)), e.route(fmt.Sprintf("route-%d", i)), e.consumer(fmt.Sprintf("consumer-%d", i))} {
				if err := programmed(obj); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if n := len(e.entities(cpID, "services")); n != 3 {
		t.Fatalf("%d services in Konnect, want 3", n)
	}

	e.stopOperator()
	ctx := context.WithoutCancel(e.ctx)
	if err := e.kube.CoreV1().Namespaces().Delete(ctx, e.ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("the token Secret deleted but kept", func() error {
		s, err := e.kube.CoreV1().Secrets(e.ns).Get(ctx, "token", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if s.DeletionTimestamp == nil {
			return fmt.Errorf("not being deleted yet")
		}
		return nil
	})
	e.startOperator()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, patience, true, func(ctx context.Context) (bool, error) {
		_, err := e.kube.CoreV1().Namespaces().Get(ctx, e.ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("the namespace was not deleted: %v", err)
	}
	if n := e.sim.Count(e.orgID); n != 0 {
		t.Fatalf("%d entities left in Konnect", n)
	}
}

// TestAuthConfigurationSaysWhatIsWrongWithItsToken: each problem of a
// token or of the way to Konnect gets its own condition message and a
// Warning Event; only a problem with the token itself is Invalid.
func TestAuthConfigurationSaysWhatIsWrongWithItsToken(t *testing.T) {
	t.Parallel()
	closed := "https://127.0.0.1:1" // nothing listens there
	e := newEnv(t, envOptions{allowedHosts: []string{closed}})
	cases := []struct {
		name       string
		serverURL  string
		setUp      func(e *env, name string)
		status     metav1.ConditionStatus
		reason     string
		message    string
		eventType  string
		fix        func(e *env, name string)
		fixedValid bool
	}{
		{
			name:      "token with a trailing newline",
			setUp:     func(e *env, name string) { e.tokenSecret(name, testToken+"\n", tokenLabels) },
			status:    metav1.ConditionFalse,
			reason:    commonv1alpha1.ReasonInvalid,
			message:   "the token ends with a newline",
			eventType: companions.EventTokenInvalid,
			fix: func(e *env, name string) {
				s, err := e.kube.CoreV1().Secrets(e.ns).Get(e.ctx, name, metav1.GetOptions{})
				if err != nil {
					e.t.Fatal(err)
				}
				s.Data["token"] = []byte(testToken)
				if _, err := e.kube.CoreV1().Secrets(e.ns).Update(e.ctx, s, metav1.UpdateOptions{}); err != nil {
					e.t.Fatal(err)
				}
			},
			fixedValid: true,
		},
		{
			name:      "Secret without its label",
			setUp:     func(e *env, name string) { e.tokenSecret(name, testToken, nil) },
			status:    metav1.ConditionFalse,
			reason:    commonv1alpha1.ReasonInvalid,
			message:   "lacks the label konghq.com/credential=konnect",
			eventType: companions.EventTokenUnavailable,
			fix: func(e *env, name string) {
				patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"konnect"}}}`, commonv1alpha1.LabelCredential)
				if _, err := e.kube.CoreV1().Secrets(e.ns).Patch(e.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
					e.t.Fatal(err)
				}
			},
			fixedValid: true,
		},
		{
			name: "Secret labelled for a consumer credential",
			setUp: func(e *env, name string) {
				e.tokenSecret(name, testToken, map[string]string{commonv1alpha1.LabelCredential: "key-auth"})
			},
			status:    metav1.ConditionFalse,
			reason:    commonv1alpha1.ReasonInvalid,
			message:   "lacks the label konghq.com/credential=konnect (it has konghq.com/credential=key-auth)",
			eventType: companions.EventTokenUnavailable,
		},
		{
			name:       "missing Secret",
			setUp:      func(*env, string) {},
			status:     metav1.ConditionFalse,
			reason:     commonv1alpha1.ReasonInvalid,
			message:    "not found",
			eventType:  companions.EventTokenUnavailable,
			fix:        func(e *env, name string) { e.tokenSecret(name, testToken, tokenLabels) },
			fixedValid: true,
		},
		{
			name:      "a server the operator may not send tokens to",
			serverURL: "https://127.0.0.1:2",
			setUp:     func(e *env, name string) { e.tokenSecret(name, testToken, tokenLabels) },
			status:    metav1.ConditionFalse,
			reason:    commonv1alpha1.ReasonInvalid,
			message:   "https://127.0.0.1:2 is not among the Konnect API hosts this operator may send a token to",
			eventType: companions.EventServerNotAllowed,
		},
		{
			name:      "Konnect unreachable",
			serverURL: closed,
			setUp:     func(e *env, name string) { e.tokenSecret(name, testToken, tokenLabels) },
			status:    metav1.ConditionUnknown,
			reason:    commonv1alpha1.ReasonKonnectAPIOpFailed,
			message:   "could not ask Konnect at " + closed,
			eventType: companions.EventKonnectAPIOpFailed,
		},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.with(t)
			name := fmt.Sprintf("case-%d", i)
			c.setUp(e, name)
			e.createAuthConfigFrom(name, name, c.serverURL)
			e.eventually("the problem reported", func() error {
				ac := e.authConfig(name)
				if err := conditionIs(ac, commonv1alpha1.ConditionAPIAuthValid, c.status, c.reason); err != nil {
					return err
				}
				if msg := meta.FindStatusCondition(ac.Status.Conditions, commonv1alpha1.ConditionAPIAuthValid).Message; !strings.Contains(msg, c.message) {
					return fmt.Errorf("message %q does not say %q", msg, c.message)
				}
				return nil
			})
			ev := e.eventuallyEvent(kindAuthConfig, name, corev1.EventTypeWarning, c.eventType)
			if !strings.Contains(ev.Message, c.message) {
				t.Fatalf("Event %q does not say %q", ev.Message, c.message)
			}
			if strings.Contains(ev.Message, testToken) {
				t.Fatal("the Event shows the token")
			}
			if c.fix == nil {
				return
			}
			c.fix(e, name)
			e.eventually("valid once fixed", func() error {
				return conditionIs(e.authConfig(name), commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid)
			})
		})
	}
}

const kindAuthConfig = "KonnectAPIAuthConfiguration"

// TestDeletingAnAuthConfigurationInUseSaysWhoUsesIt: the configuration
// waits for its control plane and names it in a condition and an Event;
// it goes once the control plane is deleted.
func TestDeletingAnAuthConfigurationInUseSaysWhoUsesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.ready()
	auths := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns)
	if err := auths.Delete(e.ctx, "auth", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	user := "KonnectGatewayControlPlane " + e.ns + "/cp"
	e.eventually("DeletionBlocked names the control plane", func() error {
		ac := e.authConfig("auth")
		if err := conditionIs(ac, companions.ConditionDeletionBlocked, metav1.ConditionTrue, companions.ReasonInUse); err != nil {
			return err
		}
		if msg := meta.FindStatusCondition(ac.Status.Conditions, companions.ConditionDeletionBlocked).Message; !strings.Contains(msg, user) {
			return fmt.Errorf("message %q does not name %s", msg, user)
		}
		return nil
	})
	ev := e.eventuallyEvent(kindAuthConfig, "auth", corev1.EventTypeWarning, companions.EventDeletionBlocked)
	if !strings.Contains(ev.Message, user) {
		t.Fatalf("Event %q does not name %s", ev.Message, user)
	}
	if err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Delete(e.ctx, "cp", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventuallyGone("configuration", func() error { _, err := auths.Get(e.ctx, "auth", metav1.GetOptions{}); return err })
	if n := e.sim.Count(e.orgID); n != 0 {
		t.Fatalf("%d entities left in Konnect", n)
	}
}
