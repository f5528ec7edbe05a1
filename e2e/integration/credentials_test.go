package integration

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
)

func (e *env) programmedConsumer(name string) *configurationv1.KongConsumer {
	e.t.Helper()
	var c *configurationv1.KongConsumer
	e.eventually("KongConsumer "+name+" Programmed", func() error {
		c = e.consumer(name)
		return programmed(c)
	})
	return c
}

// programmedCredential waits until the credential is Programmed and returns
// its Konnect ID.
func (e *env) programmedCredential(c credentialCase, name string) string {
	e.t.Helper()
	var id string
	e.eventually(c.kind+" "+name+" Programmed", func() error {
		obj, status := c.get(e, name)
		if status.Konnect != nil {
			id = status.Konnect.ID
		}
		return programmed(obj)
	})
	return id
}

// credentialEntity returns the credential with the given ID from Konnect's
// flat collection of its kind.
func (e *env) credentialEntity(cpID string, c credentialCase, id string) (map[string]any, bool) {
	return e.entity(cpID, c.collection, id)
}

// TestCredentialWaitsForItsConsumer: a credential of a consumer that does
// not exist yet says so and waits; once the consumer is Programmed, each
// credential is created under it, its status names the consumer and the
// control plane it inherits, and a spec.id is not sent to Konnect. The
// lifecycle of each credential kind is walked by the harness of
// kindcase_test.go.
func TestCredentialWaitsForItsConsumer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	cases := credentialCases()
	for _, c := range cases {
		c.create(e, strings.ToLower(c.kind), "late", strings.ToLower(c.kind), nil)
	}
	for _, c := range cases {
		e.eventually(c.kind+" reports the missing consumer", func() error {
			obj, _ := c.get(e, strings.ToLower(c.kind))
			if err := conditionIs(obj, commonv1alpha1.ConditionKongConsumerRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
				return err
			}
			if cond := meta.FindStatusCondition(obj.GetConditions(), commonv1alpha1.ConditionKongConsumerRefValid); !strings.Contains(cond.Message, e.ns+"/late not found") {
				return fmt.Errorf("message %q does not name the consumer", cond.Message)
			}
			return conditionIs(obj, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonWaitingForReferences)
		})
	}
	for _, c := range cases {
		e.eventuallyEvent(c.kind, strings.ToLower(c.kind), corev1.EventTypeWarning, "ReferencesNotReady")
	}
	if n := e.calls("", "/consumers/"); n != 0 {
		t.Fatalf("%d calls under consumers while the consumer was missing", n)
	}

	e.createConsumer("late")
	consumerID := e.programmedConsumer("late").Status.Konnect.ID
	for _, c := range cases {
		name := strings.ToLower(c.kind)
		id := e.programmedCredential(c, name)
		if ent, ok := e.credentialEntity(cpID, c, id); !ok || refID(ent, "consumer") != consumerID {
			t.Fatalf("%s in Konnect: %v, want under consumer %s", c.kind, ent, consumerID)
		}
		obj, status := c.get(e, name)
		if st := status.Konnect; st.ConsumerID != consumerID || st.ControlPlaneID != cpID || st.OrgID != e.orgID || st.ServerURL != e.sim.URL {
			t.Errorf("%s status.konnect = %+v, want consumer %s in control plane %s", c.kind, st, consumerID, cpID)
		}
		for _, ct := range []string{commonv1alpha1.ConditionKongConsumerRefValid, commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ConditionAPIAuthValid} {
			if err := conditionIs(obj, ct, metav1.ConditionTrue, ""); err != nil {
				t.Errorf("%s: %v", c.kind, err)
			}
		}
		if c.hasSpecID && id == specID {
			t.Errorf("%s: spec.id %s was sent to Konnect", c.kind, specID)
		}
	}
}

func TestConsumerDeletedBeforeItsCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.ready()
	e.createConsumer("alice")
	e.programmedConsumer("alice")
	cases := credentialCases()
	for _, c := range cases {
		c.create(e, strings.ToLower(c.kind), "alice", strings.ToLower(c.kind), nil)
	}
	for _, c := range cases {
		e.programmedCredential(c, strings.ToLower(c.kind))
	}
	if err := e.cs.ConfigurationV1().KongConsumers(e.ns).Delete(e.ctx, "alice", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("consumer and its credentials gone from Konnect", func() error {
		if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Get(e.ctx, "alice", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("consumer still in the cluster (%w)", err)
		}
		if n := e.sim.Count(e.orgID); n != 1 {
			return fmt.Errorf("%d entities in Konnect, want only the control plane", n-1)
		}
		return nil
	})
	for _, c := range cases {
		e.eventually(c.kind+" reports its consumer gone", func() error {
			obj, _ := c.get(e, strings.ToLower(c.kind))
			return conditionIs(obj, commonv1alpha1.ConditionKongConsumerRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
		})
	}
}
