package integration

import (
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

func https(s *configurationv1alpha1.KongService) { s.Spec.Protocol = "https"; s.Spec.Port = 443 }

func withCertificates(ns, client string, cas ...string) func(*configurationv1alpha1.KongService) {
	return func(s *configurationv1alpha1.KongService) {
		if client != "" {
			s.Spec.ClientCertificateRef = &commonv1alpha1.NamespacedRef{Name: client, Namespace: ns}
		}
		for _, ca := range cas {
			s.Spec.CACertificateRefs = append(s.Spec.CACertificateRefs, commonv1alpha1.NamespacedRef{Name: ca, Namespace: ns})
		}
	}
}

func caIDsOf(ent map[string]any) []string {
	raw, _ := ent["ca_certificates"].([]any)
	out := make([]string, 0, len(raw))
	for _, id := range raw {
		out = append(out, fmt.Sprint(id))
	}
	return out
}

// TestServiceCertificates: a service's clientCertificateRef and
// caCertificateRefs reach Konnect as client_certificate and ca_certificates
// (and the status as certificateID and caCertificateIDs) once each
// certificate is Programmed in the service's control plane; a missing or
// unprogrammed one is reported on KongCertificateRefValid or
// KongCACertificateRefsValid, one in another namespace needs a grant.
func TestServiceCertificates(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	other := e.addNamespace()
	e.createCertificate("client")
	e.createCACertificate("ca1")
	e.createCACertificate("ca2")
	clientID := certificates.programmed(e, "client").Status.Konnect.ID
	ca1, ca2 := caCertificates.programmed(e, "ca1").Status.Konnect.ID, caCertificates.programmed(e, "ca2").Status.Konnect.ID
	sends := func(name, client string, cas ...string) {
		t.Helper()
		svc := e.programmedService(name)
		st := svc.Status.Konnect
		if st.CertificateID != client || !slices.Equal(st.CACertificateIDs, cas) {
			t.Fatalf("status certificateID %q, caCertificateIDs %v; want %q, %v", st.CertificateID, st.CACertificateIDs, client, cas)
		}
		ent := e.serviceEntity(cpID, st.ID)
		if refID(ent, "client_certificate") != client || !slices.Equal(caIDsOf(ent), cas) {
			t.Fatalf("Konnect service %v, want client_certificate %q and ca_certificates %v", ent, client, cas)
		}
	}

	t.Run("Programmed certificates are sent", func(t *testing.T) {

		defer e.use(t)()
		e.createService("secure", https, withCertificates("", "client", "ca1", "ca2"))
		sends("secure", clientID, ca1, ca2)
		svc := e.service("secure")
		for _, c := range []string{commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ConditionKongCACertificateRefsValid} {
			if err := conditionIs(svc, c, metav1.ConditionTrue, commonv1alpha1.ReasonValid); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("missing certificates are waited for", func(t *testing.T) {
		defer e.use(t)()
		e.createService("waiting", https, withCertificates("", "client-later", "ca1", "ca-later"))
		e.eventually("both references reported", func() error {
			svc := e.service("waiting")
			if err := conditionIs(svc, commonv1alpha1.ConditionKongCertificateRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
				return err
			}
			if err := conditionIs(svc, commonv1alpha1.ConditionKongCACertificateRefsValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
				return err
			}
			return conditionIs(svc, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonWaitingForReferences)
		})
		e.createCertificate("client-later")
		e.createCACertificate("ca-later")
		sends("waiting", certificates.programmed(e, "client-later").Status.Konnect.ID, ca1, caCertificates.programmed(e, "ca-later").Status.Konnect.ID)
	})
	t.Run("an unprogrammed CA certificate is waited for", func(t *testing.T) {
		defer e.use(t)()
		e.createCACertificate("ca-idle", func(c kongCACertificate) { c.Spec.ControlPlaneRef = cpRef("nowhere") })
		e.createService("idle", https, withCertificates("", "", "ca-idle"))
		e.eventually("reference reported", func() error {
			return conditionIs(e.service("idle"), commonv1alpha1.ConditionKongCACertificateRefsValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
		})
		caCertificates.update(e, "ca-idle", func(c kongCACertificate) { c.Spec.ControlPlaneRef = cpRef("cp") })
		sends("idle", "", caCertificates.programmed(e, "ca-idle").Status.Konnect.ID)
	})
	t.Run("certificates in another namespace need grants", func(t *testing.T) {
		defer e.use(t)()
		e.grant(e.ns, "certs-to-cp", "konnect.konghq.com", "KonnectGatewayControlPlane",
			grantFrom{"configuration.konghq.com", "KongCertificate", other},
			grantFrom{"configuration.konghq.com", "KongCACertificate", other})
		remoteCert := certificateObject("remote-client", e.pairFor("remote-client", false))
		remoteCert.Spec.ControlPlaneRef = cpRefIn(e.ns, "cp")
		if _, err := e.cs.ConfigurationV1alpha1().KongCertificates(other).Create(e.ctx, remoteCert, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		remoteCA := caCertificateObject("remote-ca", e.pairFor("remote-ca", true).Cert)
		remoteCA.Spec.ControlPlaneRef = cpRefIn(e.ns, "cp")
		if _, err := e.cs.ConfigurationV1alpha1().KongCACertificates(other).Create(e.ctx, remoteCA, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.programmedIn(other, certificates.kind, func() (konnectObject, error) {
			return e.cs.ConfigurationV1alpha1().KongCertificates(other).Get(e.ctx, "remote-client", metav1.GetOptions{})
		})
		e.programmedIn(other, caCertificates.kind, func() (konnectObject, error) {
			return e.cs.ConfigurationV1alpha1().KongCACertificates(other).Get(e.ctx, "remote-ca", metav1.GetOptions{})
		})
		e.createService("cross", https, withCertificates(other, "remote-client", "remote-ca"))
		refused := func() error {
			return conditionIs(e.service("cross"), commonv1alpha1.ConditionResolvedRefs, metav1.ConditionFalse, commonv1alpha1.ReasonRefNotPermitted)
		}
		e.eventually("both references refused", refused)
		e.settle()
		e.grant(other, "services-to-certs", "configuration.konghq.com", "KongCertificate",
			grantFrom{"configuration.konghq.com", "KongService", e.ns})
		e.stays("the CA certificate stays refused without its grant", refused)
		e.grant(other, "services-to-cas", "configuration.konghq.com", "KongCACertificate",
			grantFrom{"configuration.konghq.com", "KongService", e.ns})
		e.programmedService("cross")
	})
	t.Run("removing the references detaches the certificates", func(t *testing.T) {
		defer e.use(t)()
		e.updateService("secure", func(s *configurationv1alpha1.KongService) {
			s.Spec.ClientCertificateRef, s.Spec.CACertificateRefs = nil, nil
		})
		e.eventually("certificates cleared in Konnect", func() error {
			ent := e.serviceEntity(cpID, e.service("secure").Status.Konnect.ID)
			if refID(ent, "client_certificate") != "" || len(caIDsOf(ent)) != 0 {
				return fmt.Errorf("Konnect service %v", ent)
			}
			return nil
		})
	})
}

// TestCertificatesDeletedWhileInUse: Konnect refuses to delete a
// certificate that SNIs belong to or that services and upstreams present,
// and a CA certificate that services trust. Deleting such a KongCertificate
// or KongCACertificate first still finishes: its SNIs are deleted, the
// services and upstreams are detached from it and stay, and their objects
// report the certificate gone.
func TestCertificatesDeletedWhileInUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createCertificate("client")
	e.createCACertificate("ca")
	e.createService("svc", https, withCertificates("", "client", "ca"))
	upstream := upstreamObject("up")
	upstream.Spec.ClientCertificateRef = &commonv1alpha1.NamespacedRef{Name: "client"}
	upstreams.create(e, upstream)
	snis.create(e, sniObject("host", "client"))
	svcID := e.programmedService("svc").Status.Konnect.ID
	upstreamID := upstreams.programmed(e, "up").Status.Konnect.ID
	snis.programmed(e, "host")

	t.Run("the client certificate first", func(t *testing.T) {

		defer e.use(t)()
		certificates.deleteAndWait(e, "client")
		if n := len(e.entities(cpID, "certificates")) + len(e.entities(cpID, "snis")); n != 0 {
			t.Fatalf("%d certificates and SNIs left in Konnect", n)
		}
		if ent := e.serviceEntity(cpID, svcID); refID(ent, "client_certificate") != "" {
			t.Fatalf("the service still presents the certificate: %v", ent)
		}
		if ent, ok := e.entity(cpID, "upstreams", upstreamID); !ok || refID(ent, "client_certificate") != "" {
			t.Fatalf("the upstream is gone or still presents the certificate: %v", ent)
		}
		e.eventually("the service reports its certificate gone", func() error {
			return conditionIs(e.service("svc"), commonv1alpha1.ConditionKongCertificateRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
		})
		upstreams.waiting(e, "up", commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ReasonInvalid)
		snis.waiting(e, "host", commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ReasonInvalid)
	})
	t.Run("the CA certificate first", func(t *testing.T) {
		defer e.use(t)()
		caCertificates.deleteAndWait(e, "ca")
		if n := len(e.entities(cpID, "ca_certificates")); n != 0 {
			t.Fatalf("%d CA certificates left in Konnect", n)
		}
		if ent := e.serviceEntity(cpID, svcID); len(caIDsOf(ent)) != 0 {
			t.Fatalf("the service still trusts the CA certificate: %v", ent)
		}
		e.eventually("the service reports its CA certificate gone", func() error {
			return conditionIs(e.service("svc"), commonv1alpha1.ConditionKongCACertificateRefsValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
		})
	})
}
