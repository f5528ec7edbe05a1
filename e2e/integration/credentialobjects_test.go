package integration

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// credentialCase drives one credential kind through the tests: each kind
// is set up with one Konnect field the tests write and read back.
type credentialCase struct {
	kind       string
	label      string // konghq.com/credential value of its Secrets
	collection string // Konnect's flat collection
	field      string // the Konnect field the tests set
	// hasSpecID is true for the kinds with a spec.id, which must not reach
	// Konnect.
	hasSpecID bool
	create    func(e *env, name, consumer, value string, adopt *commonv1alpha1.AdoptOptions)
	get       func(e *env, name string) (conditioned, *configurationv1alpha1.KongCredentialStatus)
	delete    func(e *env, name string) error
	list      func(e *env) []credentialObject
	// secretData is the data of a Secret that makes a credential with the
	// field set to value; as a Konnect entity, the credential's fields are
	// the same.
	secretData func(value string) map[string][]byte
}

// konnectFields returns the Konnect fields of the credential the tests
// create with the field set to value.
func (c credentialCase) konnectFields(value string) map[string]any {
	out := map[string]any{}
	for k, v := range c.secretData(value) {
		out[k] = string(v)
	}
	if c.label == "jwt" {
		out["algorithm"] = "HS256"
	}
	return out
}

// credentialObject is a credential as the Secret tests see it.
type credentialObject struct {
	meta  metav1.Object
	spec  any
	field string
}

// specID is what the kinds with spec.id set it to; Konnect must choose
// another ID.
const specID = "0000dddd-0000-4000-8000-000000000001"

