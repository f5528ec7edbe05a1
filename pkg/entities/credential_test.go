package entities

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

func credentialDeps[T controller.Object](refs *Refs, consumers *controller.Informer[kongConsumer]) CredentialDeps[T] {
	return CredentialDeps[T]{Refs: refs, Consumers: consumers}
}

// testCredentialKinds are the five credential kinds over refs.
func testCredentialKinds(refs *Refs) []CredentialKind {
	consumers := cacheOf[kongConsumer]("kongconsumers")
	return []CredentialKind{
		BasicAuthKind(credentialDeps[kongBasicAuth](refs, consumers)).CredentialKind,
		APIKeyKind(credentialDeps[kongAPIKey](refs, consumers)).CredentialKind,
		ACLKind(credentialDeps[kongACL](refs, consumers)).CredentialKind,
		JWTKind(credentialDeps[kongJWT](refs, consumers)).CredentialKind,
		HMACKind(credentialDeps[kongHMAC](refs, consumers)).CredentialKind,
	}
}

func testBasicAuth(name, consumer string) kongBasicAuth {
	o := &configurationv1alpha1.KongCredentialBasicAuth{ObjectMeta: objectMeta(name)}
	o.Spec.ConsumerRef.Name = consumer
	o.Spec.Username, o.Spec.Password, o.Spec.Tags = "user-"+name, "secret", []string{"team:a"}
	return o
}

// programmedConsumer is a consumer that exists in Konnect with ID id.
func programmedConsumer(name, id string) kongConsumer {
	return programmedIn(testConsumer(name), "", id)
}

func TestCredentialIsPlacedUnderItsConsumer(t *testing.T) {
	deleting := programmedConsumer("deleting", "c-deleting")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{"x"}
	elsewhere := programmedConsumer("elsewhere", "c-elsewhere")
	elsewhere.Spec.ControlPlaneRef = konnectRef("other")
	cases := []struct {
		name       string
		consumer   string
		failing    string // the condition that is False, "" when ready
		goneIfDone bool   // deleting finds the credential gone with its consumer
	}{
		{name: "a missing consumer", consumer: "missing", failing: commonv1alpha1.ConditionKongConsumerRefValid, goneIfDone: true},
		{name: "a consumer not yet in Konnect", consumer: "new", failing: commonv1alpha1.ConditionKongConsumerRefValid, goneIfDone: true},
		{name: "a consumer being deleted", consumer: "deleting", failing: commonv1alpha1.ConditionKongConsumerRefValid},
		{name: "a consumer whose control plane is missing", consumer: "elsewhere", failing: commonv1alpha1.ConditionControlPlaneRefValid, goneIfDone: true},
		{name: "a Programmed consumer", consumer: "alice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			refs := testRefs()
			programmedControlPlane(t, refs, "cp", "cp-id")
			consumers := cacheOf[kongConsumer]("kongconsumers")
			put(t, consumers, programmedConsumer("alice", "c-alice"), testConsumer("new"), deleting, elsewhere)
			kind := BasicAuthKind(credentialDeps[kongBasicAuth](refs, consumers)).Kind
			cred := testBasicAuth("cred", tc.consumer)

			res, err := kind.Resolve(t.Context(), cred, controller.ForSync)
			if err != nil {
				t.Fatal(err)
			}
			if tc.failing != "" {
				if res.Ready || conditionStatus(res, tc.failing) != "False" {
					t.Fatalf("ready=%v, %s=%q; conditions %v", res.Ready, tc.failing, conditionStatus(res, tc.failing), res.Conditions)
				}
			} else {
				if !res.Ready || res.Placement.ParentID != "c-alice" || res.Placement.ControlPlaneID != "cp-id" || res.Placement.Auth.Token != "kpat_test" {
					t.Fatalf("ready=%v placement=%+v conditions %v", res.Ready, res.Placement, res.Conditions)
				}
				if st := cred.Status.Konnect; st.ConsumerID != "c-alice" || st.ControlPlaneID != "cp-id" {
					t.Fatalf("status records consumer %q, control plane %q", st.ConsumerID, st.ControlPlaneID)
				}
			}
			cred.ControlPlaneStatus(true).ID = "cred-id"
			res, err = kind.Resolve(t.Context(), cred, controller.ForDelete)
			if err != nil || res.Gone != tc.goneIfDone {
				t.Fatalf("deleting: gone=%v, %v; want %v", res.Gone, err, tc.goneIfDone)
			}
			for _, c := range res.Conditions {
				if !slices.Contains(kind.Conditions, c.Type) {
					t.Errorf("condition %s is not one the kind declares (%v)", c.Type, kind.Conditions)
				}
			}
		})
	}
}

