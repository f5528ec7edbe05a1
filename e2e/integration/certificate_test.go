package integration

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

type (
	kongCertificate = *configurationv1alpha1.KongCertificate
	kongSNI         = *configurationv1alpha1.KongSNI
)

// pairs keeps the key pair made for each test object, so that an entity
// seeded in Konnect and the object that adopts it hold the same one.
var pairs sync.Map // "namespace/name" -> keyPair

func (e *env) pairFor(name string, ca bool) keyPair {
	e.t.Helper()
	key := fmt.Sprintf("%s/%s/ca=%v", e.ns, name, ca)
	if p, ok := pairs.Load(key); ok {
		return p.(keyPair)
	}
	p, _ := pairs.LoadOrStore(key, newKeyPair(e.t, name+".example.com", ca))
	return p.(keyPair)
}

func certificateObject(name string, pair keyPair) kongCertificate {
	return &configurationv1alpha1.KongCertificate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongCertificateSpec{
			ControlPlaneRef:        cpRef("cp"),
			Type:                   configurationv1alpha1.CertificateSourceInline,
			KongCertificateAPISpec: configurationv1alpha1.KongCertificateAPISpec{Cert: pair.Cert, Key: pair.Key},
		},
	}
}

// tagged checks that an entity carries tag; untag removes it.
func tagged(tag string) func(map[string]any) error {
	return func(ent map[string]any) error {
		if !slices.Contains(tagsOf(ent), tag) {
			return fmt.Errorf("tags %v lack %q", tagsOf(ent), tag)
		}
		return nil
	}
}

func untag(collection, tag string) func(e *env, cpID string, ent map[string]any) {
	return func(e *env, cpID string, ent map[string]any) {
		ent["tags"] = slices.DeleteFunc(tagsOf(ent), func(t string) bool { return t == tag })
		e.reput(cpID, collection, ent)
	}
}

var certificates = kindCase[kongCertificate]{
	kind: "KongCertificate", collection: "certificates", path: "core-entities/certificates",
	client: func(e *env) objectClient[kongCertificate] { return e.cs.ConfigurationV1alpha1().KongCertificates(e.ns) },
	object: func(e *env, name string) kongCertificate { return certificateObject(name, e.pairFor(name, false)) },
	setControlPlane: func(c kongCertificate, ref *commonv1alpha1.ControlPlaneRef) {
		c.Spec.ControlPlaneRef = ref
	},
	change:  func(c kongCertificate) { c.Spec.Tags = append(c.Spec.Tags, "rotation:2") },
	changed: tagged("rotation:2"),
	drift:   untag("certificates", "rotation:2"),
	adopt:   func(c kongCertificate, opts *commonv1alpha1.AdoptOptions) { c.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		pair := e.pairFor(name, false)
		if !matching {
			pair = e.pairFor(name+"-other", false)
		}
		return e.put(cpID, "certificates", map[string]any{"cert": pair.Cert, "key": pair.Key})
	},
}

func sniObject(name, certificate string) kongSNI {
	return &configurationv1alpha1.KongSNI{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongSNISpec{
			CertificateRef: commonv1alpha1.NamespacedRef{Name: certificate},
			KongSNIAPISpec: configurationv1alpha1.KongSNIAPISpec{Name: name + ".example.com"},
		},
	}
}

