package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/companions"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// An auth configuration naming a server that is not among the operator's
// allowed hosts is refused, says which flag allows it, and nothing at all
// is sent there: not its token, not another's.
func TestATokenIsNeverSentToAHostNotAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	// A server that would answer, and record what it receives, but that
	// the operator is not told of.
	outsider := konnectsim.Start(t, konnectsim.Options{Tokens: map[string]string{testToken: "outsider"}})
	_, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "outside"},
		Spec:       konnectv1alpha1.KonnectAPIAuthConfigurationSpec{Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: testToken, ServerURL: outsider.URL},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.createControlPlane("cp", "outside")
	e.eventually("the configuration refused, Stalled, naming the flag", func() error {
		ac := e.authConfig("outside")
		if err := conditionIs(ac, commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
			return err
		}
		if msg := meta.FindStatusCondition(ac.Status.Conditions, commonv1alpha1.ConditionAPIAuthValid).Message; !strings.Contains(msg, "--konnect-allowed-hosts") {
			return fmt.Errorf("the message %q does not name the flag", msg)
		}
		return conditionIs(ac, commonv1alpha1.ConditionStalled, metav1.ConditionTrue, "")
	})
	e.eventuallyEvent(kindAuthConfig, "outside", corev1.EventTypeWarning, companions.EventServerNotAllowed)
	e.stays("nothing reaches the host not allowed", func() error {
		if n := len(outsider.Requests()); n != 0 {
			return fmt.Errorf("%d requests reached it", n)
		}
		if programmed(e.controlPlane("cp")) == nil {
			return fmt.Errorf("the control plane is Programmed")
		}
		return nil
	})
}

// Konnect quotes the key of a key-auth credential that is taken; the key
// never reaches the credential's conditions, its Events or the logs.
func TestKonnectsEchoOfACredentialKeyStaysPrivate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{bufferLogs: true})
	cpID := e.ready()
	const key = "key-that-must-stay-private-0123456789"
	e.createConsumer("alice")
	e.createConsumer("bob")
	e.programmedConsumer("alice")
	bob := e.programmedConsumer("bob")
	apiKey := func(name, consumer string) {
		t.Helper()
		k := &configurationv1alpha1.KongCredentialAPIKey{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: configurationv1alpha1.KongCredentialAPIKeySpec{
				ConsumerRef:                 corev1.LocalObjectReference{Name: consumer},
				KongCredentialAPIKeyAPISpec: configurationv1alpha1.KongCredentialAPIKeyAPISpec{Key: key},
			},
		}
		if _, err := e.cs.ConfigurationV1alpha1().KongCredentialAPIKeys(e.ns).Create(e.ctx, k, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	apiKey("first", "alice")
	e.eventually("the first key Programmed", func() error {
		k, err := e.cs.ConfigurationV1alpha1().KongCredentialAPIKeys(e.ns).Get(e.ctx, "first", metav1.GetOptions{})
		if err != nil {
			return err
		}
		return programmed(k)
	})
	apiKey("second", "bob")
	var refusal string
	e.eventually("the second key refused", func() error {
		k, err := e.cs.ConfigurationV1alpha1().KongCredentialAPIKeys(e.ns).Get(e.ctx, "second", metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(k.Status.Conditions, commonv1alpha1.ConditionProgrammed)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason == commonv1alpha1.ReasonPending {
			return fmt.Errorf("Programmed %+v", c)
		}
		refusal = c.Message
		for _, c := range k.Status.Conditions {
			if strings.Contains(c.Message, key) {
				return fmt.Errorf("%s carries the key: %q", c.Type, c.Message)
			}
		}
		return nil
	})
	e.settle()
	// Konnect does quote the key, to a client that does not take it out.
	_, echo := e.konnect().APIKeys.CreateKeyAuthWithConsumer(e.ctx, operations.CreateKeyAuthWithConsumerRequest{
		ControlPlaneID: cpID, ConsumerIDForNestedEntities: bob.Status.Konnect.GetKonnectID(),
		KeyAuthWithoutParents: &components.KeyAuthWithoutParents{Key: ptrTo(key)},
	})
	if echo == nil || !strings.Contains(echo.Error(), key) {
		t.Fatalf("the simulator does not quote the key (%v): the test proves nothing", echo)
	}
	if !strings.Contains(refusal, "constraint failed") && !strings.Contains(refusal, "conflict") {
		t.Fatalf("the refusal %q is not Konnect's uniqueness violation", refusal)
	}
	for _, ev := range e.events("KongCredentialAPIKey", "second") {
		if strings.Contains(ev.Message, key) {
			t.Fatalf("the Event %s carries the key: %q", ev.Reason, ev.Message)
		}
	}
	if strings.Contains(e.logs(), key) {
		t.Fatal("the logs carry the key")
	}
}

func ptrTo[T any](v T) *T { return &v }
