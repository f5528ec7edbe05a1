package operator_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

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

func TestCredentialLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{}) // an hour's sync period: only changes write
	cpID := e.ready()
	e.createConsumer("alice")
	consumerID := e.programmedConsumer("alice").Status.Konnect.ID

	for _, c := range credentialCases() {
		t.Run(c.kind, func(t *testing.T) {
			e := e.with(t)
			name := strings.ToLower(c.kind)
			c.create(e, name, "alice", name+"-v1", nil)
			id := e.programmedCredential(c, name)

			obj, status := c.get(e, name)
			st := status.Konnect
			if st.ConsumerID != consumerID || st.ControlPlaneID != cpID || st.OrgID != e.orgID || st.ServerURL != e.sim.URL {
				t.Fatalf("status.konnect = %+v, want consumer %s in control plane %s", st, consumerID, cpID)
			}
			for _, ct := range []string{commonv1alpha1.ConditionKongConsumerRefValid, commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ConditionAPIAuthValid} {
				if err := conditionIs(obj, ct, metav1.ConditionTrue, ""); err != nil {
					t.Error(err)
				}
			}
			ent, ok := e.credentialEntity(cpID, c, id)
			if !ok {
				t.Fatalf("%s %s is not in Konnect's %s", c.kind, id, c.collection)
			}
			if refID(ent, "consumer") != consumerID || ent[c.field] != name+"-v1" {
				t.Fatalf("Konnect credential %v, want consumer %s and %s %s-v1", ent, consumerID, c.field, name)
			}
			tags := tagsOf(ent)
			for _, want := range []string{"k8s-uid:" + string(obj.GetUID()), "k8s-kind:" + c.kind, "k8s-name:" + name} {
				if !slices.Contains(tags, want) {
					t.Errorf("Konnect tags %v lack %q", tags, want)
				}
			}
			if c.hasSpecID && id == specID {
				t.Errorf("spec.id %s was sent to Konnect", specID)
			}

			posts := e.calls("POST", "/"+strings.TrimSuffix(c.collection, "s"))
			c.set(e, name, name+"-v2")
			e.eventually("the change reaches Konnect", func() error {
				ent, _ := e.credentialEntity(cpID, c, id)
				if ent[c.field] != name+"-v2" {
					return fmt.Errorf("%s = %v", c.field, ent[c.field])
				}
				return nil
			})
			if got := e.calls("POST", "/"+strings.TrimSuffix(c.collection, "s")); got != posts {
				t.Fatalf("the update created the credential again (%d creates)", got-posts)
			}

			if err := c.delete(e, name); err != nil {
				t.Fatal(err)
			}
			e.eventually("credential gone from the cluster and from Konnect", func() error {
				if err := c.delete(e, name); !apierrors.IsNotFound(err) {
					return fmt.Errorf("still in the cluster (%w)", err)
				}
				if _, ok := e.credentialEntity(cpID, c, id); ok {
					return fmt.Errorf("still in Konnect")
				}
				return nil
			})
		})
	}
}

func TestCredentialDriftIsOverwritten(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period})
	cpID := e.ready()
	e.createConsumer("alice")
	e.programmedConsumer("alice")
	cases := credentialCases()
	ids := map[string]string{}
	for _, c := range cases {
		name := strings.ToLower(c.kind)
		c.create(e, name, "alice", name+"-ours", nil)
	}
	for _, c := range cases {
		ids[c.kind] = e.programmedCredential(c, strings.ToLower(c.kind))
	}
	for _, c := range cases {
		ent, _ := e.credentialEntity(cpID, c, ids[c.kind])
		ent[c.field] = "changed-behind-our-back-" + strings.ToLower(c.kind)
		if err := e.sim.PutEntity(e.orgID, cpID, c.collection, ent); err != nil {
			t.Fatal(err)
		}
	}
	// Within one sync period: the clock moves one period on, no more.
	e.step(period)
	for _, c := range cases {
		e.eventually(c.kind+" drift overwritten", func() error {
			ent, _ := e.credentialEntity(cpID, c, ids[c.kind])
			if want := strings.ToLower(c.kind) + "-ours"; ent[c.field] != want {
				return fmt.Errorf("%s = %v, want %s", c.field, ent[c.field], want)
			}
			return nil
		})
	}
}

