package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// The five KongCredential kinds through the shared per-kind harness
// (kindcase_test.go). Their parent is a consumer, "alice", not a control
// plane: they inherit its control plane. Each kind is driven by one field
// (credentialCase.field), the one the tests of its Secrets use too.

type (
	basicAuthCredential = *configurationv1alpha1.KongCredentialBasicAuth
	apiKeyCredential    = *configurationv1alpha1.KongCredentialAPIKey
	aclCredential       = *configurationv1alpha1.KongCredentialACL
	jwtCredential       = *configurationv1alpha1.KongCredentialJWT
	hmacCredential      = *configurationv1alpha1.KongCredentialHMAC
)

// credentialKind is the kindCase of a credential kind: build makes one of
// the consumer "alice" with its field set to value, value points at that
// field, and adopt sets spec.adopt.
func credentialKind[T konnectObject](
	kind string,
	client func(e *env) objectClient[T],
	build func(value string) T,
	value func(T) *string,
	adopt func(T, *commonv1alpha1.AdoptOptions),
) kindCase[T] {
	var c credentialCase
	for _, each := range credentialCases() {
		if each.kind == kind {
			c = each
		}
	}
	return kindCase[T]{
		kind: kind, collection: c.collection, path: "/" + strings.TrimSuffix(c.collection, "s"),
		client: client,
		setup: func(e *env) {
			if _, err := consumers.client(e).Get(e.ctx, "alice", metav1.GetOptions{}); apierrors.IsNotFound(err) {
				e.createConsumer("alice")
			}
			e.programmedConsumer("alice")
		},
		object: func(_ *env, name string) T {
			obj := build(name + "-v1")
			obj.SetName(name)
			return obj
		},
		change: func(obj T) { *value(obj) = obj.GetName() + "-v2" },
		changed: func(ent map[string]any) error {
			if s, _ := ent[c.field].(string); !strings.HasSuffix(s, "-v2") {
				return fmt.Errorf("%s = %v, want …-v2", c.field, ent[c.field])
			}
			return nil
		},
		drift: func(e *env, cpID string, ent map[string]any) {
			ent[c.field] = "drifted-" + fmt.Sprint(ent["id"])
			e.reput(cpID, c.collection, ent)
		},
		adopt: adopt,
		seed: func(e *env, cpID, name string, matching bool) string {
			v := name + "-v1"
			if !matching {
				v = "theirs-" + name
			}
			consumerID := consumers.get(e, "alice").Status.Konnect.ID
			if c.label == "basic-auth" {
				// Through Konnect's API, which keeps only a hash of the
				// password, as a listing then shows it.
				res, err := e.konnect().BasicAuths.CreateBasicAuthWithConsumer(e.ctx, operations.CreateBasicAuthWithConsumerRequest{
					ControlPlaneID: cpID, ConsumerIDForNestedEntities: consumerID,
					BasicAuthWithoutParents: components.BasicAuthWithoutParents{Username: v, Password: "pw-" + v},
				})
				if err != nil {
					e.t.Fatal(err)
				}
				return *res.GetBasicAuth().ID
			}
			ent := c.konnectFields(v)
			ent["consumer"] = map[string]any{"id": consumerID}
			return e.put(cpID, c.collection, ent)
		},
		differs: c.field,
	}
}

var alice = corev1.LocalObjectReference{Name: "alice"}

var basicAuthCredentials = credentialKind("KongCredentialBasicAuth",
	func(e *env) objectClient[basicAuthCredential] {
		return e.cs.ConfigurationV1alpha1().KongCredentialBasicAuths(e.ns)
	},
	func(v string) basicAuthCredential {
		return &configurationv1alpha1.KongCredentialBasicAuth{Spec: configurationv1alpha1.KongCredentialBasicAuthSpec{
			ConsumerRef:                    alice,
			KongCredentialBasicAuthAPISpec: configurationv1alpha1.KongCredentialBasicAuthAPISpec{Username: v, Password: "pw-" + v},
		}}
	},
	func(o basicAuthCredential) *string { return &o.Spec.Username },
	func(o basicAuthCredential, opts *commonv1alpha1.AdoptOptions) { o.Spec.Adopt = opts },
)

