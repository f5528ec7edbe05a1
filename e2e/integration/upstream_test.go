package integration

import (
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

type (
	kongUpstream = *configurationv1alpha1.KongUpstream
	kongTarget   = *configurationv1alpha1.KongTarget
)

func upstreamObject(name string) kongUpstream {
	return &configurationv1alpha1.KongUpstream{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongUpstreamSpec{
			ControlPlaneRef:     cpRef("cp"),
			KongUpstreamAPISpec: configurationv1alpha1.KongUpstreamAPISpec{Name: name + ".upstream.internal"},
		},
	}
}

var upstreams = kindCase[kongUpstream]{
	kind: "KongUpstream", collection: "upstreams", path: "core-entities/upstreams",
	client: func(e *env) objectClient[kongUpstream] { return e.cs.ConfigurationV1alpha1().KongUpstreams(e.ns) },
	object: func(_ *env, name string) kongUpstream { return upstreamObject(name) },
	setControlPlane: func(u kongUpstream, ref *commonv1alpha1.ControlPlaneRef) {
		u.Spec.ControlPlaneRef = ref
	},
	change: func(u kongUpstream) { u.Spec.Algorithm = "least-connections" },
	changed: func(ent map[string]any) error {
		if ent["algorithm"] != "least-connections" {
			return fmt.Errorf("algorithm = %v", ent["algorithm"])
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["algorithm"] = "round-robin"
		e.reput(cpID, "upstreams", ent)
	},
	adopt: func(u kongUpstream, opts *commonv1alpha1.AdoptOptions) { u.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		algorithm := "round-robin"
		if !matching {
			algorithm = "consistent-hashing"
		}
		return e.put(cpID, "upstreams", map[string]any{"name": name + ".upstream.internal", "algorithm": algorithm})
	},
}

var targets = kindCase[kongTarget]{
	kind: "KongTarget", collection: "targets", path: "/targets",
	client: func(e *env) objectClient[kongTarget] { return e.cs.ConfigurationV1alpha1().KongTargets(e.ns) },
	setup: func(e *env) {
		upstreams.create(e, upstreamObject("up"))
		upstreams.programmed(e, "up")
	},
	object: func(_ *env, name string) kongTarget { return targetObject(name, "up") },
	change: func(t kongTarget) { t.Spec.Weight = 50 },
	changed: func(ent map[string]any) error {
		if ent["weight"] != 50.0 {
			return fmt.Errorf("weight = %v", ent["weight"])
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["weight"] = 5
		e.reput(cpID, "targets", ent)
	},
	adopt: func(t kongTarget, opts *commonv1alpha1.AdoptOptions) { t.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		weight := 100
		if !matching {
			weight = 7
		}
		upstreamID := upstreams.get(e, "up").Status.Konnect.ID
		return e.put(cpID, "targets", map[string]any{
			"target": name + ".targets.internal:8080", "weight": weight, "upstream": map[string]any{"id": upstreamID},
		})
	},
}

func targetObject(name, upstream string) kongTarget {
	return &configurationv1alpha1.KongTarget{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongTargetSpec{
			UpstreamRef:       commonv1alpha1.NamespacedRef{Name: upstream},
			KongTargetAPISpec: configurationv1alpha1.KongTargetAPISpec{Target: name + ".targets.internal:8080", Weight: 100},
		},
	}
}

func TestUpstream(t *testing.T) { upstreams.test(t) }
func TestTarget(t *testing.T)   { targets.test(t) }

// TestUpstreamClientCertificate: clientCertificateRef sends the KongCertificate's
// Konnect ID as client_certificate once it is Programmed in the same control
// plane; a missing, unprogrammed, foreign or unpermitted certificate is
// reported on KongCertificateRefValid (or ResolvedRefs) and nothing is sent.
// The deprecated client_certificate.id is passed through.
func TestUpstreamClientCertificate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	other := e.addNamespace()
	certificates.create(e, certificateObject("client", newKeyPair(t, "client.example", false)))
	certID := certificates.programmed(e, "client").Status.Konnect.ID
	withCert := func(ns, name string) func(kongUpstream) {
		return func(u kongUpstream) {
			u.Spec.ClientCertificateRef = &commonv1alpha1.NamespacedRef{Name: name, Namespace: ns}
		}
	}
	create := func(name string, mutate func(kongUpstream)) {
		u := upstreamObject(name)
		mutate(u)
		upstreams.create(e, u)
	}
	sendsCertificate := func(name, want string) {
		t.Helper()
		u := upstreams.programmed(e, name)
		if u.Status.Konnect.CertificateID != want {
			t.Fatalf("status certificateID %q, want %q", u.Status.Konnect.CertificateID, want)
		}
		ent, err := upstreams.entity(e, cpID, u)
		if err != nil {
			t.Fatal(err)
		}
		if got := refID(ent, "client_certificate"); got != want {
			t.Fatalf("Konnect client_certificate %q, want %q", got, want)
		}
	}

	t.Run("a Programmed certificate is sent", func(t *testing.T) {

		defer e.use(t)()
		create("valid", withCert("", "client"))
		sendsCertificate("valid", certID)
		if err := conditionIs(upstreams.get(e, "valid"), commonv1alpha1.ConditionKongCertificateRefValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the deprecated raw ID is passed through", func(t *testing.T) {
		defer e.use(t)()
		create("raw", func(u kongUpstream) {
			u.Spec.ClientCertificate = &configurationv1alpha1.UpstreamClientCertificate{ID: &certID}
		})
		ent, err := upstreams.entity(e, cpID, upstreams.programmed(e, "raw"))
		if err != nil {
			t.Fatal(err)
		}
		if got := refID(ent, "client_certificate"); got != certID {
			t.Fatalf("Konnect client_certificate %q, want %q", got, certID)
		}
	})
	t.Run("a missing certificate waits until it exists", func(t *testing.T) {
		defer e.use(t)()
		create("missing", withCert("", "later"))
		upstreams.waiting(e, "missing", commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ReasonInvalid)
		certificates.create(e, certificateObject("later", newKeyPair(t, "later.example", false)))
		sendsCertificate("missing", certificates.programmed(e, "later").Status.Konnect.ID)
	})
	t.Run("an unprogrammed certificate waits until it is Programmed", func(t *testing.T) {
		defer e.use(t)()
		cert := certificateObject("idle", newKeyPair(t, "idle.example", false))
		cert.Spec.ControlPlaneRef = cpRef("nowhere")
		certificates.create(e, cert)
		create("unprogrammed", withCert("", "idle"))
		u := upstreams.waiting(e, "unprogrammed", commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ReasonInvalid)
		if u.Status.Konnect.GetKonnectID() != "" {
			t.Fatal("the upstream was created without its certificate")
		}
		certificates.update(e, "idle", func(c kongCertificate) { c.Spec.ControlPlaneRef = cpRef("cp") })
		sendsCertificate("unprogrammed", certificates.programmed(e, "idle").Status.Konnect.ID)
	})
	t.Run("a certificate of another control plane is refused", func(t *testing.T) {
		defer e.use(t)()
		e.readyIn(e.ns, "cp2")
		cert := certificateObject("elsewhere", newKeyPair(t, "elsewhere.example", false))
		cert.Spec.ControlPlaneRef = cpRef("cp2")
		certificates.create(e, cert)
		certificates.programmed(e, "elsewhere")
		create("foreign", withCert("", "elsewhere"))
		upstreams.refused(e, "foreign", commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ReasonInvalid)
	})
	t.Run("a certificate in another namespace needs a grant", func(t *testing.T) {
		defer e.use(t)()
		// The certificate lives in the other namespace but in this
		// namespace's control plane, which needs a grant of its own.
		e.grant(e.ns, "certs-to-cp", "konnect.konghq.com", "KonnectGatewayControlPlane",
			grantFrom{"configuration.konghq.com", "KongCertificate", other})
		cert := certificateObject("shared", newKeyPair(t, "shared.example", false))
		cert.Namespace = other
		cert.Spec.ControlPlaneRef = cpRefIn(e.ns, "cp")
		if _, err := e.cs.ConfigurationV1alpha1().KongCertificates(other).Create(e.ctx, cert, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.programmedIn(other, certificates.kind, func() (konnectObject, error) {
			return e.cs.ConfigurationV1alpha1().KongCertificates(other).Get(e.ctx, "shared", metav1.GetOptions{})
		})
		create("cross", withCert(other, "shared"))
		upstreams.refused(e, "cross", commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonRefNotPermitted)
		e.settle()
		e.grant(other, "upstreams-to-certs", "configuration.konghq.com", "KongCertificate",
			grantFrom{"configuration.konghq.com", "KongUpstream", e.ns})
		u := upstreams.programmed(e, "cross")
		shared, err := e.cs.ConfigurationV1alpha1().KongCertificates(other).Get(e.ctx, "shared", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if u.Status.Konnect.CertificateID != shared.Status.Konnect.ID || shared.Status.Konnect.ID == "" {
			t.Fatalf("status certificateID %q, want %q", u.Status.Konnect.CertificateID, shared.Status.Konnect.ID)
		}
		if err := conditionIs(u, commonv1alpha1.ConditionResolvedRefs, metav1.ConditionTrue, commonv1alpha1.ReasonResolvedRefs); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("removing the reference detaches the certificate", func(t *testing.T) {
		defer e.use(t)()
		upstreams.update(e, "valid", func(u kongUpstream) { u.Spec.ClientCertificateRef = nil })
		e.eventually("client_certificate cleared in Konnect", func() error {
			ent, err := upstreams.entity(e, cpID, upstreams.get(e, "valid"))
			if err != nil {
				return err
			}
			if got := refID(ent, "client_certificate"); got != "" {
				return fmt.Errorf("client_certificate %q", got)
			}
			return nil
		})
	})
}

// TestTargetUpstreamReference: a target waits for its upstream to exist and
// be Programmed, and one in another namespace needs a grant; the refusal is
// reported on KongUpstreamRefValid, not ResolvedRefs.
func TestTargetUpstreamReference(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	other := e.addNamespace()

	t.Run("missing", func(t *testing.T) {

		defer e.use(t)()
		targets.create(e, targetObject("orphan", "later"))
		targets.waiting(e, "orphan", commonv1alpha1.ConditionKongUpstreamRefValid, commonv1alpha1.ReasonInvalid)
		upstreams.create(e, upstreamObject("later"))
		upstreamID := upstreams.programmed(e, "later").Status.Konnect.ID
		tg := targets.programmed(e, "orphan")
		if tg.Status.Konnect.UpstreamID != upstreamID || tg.Status.Konnect.ControlPlaneID != cpID {
			t.Fatalf("status %+v, want upstream %s in control plane %s", tg.Status.Konnect, upstreamID, cpID)
		}
		ent, err := targets.entity(e, cpID, tg)
		if err != nil {
			t.Fatal(err)
		}
		if refID(ent, "upstream") != upstreamID {
			t.Fatalf("Konnect target %v is not under upstream %s", ent, upstreamID)
		}
	})
	t.Run("not Programmed", func(t *testing.T) {
		defer e.use(t)()
		u := upstreamObject("idle")
		u.Spec.ControlPlaneRef = cpRef("nowhere")
		upstreams.create(e, u)
		targets.create(e, targetObject("waiting", "idle"))
		targets.waiting(e, "waiting", commonv1alpha1.ConditionKongUpstreamRefValid, commonv1alpha1.ReasonInvalid)
		upstreams.update(e, "idle", func(u kongUpstream) { u.Spec.ControlPlaneRef = cpRef("cp") })
		targets.programmed(e, "waiting")
	})
	t.Run("another namespace needs a grant", func(t *testing.T) {
		defer e.use(t)()
		otherCP := e.readyIn(other, "cp")
		u := upstreamObject("remote")
		u.Namespace = other
		if _, err := e.cs.ConfigurationV1alpha1().KongUpstreams(other).Create(e.ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		tg := targetObject("cross", "remote")
		tg.Spec.UpstreamRef.Namespace = other
		e.programmedIn(other, upstreams.kind, func() (konnectObject, error) {
			return e.cs.ConfigurationV1alpha1().KongUpstreams(other).Get(e.ctx, "remote", metav1.GetOptions{})
		})
		targets.create(e, tg)
		refused := targets.refused(e, "cross", commonv1alpha1.ConditionKongUpstreamRefValid, commonv1alpha1.ReasonRefNotPermitted)
		e.settle()
		if err := conditionIs(refused, commonv1alpha1.ConditionResolvedRefs, metav1.ConditionFalse, ""); err == nil {
			t.Fatal("the refusal is reported on ResolvedRefs")
		}
		e.grant(other, "targets-to-upstreams", "configuration.konghq.com", "KongUpstream",
			grantFrom{"configuration.konghq.com", "KongTarget", e.ns})
		if got := targets.programmed(e, "cross").Status.Konnect.ControlPlaneID; got != otherCP {
			t.Fatalf("the target is in control plane %s, want its upstream's %s", got, otherCP)
		}
	})
}

// TestUpstreamDeletedBeforeItsTargets: Konnect refuses to delete an upstream
// with targets; the operator deletes them first, and the KongTargets left
// behind report their upstream gone and can then be deleted.
func TestUpstreamDeletedBeforeItsTargets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	upstreams.create(e, upstreamObject("up"))
	upstreams.programmed(e, "up")
	for _, name := range []string{"a", "b"} {
		targets.create(e, targetObject(name, "up"))
		targets.programmed(e, name)
	}
	upstreams.deleteAndWait(e, "up")
	if n := len(e.entities(cpID, "upstreams")) + len(e.entities(cpID, "targets")); n != 0 {
		t.Fatalf("%d upstreams and targets left in Konnect", n)
	}
	targets.waiting(e, "a", commonv1alpha1.ConditionKongUpstreamRefValid, commonv1alpha1.ReasonInvalid)
	targets.deleteAndWait(e, "a")
	if _, err := targets.client(e).Get(e.ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("target a: %v", err)
	}
}