var snis = kindCase[kongSNI]{
	kind: "KongSNI", collection: "snis", path: "/snis",
	client: func(e *env) objectClient[kongSNI] { return e.cs.ConfigurationV1alpha1().KongSNIs(e.ns) },
	setup: func(e *env) {
		certificates.create(e, certificates.object(e, "cert"))
		certificates.programmed(e, "cert")
	},
	object: func(_ *env, name string) kongSNI { return sniObject(name, "cert") },
	change: func(s kongSNI) { s.Spec.Name = "renamed-" + s.Spec.Name },
	changed: func(ent map[string]any) error {
		if name, _ := ent["name"].(string); !strings.HasPrefix(name, "renamed-") {
			return fmt.Errorf("name = %v", ent["name"])
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["name"] = "drifted.example.com"
		e.reput(cpID, "snis", ent)
	},
	adopt: func(s kongSNI, opts *commonv1alpha1.AdoptOptions) { s.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		host := name + ".example.com"
		if !matching {
			host = "other-" + host
		}
		certID := certificates.get(e, "cert").Status.Konnect.ID
		return e.put(cpID, "snis", map[string]any{"name": host, "certificate": map[string]any{"id": certID}})
	},
}

func TestCertificate(t *testing.T) { certificates.test(t) }
func TestSNI(t *testing.T)         { snis.test(t) }

func fromSecrets(secret, alt *commonv1alpha1.NamespacedRef) func(kongCertificate) {
	return func(c kongCertificate) {
		c.Spec.Type = configurationv1alpha1.CertificateSourceSecretRef
		c.Spec.Cert, c.Spec.Key = "", ""
		c.Spec.SecretRef, c.Spec.SecretRefAlt = secret, alt
	}
}

func (e *env) createCertificate(name string, mutate ...func(kongCertificate)) {
	e.t.Helper()
	c := certificates.object(e, name)
	for _, m := range mutate {
		m(c)
	}
	certificates.create(e, c)
}

// TestCertificateFromSecrets: a secretRef certificate sends the tls.crt and
// tls.key of its Secret (and of secretRefAlt as cert_alt/key_alt); a change
// of the Secret reaches Konnect at once; a missing Secret or key is
// reported on SecretRefValid, a Secret in another namespace needs a grant
// to core/Secret, and each is fixed without touching the certificate.
func TestCertificateFromSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	other := e.addNamespace()
	entity := func(name string) map[string]any {
		t.Helper()
		ent, err := certificates.entity(e, cpID, certificates.programmed(e, name))
		if err != nil {
			t.Fatal(err)
		}
		return ent
	}

	t.Run("both pairs come from their Secrets, and follow them", func(t *testing.T) {

		defer e.use(t)()
		main, alt := newKeyPair(t, "main.example", false), newKeyPair(t, "alt.example", false)
		e.tlsSecret(e.ns, "main", main)
		e.tlsSecret(e.ns, "alt", alt)
		e.createCertificate("pair", fromSecrets(&commonv1alpha1.NamespacedRef{Name: "main"}, &commonv1alpha1.NamespacedRef{Name: "alt"}))
		ent := entity("pair")
		if ent["cert"] != main.Cert || ent["key"] != main.Key || ent["cert_alt"] != alt.Cert || ent["key_alt"] != alt.Key {
			t.Fatalf("Konnect certificate does not hold the Secrets' pairs: %v", ent)
		}
		if err := conditionIs(certificates.get(e, "pair"), commonv1alpha1.ConditionSecretRefValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid); err != nil {
			t.Fatal(err)
		}
		e.settle()
		rotated := newKeyPair(t, "main.example", false)
		e.updateSecret(e.ns, "main", map[string]string{"tls.crt": rotated.Cert, "tls.key": rotated.Key})
		e.eventually("the rotated Secret reaches Konnect", func() error {
			if ent := entity("pair"); ent["cert"] != rotated.Cert {
				return fmt.Errorf("Konnect still holds the old certificate")
			}
			return nil
		})
	})
	t.Run("DER in the Secret, as Kong Operator's samples have it, is sent as PEM", func(t *testing.T) {
		defer e.use(t)()
		pair := newKeyPair(t, "der.example", false)
		e.binarySecret(e.ns, "der", map[string][]byte{"tls.crt": der(t, pair.Cert), "tls.key": der(t, pair.Key)})
		e.createCertificate("der", fromSecrets(&commonv1alpha1.NamespacedRef{Name: "der"}, nil))
		if ent := entity("der"); ent["cert"] != pair.Cert || ent["key"] != pair.Key {
			t.Fatalf("Konnect certificate %v, want the Secret's pair in PEM", ent)
		}
	})
	t.Run("a Secret that holds neither PEM nor DER is refused naming the key", func(t *testing.T) {
		defer e.use(t)()
		pair := newKeyPair(t, "garbled.example", false)
		e.binarySecret(e.ns, "garbled", map[string][]byte{"tls.crt": der(t, pair.Cert), "tls.key": {0x30, 0x03, 0x02, 0x01, 0x00}})
		calls := e.callsBesidesListings("", "/certificates")
		e.createCertificate("garbled", fromSecrets(&commonv1alpha1.NamespacedRef{Name: "garbled"}, nil))
		c := certificates.refused(e, "garbled", commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid)
		if msg := meta.FindStatusCondition(c.Status.Conditions, commonv1alpha1.ConditionSecretRefValid).Message; !strings.Contains(msg, `"tls.key" holds neither PEM nor a DER private key`) {
			t.Fatalf("message %q does not say what is wrong with which key", msg)
		}
		e.settle()
		if n := e.callsBesidesListings("", "/certificates") - calls; n != 0 {
			t.Fatalf("%d calls to Konnect's certificates for a Secret that holds no key", n)
		}
	})
	t.Run("a missing Secret waits until it exists", func(t *testing.T) {
		defer e.use(t)()
		e.createCertificate("absent", fromSecrets(&commonv1alpha1.NamespacedRef{Name: "later"}, nil))
		certificates.waiting(e, "absent", commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid)
		pair := newKeyPair(t, "later.example", false)
		e.tlsSecret(e.ns, "later", pair)
		if ent := entity("absent"); ent["cert"] != pair.Cert {
			t.Fatalf("Konnect certificate %v", ent)
		}
	})
	t.Run("a Secret without konghq.com/secret=true is read once labelled", func(t *testing.T) {
		defer e.use(t)()
		pair := newKeyPair(t, "unlabelled.example", false)
		unlabelled := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "unlabelled"},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{"tls.crt": []byte(pair.Cert), "tls.key": []byte(pair.Key)},
		}
		if _, err := e.kube.CoreV1().Secrets(e.ns).Create(e.ctx, unlabelled, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.createCertificate("unlabelled", fromSecrets(&commonv1alpha1.NamespacedRef{Name: "unlabelled"}, nil))
		c := certificates.refused(e, "unlabelled", commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid)
		if msg := meta.FindStatusCondition(c.Status.Conditions, commonv1alpha1.ConditionSecretRefValid).Message; !strings.Contains(msg, "lacks the label konghq.com/secret=true") {
			t.Fatalf("message %q does not name the label", msg)
		}
		// Labelled, it is read, and follows its changes.
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, commonv1alpha1.LabelSecret)
		if _, err := e.kube.CoreV1().Secrets(e.ns).Patch(e.ctx, "unlabelled", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		if ent := entity("unlabelled"); ent["cert"] != pair.Cert {
			t.Fatalf("Konnect certificate %v", ent)
		}
		rotated := newKeyPair(t, "unlabelled.example", false)
		e.updateSecret(e.ns, "unlabelled", map[string]string{"tls.crt": rotated.Cert, "tls.key": rotated.Key})
		e.eventually("the rotated Secret reaches Konnect", func() error {
			if ent := entity("unlabelled"); ent["cert"] != rotated.Cert {
				return fmt.Errorf("Konnect still holds the old certificate")
			}
			return nil
		})
	})
	t.Run("a Secret without tls.key is refused until it has one", func(t *testing.T) {
		defer e.use(t)()
		pair := newKeyPair(t, "partial.example", false)
		e.secret(e.ns, "partial", map[string]string{"tls.crt": pair.Cert})
		e.createCertificate("partial", fromSecrets(&commonv1alpha1.NamespacedRef{Name: "partial"}, nil))
		c := certificates.refused(e, "partial", commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid)
		if msg := meta.FindStatusCondition(c.Status.Conditions, commonv1alpha1.ConditionSecretRefValid).Message; !strings.Contains(msg, "tls.key") {
			t.Fatalf("message %q does not name the missing key", msg)
		}
		e.updateSecret(e.ns, "partial", map[string]string{"tls.crt": pair.Cert, "tls.key": pair.Key})
		entity("partial")
	})
	t.Run("a Secret in another namespace needs a grant", func(t *testing.T) {
		defer e.use(t)()
		e.tlsSecret(other, "remote", newKeyPair(t, "remote.example", false))
		e.createCertificate("cross", fromSecrets(&commonv1alpha1.NamespacedRef{Name: "remote", Namespace: other}, nil))
		certificates.refused(e, "cross", commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonRefNotPermitted)
		e.settle()
		e.grant(other, "certs-to-secrets", "core", "Secret", grantFrom{"configuration.konghq.com", "KongCertificate", e.ns})
		entity("cross")
		if err := conditionIs(certificates.get(e, "cross"), commonv1alpha1.ConditionResolvedRefs, metav1.ConditionTrue, commonv1alpha1.ReasonResolvedRefs); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCertificateVaultReferencesPassThrough: vault references are sent as
// they are, for the data planes to resolve.
func TestCertificateVaultReferencesPassThrough(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createCertificate("vaulted", func(c kongCertificate) {
		c.Spec.Cert, c.Spec.Key = "{vault://env/tls-cert}", "{vault://env/tls-key}"
	})
	ent, err := certificates.entity(e, cpID, certificates.programmed(e, "vaulted"))
	if err != nil {
		t.Fatal(err)
	}
	if ent["cert"] != "{vault://env/tls-cert}" || ent["key"] != "{vault://env/tls-key}" {
		t.Fatalf("Konnect certificate %v, want the vault references", ent)
	}
}

// TestSNICertificateReference: an SNI waits for its certificate to exist
// and be Programmed, inherits its control plane, and one in another
// namespace needs a grant (reported on ResolvedRefs).
func TestSNICertificateReference(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	other := e.addNamespace()

	t.Run("missing", func(t *testing.T) {

		defer e.use(t)()
		snis.create(e, sniObject("orphan", "later"))
		snis.waiting(e, "orphan", commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ReasonInvalid)
		e.createCertificate("later")
		certID := certificates.programmed(e, "later").Status.Konnect.ID
		s := snis.programmed(e, "orphan")
		if s.Status.Konnect.CertificateID != certID || s.Status.Konnect.ControlPlaneID != cpID {
			t.Fatalf("status %+v, want certificate %s in control plane %s", s.Status.Konnect, certID, cpID)
		}
		ent, err := snis.entity(e, cpID, s)
		if err != nil {
			t.Fatal(err)
		}
		if refID(ent, "certificate") != certID {
			t.Fatalf("Konnect SNI %v is not under certificate %s", ent, certID)
		}
	})
	t.Run("not Programmed", func(t *testing.T) {
		defer e.use(t)()
		e.createCertificate("idle", func(c kongCertificate) { c.Spec.ControlPlaneRef = cpRef("nowhere") })
		snis.create(e, sniObject("waiting", "idle"))
		snis.waiting(e, "waiting", commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ReasonInvalid)
		certificates.update(e, "idle", func(c kongCertificate) { c.Spec.ControlPlaneRef = cpRef("cp") })
		snis.programmed(e, "waiting")
	})
	t.Run("another namespace needs a grant", func(t *testing.T) {
		defer e.use(t)()
		e.readyIn(other, "cp")
		remote := certificateObject("remote", newKeyPair(t, "remote.example", false))
		if _, err := e.cs.ConfigurationV1alpha1().KongCertificates(other).Create(e.ctx, remote, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.programmedIn(other, certificates.kind, func() (konnectObject, error) {
			return e.cs.ConfigurationV1alpha1().KongCertificates(other).Get(e.ctx, "remote", metav1.GetOptions{})
		})
		s := sniObject("cross", "remote")
		s.Spec.CertificateRef.Namespace = other
		snis.create(e, s)
		snis.refused(e, "cross", commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonRefNotPermitted)
		e.settle()
		e.grant(other, "snis-to-certs", "configuration.konghq.com", "KongCertificate",
			grantFrom{"configuration.konghq.com", "KongSNI", e.ns})
		snis.programmed(e, "cross")
	})
}