var apiKeyCredentials = credentialKind("KongCredentialAPIKey",
	func(e *env) objectClient[apiKeyCredential] {
		return e.cs.ConfigurationV1alpha1().KongCredentialAPIKeys(e.ns)
	},
	func(v string) apiKeyCredential {
		return &configurationv1alpha1.KongCredentialAPIKey{Spec: configurationv1alpha1.KongCredentialAPIKeySpec{
			ConsumerRef:                 alice,
			KongCredentialAPIKeyAPISpec: configurationv1alpha1.KongCredentialAPIKeyAPISpec{Key: v},
		}}
	},
	func(o apiKeyCredential) *string { return &o.Spec.Key },
	func(o apiKeyCredential, opts *commonv1alpha1.AdoptOptions) { o.Spec.Adopt = opts },
)

var aclCredentials = credentialKind("KongCredentialACL",
	func(e *env) objectClient[aclCredential] { return e.cs.ConfigurationV1alpha1().KongCredentialACLs(e.ns) },
	func(v string) aclCredential {
		return &configurationv1alpha1.KongCredentialACL{Spec: configurationv1alpha1.KongCredentialACLSpec{
			ConsumerRef:              alice,
			KongCredentialACLAPISpec: configurationv1alpha1.KongCredentialACLAPISpec{Group: v},
		}}
	},
	func(o aclCredential) *string { return &o.Spec.Group },
	func(o aclCredential, opts *commonv1alpha1.AdoptOptions) { o.Spec.Adopt = opts },
)

// jwtCredentials and hmacCredentials set spec.id, which Konnect must not
// receive (TestCredentialWaitsForItsConsumer checks).
var jwtCredentials = credentialKind("KongCredentialJWT",
	func(e *env) objectClient[jwtCredential] { return e.cs.ConfigurationV1alpha1().KongCredentialJWTs(e.ns) },
	func(v string) jwtCredential {
		return &configurationv1alpha1.KongCredentialJWT{Spec: configurationv1alpha1.KongCredentialJWTSpec{
			ConsumerRef:              alice,
			KongCredentialJWTAPISpec: configurationv1alpha1.KongCredentialJWTAPISpec{ID: specID, Key: v, Algorithm: "HS256", Secret: "s-" + v},
		}}
	},
	func(o jwtCredential) *string { return &o.Spec.Key },
	func(o jwtCredential, opts *commonv1alpha1.AdoptOptions) { o.Spec.Adopt = opts },
)

var hmacCredentials = credentialKind("KongCredentialHMAC",
	func(e *env) objectClient[hmacCredential] {
		return e.cs.ConfigurationV1alpha1().KongCredentialHMACs(e.ns)
	},
	func(v string) hmacCredential {
		return &configurationv1alpha1.KongCredentialHMAC{Spec: configurationv1alpha1.KongCredentialHMACSpec{
			ConsumerRef:               alice,
			KongCredentialHMACAPISpec: configurationv1alpha1.KongCredentialHMACAPISpec{ID: specID, Username: v, Secret: "s-" + v},
		}}
	},
	func(o hmacCredential) *string { return &o.Spec.Username },
	func(o hmacCredential, opts *commonv1alpha1.AdoptOptions) { o.Spec.Adopt = opts },
)

// TestCredentialKinds walks the five kinds in one environment, under one
// consumer: each kind's cost is then its own objects, not a namespace and
// an operator.
func TestCredentialKinds(t *testing.T) {
	testTogether(t, basicAuthCredentials, apiKeyCredentials, aclCredentials, jwtCredentials, hmacCredentials)
}