func TestCredentialAdoption(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createConsumer("alice")
	consumerID := e.programmedConsumer("alice").Status.Konnect.ID

	existing := func(c credentialCase, n int, value string, tags ...string) string {
		id := fmt.Sprintf("0000eeee-0000-4000-8000-%012d", n)
		ent := c.konnectFields(value)
		ent["id"], ent["consumer"] = id, map[string]any{"id": consumerID}
		if len(tags) > 0 {
			ent["tags"] = tags
		}
		if err := e.sim.PutEntity(e.orgID, cpID, c.collection, ent); err != nil {
			t.Fatal(err)
		}
		return id
	}
	adopt := func(id string, mode commonv1alpha1.AdoptMode) *commonv1alpha1.AdoptOptions {
		return &commonv1alpha1.AdoptOptions{From: commonv1alpha1.AdoptSourceKonnect, Mode: mode, Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: id}}
	}
	for i, c := range credentialCases() {
		t.Run(c.kind, func(t *testing.T) {
			e := e.with(t)
			base := strings.ToLower(c.kind)

			id := existing(c, 10*i+1, base+"-old")
			c.create(e, base+"-override", "alice", base+"-new", adopt(id, commonv1alpha1.AdoptModeOverride))
			if got := e.programmedCredential(c, base+"-override"); got != id {
				t.Fatalf("adopted ID %q, want %q", got, id)
			}
			obj, _ := c.get(e, base+"-override")
			if err := conditionIs(obj, commonv1alpha1.ConditionAdopted, metav1.ConditionTrue, commonv1alpha1.ReasonAdopted); err != nil {
				t.Fatal(err)
			}
			ent, _ := e.credentialEntity(cpID, c, id)
			if ent[c.field] != base+"-new" || !slices.Contains(tagsOf(ent), "k8s-uid:"+string(obj.GetUID())) {
				t.Fatalf("override did not write the spec: %v", ent)
			}

			id = existing(c, 10*i+2, base+"-same")
			puts := e.calls("PUT", "/"+strings.TrimSuffix(c.collection, "s"))
			c.create(e, base+"-match", "alice", base+"-same", adopt(id, commonv1alpha1.AdoptModeMatch))
			if got := e.programmedCredential(c, base+"-match"); got != id {
				t.Fatalf("adopted ID %q, want %q", got, id)
			}
			if got := e.calls("PUT", "/"+strings.TrimSuffix(c.collection, "s")); got != puts {
				t.Fatalf("match mode wrote the credential (%d PUTs)", got-puts)
			}

			id = existing(c, 10*i+3, base+"-theirs")
			c.create(e, base+"-differs", "alice", base+"-mine", adopt(id, commonv1alpha1.AdoptModeMatch))
			e.eventually("mismatch reported with the field", func() error {
				obj, _ := c.get(e, base+"-differs")
				if err := conditionIs(obj, commonv1alpha1.ConditionAdopted, metav1.ConditionFalse, commonv1alpha1.ReasonNotMatch); err != nil {
					return err
				}
				if cond := meta.FindStatusCondition(obj.GetConditions(), commonv1alpha1.ConditionAdopted); !strings.Contains(cond.Message, c.field) {
					return fmt.Errorf("message %q does not name %s", cond.Message, c.field)
				}
				return nil
			})

			id = existing(c, 10*i+4, base+"-owned", "k8s-uid:someone-else")
			c.create(e, base+"-owned", "alice", base+"-owned", adopt(id, commonv1alpha1.AdoptModeOverride))
			e.eventually("UID conflict reported", func() error {
				obj, _ := c.get(e, base+"-owned")
				return conditionIs(obj, commonv1alpha1.ConditionAdopted, metav1.ConditionFalse, commonv1alpha1.ReasonUIDConflict)
			})
		})
	}
}

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
		id := e.programmedCredential(c, strings.ToLower(c.kind))
		if ent, ok := e.credentialEntity(cpID, c, id); !ok || refID(ent, "consumer") != consumerID {
			t.Fatalf("%s in Konnect: %v, want under consumer %s", c.kind, ent, consumerID)
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
