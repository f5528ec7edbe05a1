package entities

import (
	"slices"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

func testSNI(name, certificateNamespace, certificate string) kongSNI {
	return &configurationv1alpha1.KongSNI{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongSNISpec{
			CertificateRef: commonv1alpha1.NamespacedRef{Name: certificate, Namespace: certificateNamespace},
			KongSNIAPISpec: configurationv1alpha1.KongSNIAPISpec{Name: name + ".example.com"},
		},
	}
}

func TestSNIIsPlacedUnderItsCertificate(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	certs := cacheOf[kongCertificate]("kongcertificates")
	remote := programmedIn(testCertificate("remote"), "cp-id", "remote-id")
	remote.Namespace = "other"
	remote.Spec.ControlPlaneRef.KonnectNamespacedRef.Namespace = testNamespace
	// The certificate may use the control plane of another namespace, as
	// any Programmed one there did: a grant allows it.
	grant(t, refs, testNamespace, kindCertificate, "other", groupKonnect, kindControlPlane)
	put(t, certs, programmedIn(testCertificate("cert"), "cp-id", "cert-id"), testCertificate("idle"), remote)
	kind := SNIKind(refs, certs)
	cases := []struct {
		name                string
		namespace, ref      string
		grant               bool
		ready               bool
		parentID            string
		certificateRefValid metav1.ConditionStatus
		resolvedRefs        metav1.ConditionStatus
		deletingIsGone      bool
	}{
		{name: "a Programmed certificate", ref: "cert", ready: true, parentID: "cert-id", certificateRefValid: "True"},
		{name: "a missing certificate", ref: "later", certificateRefValid: "False", deletingIsGone: true},
		{name: "an unprogrammed certificate", ref: "idle", certificateRefValid: "False", deletingIsGone: true},
		{name: "another namespace without a grant", namespace: "other", ref: "remote", resolvedRefs: "False"},
		{name: "another namespace with a grant", namespace: "other", ref: "remote", grant: true, ready: true, parentID: "remote-id", certificateRefValid: "True", resolvedRefs: "True"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.grant {
				grant(t, refs, "other", "KongSNI", testNamespace, groupConfiguration, kindCertificate)
			}
			sni := testSNI("www", tc.namespace, tc.ref)
			res, err := kind.Resolve(t.Context(), sni, controller.ForSync)
			if err != nil || res.Ready != tc.ready || res.Placement.ParentID != tc.parentID {
				t.Fatalf("ready=%v parent=%q err=%v, want ready=%v parent=%q; conditions %v", res.Ready, res.Placement.ParentID, err, tc.ready, tc.parentID, res.Conditions)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionKongCertificateRefValid); got != tc.certificateRefValid {
				t.Errorf("KongCertificateRefValid %q, want %q", got, tc.certificateRefValid)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionResolvedRefs); got != tc.resolvedRefs {
				t.Errorf("ResolvedRefs %q, want %q", got, tc.resolvedRefs)
			}
			if tc.resolvedRefs == "False" && !slices.ContainsFunc(res.Conditions, func(c metav1.Condition) bool {
				return strings.Contains(c.Message, "KongReferenceGrant in namespace other")
			}) {
				t.Errorf("the refusal does not name the grant it needs: %v", res.Conditions)
			}
			if tc.ready && (sni.Status.Konnect.CertificateID != tc.parentID || sni.Status.Konnect.ControlPlaneID != "cp-id") {
				t.Errorf("status %+v, want the certificate's ID and control plane", sni.Status.Konnect)
			}
			res, err = kind.Resolve(t.Context(), testSNI("www", tc.namespace, tc.ref), controller.ForDelete)
			if err != nil || res.Gone != tc.deletingIsGone {
				t.Errorf("deleting: gone=%v err=%v, want gone=%v", res.Gone, err, tc.deletingIsGone)
			}
		})
	}
}

func TestSNIBodyNamesItsCertificate(t *testing.T) {
	sni := testSNI("www", "", "cert")
	body, err := SNIKind(testRefs(), cacheOf[kongCertificate]("kongcertificates")).Desired(t.Context(), sni, controller.Placement{ParentID: "cert-id"})
	if err != nil {
		t.Fatal(err)
	}
	if body.Name != "www.example.com" || deref(body.Certificate.GetID()) != "cert-id" || !slices.Contains(body.Tags, controller.UIDTag(sni)) {
		t.Fatalf("body %+v", body)
	}
}

func TestSNIMatchComparesNameAndCertificate(t *testing.T) {
	desired := components.SNIWithoutParents{Name: "www.example.com", Certificate: &components.SNIWithoutParentsCertificate{ID: ptr("cert-id")}}
	cases := []struct {
		name   string
		actual components.Sni
		want   []string
	}{
		{"the same", components.Sni{Name: "www.example.com", Certificate: components.SNICertificate{ID: ptr("cert-id")}}, nil},
		{"another certificate", components.Sni{Name: "www.example.com", Certificate: components.SNICertificate{ID: ptr("other")}}, []string{"certificate"}},
		{"another name", components.Sni{Name: "api.example.com", Certificate: components.SNICertificate{ID: ptr("cert-id")}}, []string{"name"}},
	}
	for _, tc := range cases {
		if got := sniMatches(desired, &tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSNICallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	cert, key := testKeyPair(t, "www.example.com")
	p.ParentID = created(t, s, p, certificateCalls, components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: cert, Key: key}))
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, sniCalls,
		components.SNIWithoutParents{Name: "www.example.com", Certificate: &components.SNIWithoutParentsCertificate{ID: &p.ParentID}, Tags: []string{uid}},
		components.SNIWithoutParents{Name: "api.example.com", Tags: []string{uid}}, uid)
}