func TestCredentialOfARecreatedConsumerIsCreatedAgain(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	consumers := cacheOf[kongConsumer]("kongconsumers")
	put(t, consumers, programmedConsumer("alice", "c-new"))
	kind := BasicAuthKind(credentialDeps[kongBasicAuth](refs, consumers)).Kind
	recorded := func() kongBasicAuth {
		cred := testBasicAuth("cred", "alice")
		cred.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs{ConsumerID: "c-old"}
		cred.Status.Konnect.ID, cred.Status.Konnect.ControlPlaneID = "cred-id", "cp-id"
		return cred
	}

	cred := recorded()
	res, err := kind.Resolve(t.Context(), cred, controller.ForSync)
	if err != nil || !res.Ready || res.Placement.ParentID != "c-new" {
		t.Fatalf("ready=%v parent=%q, %v", res.Ready, res.Placement.ParentID, err)
	}
	if st := cred.Status.Konnect; st.ID != "" || st.ConsumerID != "c-new" {
		t.Fatalf("status keeps ID %q under consumer %q; the credential went with the old consumer", st.ID, st.ConsumerID)
	}
	if res, err := kind.Resolve(t.Context(), recorded(), controller.ForDelete); err != nil || !res.Gone {
		t.Fatalf("deleting: gone=%v, %v; the credential went with the old consumer", res.Gone, err)
	}
}

func TestCredentialIsManagedWhenItsConsumerIsBoundToKonnect(t *testing.T) {
	consumers := cacheOf[kongConsumer]("kongconsumers")
	kic := testConsumer("kic")
	kic.Spec.ControlPlaneRef = &commonv1alpha1.ControlPlaneRef{Type: commonv1alpha1.ControlPlaneRefKIC}
	put(t, consumers, testConsumer("alice"), kic)
	kind := BasicAuthKind(credentialDeps[kongBasicAuth](testRefs(), consumers)).Kind
	for consumer, want := range map[string]bool{"alice": true, "kic": false, "missing": true} {
		if got := kind.IsManaged(testBasicAuth("cred", consumer)); got != want {
			t.Errorf("consumer %s: managed %v, want %v", consumer, got, want)
		}
	}
}

func TestCredentialBodiesCarryTheSpecAndNoConsumer(t *testing.T) {
	refs, consumers := testRefs(), cacheOf[kongConsumer]("kongconsumers")
	ctx, p := t.Context(), controller.Placement{ParentID: "c-alice"}
	hasTags := func(t *testing.T, obj metav1.Object, tags []string) {
		t.Helper()
		for _, want := range []string{"team:a", controller.UIDTag(obj)} {
			if !slices.Contains(tags, want) {
				t.Errorf("tags %v lack %q", tags, want)
			}
		}
	}

	basic := testBasicAuth("basic", "alice")
	b, _ := BasicAuthKind(credentialDeps[kongBasicAuth](refs, consumers)).Kind.Desired(ctx, basic, p)
	if b.Username != "user-basic" || b.Password != "secret" || b.Consumer != nil {
		t.Errorf("basic-auth body %+v", b)
	}
	hasTags(t, basic, b.Tags)

	key := &configurationv1alpha1.KongCredentialAPIKey{ObjectMeta: objectMeta("key")}
	key.Spec.Tags = []string{"team:a"}
	k, _ := APIKeyKind(credentialDeps[kongAPIKey](refs, consumers)).Kind.Desired(ctx, key, p)
	if k.Key != nil || k.Consumer != nil {
		t.Errorf("an API key without a key sends %v; Konnect generates one", deref(k.Key))
	}
	hasTags(t, key, k.Tags)

	acl := &configurationv1alpha1.KongCredentialACL{ObjectMeta: objectMeta("acl")}
	acl.Spec.Group, acl.Spec.Tags = "admins", []string{"team:a"}
	a, _ := ACLKind(credentialDeps[kongACL](refs, consumers)).Kind.Desired(ctx, acl, p)
	if a.Group != "admins" || a.Consumer != nil {
		t.Errorf("acl body %+v", a)
	}
	hasTags(t, acl, a.Tags)

	jwt := &configurationv1alpha1.KongCredentialJWT{ObjectMeta: objectMeta("jwt")}
	jwt.Spec.ID, jwt.Spec.Key, jwt.Spec.Tags = "chosen-id", "iss", []string{"team:a"}
	j, _ := JWTKind(credentialDeps[kongJWT](refs, consumers)).Kind.Desired(ctx, jwt, p)
	if deref(j.Key) != "iss" || j.ID != nil || j.Algorithm != nil || j.Secret != nil || j.RsaPublicKey != nil {
		t.Errorf("jwt body %+v: spec.id, and what the spec leaves empty, are not sent", j)
	}
	hasTags(t, jwt, j.Tags)

	hmac := &configurationv1alpha1.KongCredentialHMAC{ObjectMeta: objectMeta("hmac")}
	hmac.Spec.Username, hmac.Spec.Tags = "h", []string{"team:a"}
	h, _ := HMACKind(credentialDeps[kongHMAC](refs, consumers)).Kind.Desired(ctx, hmac, p)
	if h.Username != "h" || h.Secret != nil || h.ID != nil {
		t.Errorf("hmac body %+v", h)
	}
	hasTags(t, hmac, h.Tags)
}