type typedCredentialClient[T any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// credentialKindCase builds a credentialCase from typed functions.
func credentialKindCase[T interface {
	conditioned
	*PT
}, PT any](
	c credentialCase,
	client func(e *env) typedCredentialClient[T],
	list func(e *env) ([]PT, error),
	build func(consumer, value string, adopt *commonv1alpha1.AdoptOptions) T,
	field func(T) *string,
	status func(T) *configurationv1alpha1.KongCredentialStatus,
	spec func(T) any,
) credentialCase {
	c.create = func(e *env, name, consumer, value string, adopt *commonv1alpha1.AdoptOptions) {
		e.t.Helper()
		obj := build(consumer, value, adopt)
		obj.SetName(name)
		if _, err := client(e).Create(e.ctx, obj, metav1.CreateOptions{}); err != nil {
			e.t.Fatal(err)
		}
	}
	c.get = func(e *env, name string) (conditioned, *configurationv1alpha1.KongCredentialStatus) {
		e.t.Helper()
		obj, err := client(e).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		return obj, status(obj)
	}
	c.delete = func(e *env, name string) error { return client(e).Delete(e.ctx, name, metav1.DeleteOptions{}) }
	c.list = func(e *env) []credentialObject {
		e.t.Helper()
		items, err := list(e)
		if err != nil {
			e.t.Fatal(err)
		}
		out := make([]credentialObject, 0, len(items))
		for i := range items {
			obj := T(&items[i])
			out = append(out, credentialObject{meta: obj, spec: spec(obj), field: *field(obj)})
		}
		return out
	}
	return c
}

func credentialCases() []credentialCase {
	return []credentialCase{
		credentialKindCase[*configurationv1alpha1.KongCredentialBasicAuth, configurationv1alpha1.KongCredentialBasicAuth](
			credentialCase{kind: "KongCredentialBasicAuth", label: "basic-auth", collection: "basic-auths", field: "username",
				secretData: func(v string) map[string][]byte {
					return map[string][]byte{"username": []byte(v), "password": []byte("pw-" + v)}
				}},
			func(e *env) typedCredentialClient[*configurationv1alpha1.KongCredentialBasicAuth] {
				return e.cs.ConfigurationV1alpha1().KongCredentialBasicAuths(e.ns)
			},
			func(e *env) ([]configurationv1alpha1.KongCredentialBasicAuth, error) {
				l, err := e.cs.ConfigurationV1alpha1().KongCredentialBasicAuths(e.ns).List(e.ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				return l.Items, nil
			},
			func(consumer, v string, adopt *commonv1alpha1.AdoptOptions) *configurationv1alpha1.KongCredentialBasicAuth {
				return &configurationv1alpha1.KongCredentialBasicAuth{Spec: configurationv1alpha1.KongCredentialBasicAuthSpec{
					ConsumerRef: corev1.LocalObjectReference{Name: consumer}, Adopt: adopt,
					KongCredentialBasicAuthAPISpec: configurationv1alpha1.KongCredentialBasicAuthAPISpec{Username: v, Password: "pw-" + v},
				}}
			},
			func(o *configurationv1alpha1.KongCredentialBasicAuth) *string { return &o.Spec.Username },
			func(o *configurationv1alpha1.KongCredentialBasicAuth) *configurationv1alpha1.KongCredentialStatus {
				return &o.Status
			},
			func(o *configurationv1alpha1.KongCredentialBasicAuth) any { return o.Spec },
		),
		credentialKindCase[*configurationv1alpha1.KongCredentialAPIKey, configurationv1alpha1.KongCredentialAPIKey](
			credentialCase{kind: "KongCredentialAPIKey", label: "key-auth", collection: "key-auths", field: "key",
				secretData: func(v string) map[string][]byte { return map[string][]byte{"key": []byte(v)} }},
			func(e *env) typedCredentialClient[*configurationv1alpha1.KongCredentialAPIKey] {
				return e.cs.ConfigurationV1alpha1().KongCredentialAPIKeys(e.ns)
			},
			func(e *env) ([]configurationv1alpha1.KongCredentialAPIKey, error) {
				l, err := e.cs.ConfigurationV1alpha1().KongCredentialAPIKeys(e.ns).List(e.ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				return l.Items, nil
			},
			func(consumer, v string, adopt *commonv1alpha1.AdoptOptions) *configurationv1alpha1.KongCredentialAPIKey {
				return &configurationv1alpha1.KongCredentialAPIKey{Spec: configurationv1alpha1.KongCredentialAPIKeySpec{
					ConsumerRef: corev1.LocalObjectReference{Name: consumer}, Adopt: adopt,
					KongCredentialAPIKeyAPISpec: configurationv1alpha1.KongCredentialAPIKeyAPISpec{Key: v},
				}}
			},
			func(o *configurationv1alpha1.KongCredentialAPIKey) *string { return &o.Spec.Key },
			func(o *configurationv1alpha1.KongCredentialAPIKey) *configurationv1alpha1.KongCredentialStatus {
				return &o.Status
			},
			func(o *configurationv1alpha1.KongCredentialAPIKey) any { return o.Spec },
		),
		credentialKindCase[*configurationv1alpha1.KongCredentialACL, configurationv1alpha1.KongCredentialACL](
			credentialCase{kind: "KongCredentialACL", label: "acl", collection: "acls", field: "group",
				secretData: func(v string) map[string][]byte { return map[string][]byte{"group": []byte(v)} }},
			func(e *env) typedCredentialClient[*configurationv1alpha1.KongCredentialACL] {
				return e.cs.ConfigurationV1alpha1().KongCredentialACLs(e.ns)
			},
			func(e *env) ([]configurationv1alpha1.KongCredentialACL, error) {
				l, err := e.cs.ConfigurationV1alpha1().KongCredentialACLs(e.ns).List(e.ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				return l.Items, nil
			},
			func(consumer, v string, adopt *commonv1alpha1.AdoptOptions) *configurationv1alpha1.KongCredentialACL {
				return &configurationv1alpha1.KongCredentialACL{Spec: configurationv1alpha1.KongCredentialACLSpec{
					ConsumerRef: corev1.LocalObjectReference{Name: consumer}, Adopt: adopt,
					KongCredentialACLAPISpec: configurationv1alpha1.KongCredentialACLAPISpec{Group: v},
				}}
			},
			func(o *configurationv1alpha1.KongCredentialACL) *string { return &o.Spec.Group },
			func(o *configurationv1alpha1.KongCredentialACL) *configurationv1alpha1.KongCredentialStatus {
				return &o.Status
			},
			func(o *configurationv1alpha1.KongCredentialACL) any { return o.Spec },
		),
		credentialKindCase[*configurationv1alpha1.KongCredentialJWT, configurationv1alpha1.KongCredentialJWT](
			credentialCase{kind: "KongCredentialJWT", label: "jwt", collection: "jwts", field: "key", hasSpecID: true,
				secretData: func(v string) map[string][]byte {
					return map[string][]byte{"key": []byte(v), "algorithm": []byte("HS256"), "secret": []byte("s-" + v)}
				}},
			func(e *env) typedCredentialClient[*configurationv1alpha1.KongCredentialJWT] {
				return e.cs.ConfigurationV1alpha1().KongCredentialJWTs(e.ns)
			},
			func(e *env) ([]configurationv1alpha1.KongCredentialJWT, error) {
				l, err := e.cs.ConfigurationV1alpha1().KongCredentialJWTs(e.ns).List(e.ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				return l.Items, nil
			},
			func(consumer, v string, adopt *commonv1alpha1.AdoptOptions) *configurationv1alpha1.KongCredentialJWT {
				return &configurationv1alpha1.KongCredentialJWT{Spec: configurationv1alpha1.KongCredentialJWTSpec{
					ConsumerRef: corev1.LocalObjectReference{Name: consumer}, Adopt: adopt,
					KongCredentialJWTAPISpec: configurationv1alpha1.KongCredentialJWTAPISpec{ID: specID, Key: v, Algorithm: "HS256", Secret: "s-" + v},
				}}
			},
			func(o *configurationv1alpha1.KongCredentialJWT) *string { return &o.Spec.Key },
			func(o *configurationv1alpha1.KongCredentialJWT) *configurationv1alpha1.KongCredentialStatus {
				return &o.Status
			},
			func(o *configurationv1alpha1.KongCredentialJWT) any { return o.Spec },
		),
		credentialKindCase[*configurationv1alpha1.KongCredentialHMAC, configurationv1alpha1.KongCredentialHMAC](
			credentialCase{kind: "KongCredentialHMAC", label: "hmac", collection: "hmac-auths", field: "username", hasSpecID: true,
				secretData: func(v string) map[string][]byte {
					return map[string][]byte{"username": []byte(v), "secret": []byte("s-" + v)}
				}},
			func(e *env) typedCredentialClient[*configurationv1alpha1.KongCredentialHMAC] {
				return e.cs.ConfigurationV1alpha1().KongCredentialHMACs(e.ns)
			},
			func(e *env) ([]configurationv1alpha1.KongCredentialHMAC, error) {
				l, err := e.cs.ConfigurationV1alpha1().KongCredentialHMACs(e.ns).List(e.ctx, metav1.ListOptions{})
				if err != nil {
					return nil, err
				}
				return l.Items, nil
			},
			func(consumer, v string, adopt *commonv1alpha1.AdoptOptions) *configurationv1alpha1.KongCredentialHMAC {
				return &configurationv1alpha1.KongCredentialHMAC{Spec: configurationv1alpha1.KongCredentialHMACSpec{
					ConsumerRef: corev1.LocalObjectReference{Name: consumer}, Adopt: adopt,
					KongCredentialHMACAPISpec: configurationv1alpha1.KongCredentialHMACAPISpec{ID: specID, Username: v, Secret: "s-" + v},
				}}
			},
			func(o *configurationv1alpha1.KongCredentialHMAC) *string { return &o.Spec.Username },
			func(o *configurationv1alpha1.KongCredentialHMAC) *configurationv1alpha1.KongCredentialStatus {
				return &o.Status
			},
			func(o *configurationv1alpha1.KongCredentialHMAC) any { return o.Spec },
		),
	}
}
