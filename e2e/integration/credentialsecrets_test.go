package integration

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

func (e *env) createCredentialSecret(name, label string, data map[string][]byte) {
	e.t.Helper()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{commonv1alpha1.LabelCredential: label}},
		Data:       data,
	}
	if _, err := e.kube.CoreV1().Secrets(e.ns).Create(e.ctx, s, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) updateSecretData(name string, data map[string][]byte) {
	e.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := e.kube.CoreV1().Secrets(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s.Data = data
		_, err = e.kube.CoreV1().Secrets(e.ns).Update(e.ctx, s, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// managedCredential waits until exactly one live object of the kind was
// made from the Secret for the consumer, and returns it.
func (e *env) managedCredential(c credentialCase, consumer, secret string) credentialObject {
	e.t.Helper()
	var found credentialObject
	e.eventually(fmt.Sprintf("one %s made from Secret %s", c.kind, secret), func() error {
		var matching []credentialObject
		for _, obj := range c.list(e) {
			if obj.meta.GetDeletionTimestamp() == nil && ownedBy(obj.meta, "Secret", secret) && metav1.GetControllerOf(obj.meta) != nil {
				matching = append(matching, obj)
			}
		}
		if len(matching) != 1 {
			return fmt.Errorf("%d objects", len(matching))
		}
		found = matching[0]
		return nil
	})
	c.checkManaged(e, found, consumer, secret)
	return found
}

// checkManaged checks what a credential made from a Secret carries.
func (c credentialCase) checkManaged(e *env, obj credentialObject, consumer, secret string) {
	e.t.Helper()
	if obj.meta.GetGenerateName() != consumer+"-" || !strings.HasPrefix(obj.meta.GetName(), consumer+"-") {
		e.t.Errorf("%s %s: generateName %q, want %q", c.kind, obj.meta.GetName(), obj.meta.GetGenerateName(), consumer+"-")
	}
	ctrl := metav1.GetControllerOf(obj.meta)
	if ctrl == nil || ctrl.Kind != "KongConsumer" || ctrl.Name != consumer {
		e.t.Errorf("%s %s: controller %+v, want KongConsumer %s", c.kind, obj.meta.GetName(), ctrl, consumer)
	}
	if !ownedBy(obj.meta, "Secret", secret) {
		e.t.Errorf("%s %s: owners %+v lack Secret %s", c.kind, obj.meta.GetName(), obj.meta.GetOwnerReferences(), secret)
	}
}

func ownedBy(obj metav1.Object, kind, name string) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Kind == kind && ref.Name == name {
			return true
		}
	}
	return false
}

func TestCredentialSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	cases := credentialCases()
	var names []string
	for _, c := range cases {
		name := "secret-" + c.label
		names = append(names, name)
		e.createCredentialSecret(name, c.label, c.secretData("alice-"+c.label))
	}
	e.createConsumer("alice")
	e.updateConsumer("alice", func(k *configurationv1.KongConsumer) { k.Credentials = names })
	consumerID := e.programmedConsumer("alice").Status.Konnect.ID
	if err := conditionIs(e.consumer("alice"), commonv1alpha1.ConditionCredentialSecretRefsValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid); err != nil {
		t.Fatal(err)
	}

	objects := map[string]credentialObject{}
	t.Run("a managed object per Secret, in Konnect", func(t *testing.T) {
		e := e.with(t)
		for _, c := range cases {
			obj := e.managedCredential(c, "alice", "secret-"+c.label)
			if obj.field != "alice-"+c.label {
				t.Errorf("%s %s = %q, want the Secret's", c.kind, c.field, obj.field)
			}
			objects[c.label] = obj
			id := e.programmedCredential(c, obj.meta.GetName())
			if ent, ok := e.credentialEntity(cpID, c, id); !ok || ent[c.field] != "alice-"+c.label || refID(ent, "consumer") != consumerID {
				t.Errorf("%s in Konnect: %v", c.kind, ent)
			}
		}
	})

	t.Run("a Secret change updates its object and Konnect", func(t *testing.T) {
		e := e.with(t)
		for _, c := range cases {
			e.updateSecretData("secret-"+c.label, c.secretData("changed-"+c.label))
		}
		for _, c := range cases {
			obj := e.managedCredential(c, "alice", "secret-"+c.label)
			if obj.meta.GetName() != objects[c.label].meta.GetName() {
				t.Errorf("%s was replaced (%s → %s), want updated", c.kind, objects[c.label].meta.GetName(), obj.meta.GetName())
			}
			e.eventually(c.kind+" updated in Konnect", func() error {
				o, status := c.get(e, obj.meta.GetName())
				if err := programmed(o); err != nil {
					return err
				}
				ent, _ := e.credentialEntity(cpID, c, status.Konnect.ID)
				if ent[c.field] != "changed-"+c.label {
					return fmt.Errorf("%s = %v", c.field, ent[c.field])
				}
				return nil
			})
		}
	})

	t.Run("duplicates are reduced to the oldest", func(t *testing.T) {
		e := e.with(t)
		acl := cases[2]
		original := objects[acl.label]
		// Creation times count whole seconds: the duplicate must be younger.
		e.serverTimePast(original.meta.GetCreationTimestamp().Time)
		dup := &configurationv1alpha1.KongCredentialACL{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "alice-", OwnerReferences: original.meta.GetOwnerReferences()},
			Spec:       original.spec.(configurationv1alpha1.KongCredentialACLSpec),
		}
		if _, err := e.cs.ConfigurationV1alpha1().KongCredentialACLs(e.ns).Create(e.ctx, dup, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if kept := e.managedCredential(acl, "alice", "secret-acl"); kept.meta.GetName() != original.meta.GetName() {
			t.Fatalf("kept %s, want the original %s", kept.meta.GetName(), original.meta.GetName())
		}
	})

	t.Run("an un-listed Secret's object goes, in Konnect too", func(t *testing.T) {
		e := e.with(t)
		basic := cases[0]
		_, status := basic.get(e, objects[basic.label].meta.GetName())
		e.updateConsumer("alice", func(k *configurationv1.KongConsumer) { k.Credentials = names[1:] })
		e.eventually("basic-auth object and entity gone", func() error {
			if len(basic.list(e)) != 0 {
				return fmt.Errorf("object still there")
			}
			if _, ok := e.credentialEntity(cpID, basic, status.Konnect.ID); ok {
				return fmt.Errorf("still in Konnect")
			}
			return nil
		})
	})

	t.Run("a deleted Secret's object goes, and the consumer says so", func(t *testing.T) {
		e := e.with(t)
		key := cases[1]
		_, status := key.get(e, objects[key.label].meta.GetName())
		if err := e.kube.CoreV1().Secrets(e.ns).Delete(e.ctx, "secret-key-auth", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("key-auth object and entity gone", func() error {
			if len(key.list(e)) != 0 {
				return fmt.Errorf("object still there")
			}
			if _, ok := e.credentialEntity(cpID, key, status.Konnect.ID); ok {
				return fmt.Errorf("still in Konnect")
			}
			return nil
		})
		e.eventually("the consumer names the missing Secret", func() error {
			c := e.consumer("alice")
			if err := conditionIs(c, commonv1alpha1.ConditionCredentialSecretRefsValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
				return err
			}
			if msg := meta.FindStatusCondition(c.Status.Conditions, commonv1alpha1.ConditionCredentialSecretRefsValid).Message; !strings.Contains(msg, "secret-key-auth not found") {
				return fmt.Errorf("message %q", msg)
			}
			return conditionIs(c, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonWaitingForReferences)
		})
	})

	t.Run("a user's credential owned by a Secret is left alone", func(t *testing.T) {
		e := e.with(t)
		secret, err := e.kube.CoreV1().Secrets(e.ns).Get(e.ctx, "secret-acl", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		acl := cases[2]
		acl.create(e, "users-acl", "alice", "users-group", nil)
		e.retryUpdate(func() error {
			obj, err := e.cs.ConfigurationV1alpha1().KongCredentialACLs(e.ns).Get(e.ctx, "users-acl", metav1.GetOptions{})
			if err == nil {
				obj.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: secret.Name, UID: secret.UID}}
				_, err = e.cs.ConfigurationV1alpha1().KongCredentialACLs(e.ns).Update(e.ctx, obj, metav1.UpdateOptions{})
			}
			return err
		})
		e.updateSecretData("secret-acl", acl.secretData("changed-again")) // reconciles alice's objects
		e.managedCredential(acl, "alice", "secret-acl")
		e.stays("the user's credential stays", func() error {
			obj, _ := acl.get(e, "users-acl")
			if obj.GetDeletionTimestamp() != nil {
				return fmt.Errorf("it is being deleted")
			}
			return nil
		})
		if err := acl.delete(e, "users-acl"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("the consumer's deletion takes its objects and their credentials", func(t *testing.T) {
		e := e.with(t)
		if err := e.cs.ConfigurationV1().KongConsumers(e.ns).Delete(e.ctx, "alice", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("no credential objects and nothing in Konnect but the control plane", func() error {
			for _, c := range cases {
				if objs := c.list(e); len(objs) != 0 {
					o := objs[0].meta
					return fmt.Errorf("%d %s objects left: %s deleting=%v finalizers=%v owners=%v", len(objs), c.kind, o.GetName(), o.GetDeletionTimestamp(), o.GetFinalizers(), o.GetOwnerReferences())
				}
			}
			if n := e.sim.Count(e.orgID); n != 1 {
				return fmt.Errorf("%d entities in Konnect besides the control plane", n-1)
			}
			return nil
		})
	})
}

func TestCredentialSecretProblemsStopTheConsumer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createCredentialSecret("no-password", "basic-auth", map[string][]byte{"username": []byte("bob")})
	e.createCredentialSecret("bad-algorithm", "jwt", map[string][]byte{"key": []byte("k"), "algorithm": []byte("RS256")})
	e.createCredentialSecret("unknown-type", "oauth2", map[string][]byte{"x": []byte("y")})
	// A Secret that is not there yet is waited for; the others need a
	// change.
	const waits, refused = commonv1alpha1.ReasonWaitingForReferences, commonv1alpha1.ReasonConditionWithStatusFalseExists
	cases := []struct {
		name, secret, want, programmed string
	}{
		{name: "missing key", secret: "no-password", want: `no-password: missing data key "password"`, programmed: refused},
		{name: "missing public key", secret: "bad-algorithm", want: `bad-algorithm: data key "rsa_public_key" is required`, programmed: refused},
		{name: "unknown label value", secret: "unknown-type", want: "unknown-type: label konghq.com/credential must be one of", programmed: refused},
		{name: "missing Secret", secret: "nowhere", want: "nowhere not found", programmed: waits},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			name := fmt.Sprintf("consumer-%d", i)
			consumer := &configurationv1.KongConsumer{
				ObjectMeta:  metav1.ObjectMeta{Name: name},
				Username:    name,
				Credentials: []string{tc.secret},
				Spec:        configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef("cp")},
			}
			if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, consumer, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			e.eventually("the problem is reported", func() error {
				c := e.consumer(name)
				if err := conditionIs(c, commonv1alpha1.ConditionCredentialSecretRefsValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
					return err
				}
				if msg := meta.FindStatusCondition(c.Status.Conditions, commonv1alpha1.ConditionCredentialSecretRefsValid).Message; !strings.Contains(msg, tc.want) {
					return fmt.Errorf("message %q does not say %q", msg, tc.want)
				}
				return conditionIs(c, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, tc.programmed)
			})
		})
	}
	for _, ent := range e.entities(cpID, "consumers") {
		t.Errorf("a consumer with a broken credential Secret reached Konnect: %v", ent)
	}
	for _, c := range credentialCases() {
		if n := len(c.list(e)); n != 0 {
			t.Errorf("%d %s objects made from broken Secrets", n, c.kind)
		}
	}

	// Fixing the Secret lets the consumer through.
	e.updateSecretData("no-password", map[string][]byte{"username": []byte("bob"), "password": []byte("pw")})
	if err := conditionIs(e.programmedConsumer("consumer-0"), commonv1alpha1.ConditionCredentialSecretRefsValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid); err != nil {
		t.Fatal(err)
	}
	e.managedCredential(credentialCases()[0], "consumer-0", "no-password")
}