// matchCase is an entity in Konnect and a spec adopting it in match mode.
type matchCase[D any] struct {
	name              string
	existing, desired D
	want              []string
}

// checkMatches creates each case's entity under a consumer and inspects it
// as adopting in match mode does, so that what Konnect answers (hashed
// passwords, generated keys) is what is compared.
func checkMatches[T controller.Entity, D, A any](t *testing.T, kind controller.Kind[T, D], calls coreCalls[D, A], obj T, cases []matchCase[D]) {
	t.Helper()
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	p.ParentID = simulatedConsumer(t, s, p, "alice")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			created, err := calls.doCreate(t.Context(), s.api, p, tc.existing)
			if err != nil {
				t.Fatal(err)
			}
			id := deref(calls.id(created))
			defer func() {
				if err := calls.doDelete(context.Background(), s.api, p, id); err != nil {
					t.Error(err)
				}
			}()
			found, err := kind.Adopt.Inspect(t.Context(), s.api, obj, p, id, tc.desired)
			if err != nil || !slices.Equal(found.Differences, tc.want) {
				t.Fatalf("differences %v, %v; want %v", found.Differences, err, tc.want)
			}
		})
	}
}

func TestCredentialMatchComparesWhatKonnectKeeps(t *testing.T) {
	refs, consumers := testRefs(), cacheOf[kongConsumer]("kongconsumers")
	t.Run("basic-auth", func(t *testing.T) {
		type body = components.BasicAuthWithoutParents
		checkMatches(t, BasicAuthKind(credentialDeps[kongBasicAuth](refs, consumers)).Kind, basicAuthCalls, testBasicAuth("c", "alice"), []matchCase[body]{
			{name: "another password: Konnect keeps only its hash", existing: body{Username: "u", Password: "a"}, desired: body{Username: "u", Password: "b"}},
			{name: "another username", existing: body{Username: "u", Password: "a"}, desired: body{Username: "v", Password: "a"}, want: []string{"username"}},
		})
	})
	t.Run("key-auth", func(t *testing.T) {
		type body = components.KeyAuthWithoutParents
		checkMatches(t, APIKeyKind(credentialDeps[kongAPIKey](refs, consumers)).Kind, apiKeyCalls, &configurationv1alpha1.KongCredentialAPIKey{}, []matchCase[body]{
			{name: "the same key", existing: body{Key: ptr("k1")}, desired: body{Key: ptr("k1")}},
			{name: "another key", existing: body{Key: ptr("k1")}, desired: body{Key: ptr("k2")}, want: []string{"key"}},
		})
	})
	t.Run("acl", func(t *testing.T) {
		type body = components.ACLWithoutParents
		checkMatches(t, ACLKind(credentialDeps[kongACL](refs, consumers)).Kind, aclCalls, &configurationv1alpha1.KongCredentialACL{}, []matchCase[body]{
			{name: "the same group", existing: body{Group: "admins"}, desired: body{Group: "admins"}},
			{name: "another group", existing: body{Group: "admins"}, desired: body{Group: "users"}, want: []string{"group"}},
		})
	})
	t.Run("jwt", func(t *testing.T) {
		type body = components.JWTWithoutParents
		rs256 := components.JWTWithoutParentsAlgorithmRs256
		checkMatches(t, JWTKind(credentialDeps[kongJWT](refs, consumers)).Kind, jwtCalls, &configurationv1alpha1.KongCredentialJWT{}, []matchCase[body]{
			{name: "key and secret generated by Konnect are not compared", existing: body{}, desired: body{}},
			{name: "the default algorithm equals an unset one", existing: body{Key: ptr("iss")}, desired: body{Key: ptr("iss"), Algorithm: components.JWTWithoutParentsAlgorithmHs256.ToPointer()}},
			{name: "a key, an algorithm and a public key the spec sets", existing: body{Key: ptr("iss"), Secret: ptr("s")},
				desired: body{Key: ptr("other"), Algorithm: &rs256, RsaPublicKey: ptr("pem"), Secret: ptr("s")}, want: []string{"key", "algorithm", "rsa_public_key"}},
		})
	})
	t.Run("hmac", func(t *testing.T) {
		type body = components.HMACAuthWithoutParents
		checkMatches(t, HMACKind(credentialDeps[kongHMAC](refs, consumers)).Kind, hmacCalls, &configurationv1alpha1.KongCredentialHMAC{}, []matchCase[body]{
			{name: "a generated secret is not compared", existing: body{Username: "h"}, desired: body{Username: "h"}},
			{name: "another secret and username", existing: body{Username: "h", Secret: ptr("a")}, desired: body{Username: "g", Secret: ptr("b")}, want: []string{"username", "secret"}},
		})
	})
}

// exerciseCredentialCalls runs a credential kind's calls under a consumer,
// and checks that they do not reach the credentials of another consumer.
func exerciseCredentialCalls[D, A any](t *testing.T, calls coreCalls[D, A], body, changed func(uid string) D) {
	t.Helper()
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	other := p
	p.ParentID, other.ParentID = simulatedConsumer(t, s, p, "alice"), simulatedConsumer(t, s, p, "bob")
	uid := controller.TagKeyUID + ":1"
	otherUID := controller.TagKeyUID + ":2"
	if _, err := calls.doCreate(t.Context(), s.api, other, body(otherUID)); err != nil {
		t.Fatal(err)
	}
	if found, err := calls.findByUID(t.Context(), s.api, otherUID, p); err != nil || found != "" {
		t.Fatalf("another consumer's credential found: %q, %v", found, err)
	}
	exerciseCalls(t, s, p, calls, body(uid), changed(uid), uid)
	if all, err := calls.doList(t.Context(), s.api, other); err != nil || len(all) != 1 {
		t.Fatalf("the other consumer's credentials: %d, %v; want the one it had", len(all), err)
	}
}

func TestCredentialCallsAgainstTheSimulator(t *testing.T) {
	t.Run("basic-auth", func(t *testing.T) {
		exerciseCredentialCalls(t, basicAuthCalls,
			func(uid string) components.BasicAuthWithoutParents {
				return components.BasicAuthWithoutParents{Username: "u-" + uid, Password: "a", Tags: []string{uid}}
			},
			func(uid string) components.BasicAuthWithoutParents {
				return components.BasicAuthWithoutParents{Username: "u-" + uid, Password: "b", Tags: []string{uid}}
			})
	})
	t.Run("key-auth", func(t *testing.T) {
		exerciseCredentialCalls(t, apiKeyCalls,
			func(uid string) components.KeyAuthWithoutParents {
				return components.KeyAuthWithoutParents{Key: ptr("k-" + uid), Tags: []string{uid}}
			},
			func(uid string) components.KeyAuthWithoutParents {
				return components.KeyAuthWithoutParents{Key: ptr("k2-" + uid), Tags: []string{uid}}
			})
	})
	t.Run("acl", func(t *testing.T) {
		exerciseCredentialCalls(t, aclCalls,
			func(uid string) components.ACLWithoutParents {
				return components.ACLWithoutParents{Group: "admins", Tags: []string{uid}}
			},
			func(uid string) components.ACLWithoutParents {
				return components.ACLWithoutParents{Group: "users", Tags: []string{uid}}
			})
	})
	t.Run("jwt", func(t *testing.T) {
		exerciseCredentialCalls(t, jwtCalls,
			func(uid string) components.JWTWithoutParents {
				return components.JWTWithoutParents{Key: ptr("iss-" + uid), Tags: []string{uid}}
			},
			func(uid string) components.JWTWithoutParents {
				return components.JWTWithoutParents{Key: ptr("iss-" + uid), Secret: ptr("s"), Tags: []string{uid}}
			})
	})
	t.Run("hmac", func(t *testing.T) {
		exerciseCredentialCalls(t, hmacCalls,
			func(uid string) components.HMACAuthWithoutParents {
				return components.HMACAuthWithoutParents{Username: "h-" + uid, Tags: []string{uid}}
			},
			func(uid string) components.HMACAuthWithoutParents {
				return components.HMACAuthWithoutParents{Username: "h-" + uid, Secret: ptr("s"), Tags: []string{uid}}
			})
	})
}
