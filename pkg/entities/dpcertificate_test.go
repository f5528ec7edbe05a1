package entities

import (
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

func testDataPlaneCertificate(name, cert string) kongDataPlaneCertificate {
	return &configurationv1alpha1.KongDataPlaneClientCertificate{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongDataPlaneClientCertificateSpec{
			ControlPlaneRef:                       konnectRef("cp"),
			KongDataPlaneClientCertificateAPISpec: configurationv1alpha1.KongDataPlaneClientCertificateAPISpec{Cert: cert},
		},
	}
}

func TestDataPlaneCertificateMayBePinnedOnAGroup(t *testing.T) {
	refs := testRefs()
	group := programmedControlPlane(t, refs, "cp", "group-id")
	group.Status.ClusterType = clusterTypeGroup
	put(t, refs.ControlPlanes, group)
	res, err := DataPlaneCertificateKind(refs).Resolve(t.Context(), testDataPlaneCertificate("dp", "pem"), controller.ForSync)
	if err != nil || !res.Ready || res.Placement.ControlPlaneID != "group-id" {
		t.Fatalf("on a group: ready=%v err=%v placement %+v conditions %v", res.Ready, err, res.Placement, res.Conditions)
	}
	res, err = KeySetKind(refs).Resolve(t.Context(), testKeySet("keys"), controller.ForSync)
	if err != nil || res.Ready || conditionStatus(res, commonv1alpha1.ConditionControlPlaneRefValid) != "False" {
		t.Fatalf("another kind on a group: ready=%v err=%v conditions %v", res.Ready, err, res.Conditions)
	}
}

// A pin cannot change: the same certificate is kept, another one is
// unpinned and reported gone so that the loop pins it anew; the pin of the
// object's certificate stands for the object.
func TestDataPlaneCertificatePinsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	cert, _ := testKeyPair(t, "dp.example.com")
	other, _ := testKeyPair(t, "other-dp.example.com")
	kind := DataPlaneCertificateKind(testRefs())
	obj := testDataPlaneCertificate("dp", cert)
	body, err := kind.Desired(t.Context(), obj, p)
	if err != nil || body.Cert != cert {
		t.Fatalf("body %+v (%v)", body, err)
	}

	id, _, err := kind.Create(t.Context(), s.api, obj, p, body)
	if err != nil || id == "" {
		t.Fatalf("create: %q, %v", id, err)
	}
	if _, err := kind.Update(t.Context(), s.api, obj, p, id, body); err != nil {
		t.Fatalf("update with the pinned certificate: %v", err)
	}
	rewrapped := testDataPlaneCertificate("copy", strings.ReplaceAll(cert, "\n", "\n\n")+"\n")
	if found, err := kind.FindByUID(t.Context(), s.api, rewrapped, p); err != nil || found != id {
		t.Fatalf("find the pin of the same certificate: %q, %v; want %q", found, err, id)
	}
	if found, err := kind.FindByUID(t.Context(), s.api, testDataPlaneCertificate("other", other), p); err != nil || found != "" {
		t.Fatalf("find the pin of another certificate: %q, %v; want none", found, err)
	}
	for want, desired := range map[string]string{"": cert, "cert": other} {
		inspected, err := kind.Adopt.Inspect(t.Context(), s.api, obj, p, id, components.DataPlaneClientCertificateRequest{Cert: desired})
		if err != nil || inspected.UID != "" || strings.Join(inspected.Differences, ",") != want {
			t.Fatalf("inspect against %q: %+v, %v; want differences %q", want, inspected, err, want)
		}
	}

	_, err = kind.Update(t.Context(), s.api, obj, p, id, components.DataPlaneClientCertificateRequest{Cert: other})
	if !konnect.IsNotFound(err) {
		t.Fatalf("update with another certificate: %v, want not found so that it is pinned anew", err)
	}
	if _, err := pins.get(t.Context(), s.api, p, id); !konnect.IsNotFound(err) {
		t.Fatalf("the old pin is still there: %v", err)
	}

	id, _, err = kind.Create(t.Context(), s.api, obj, p, components.DataPlaneClientCertificateRequest{Cert: other})
	if err != nil {
		t.Fatal(err)
	}
	if err := kind.Delete(t.Context(), s.api, obj, p, id); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if left, err := pins.list(t.Context(), s.api, p); err != nil || len(left) != 0 {
		t.Fatalf("pins left: %v, %v", left, err)
	}
	if _, err := kind.Update(t.Context(), s.api, obj, p, id, body); !konnect.IsNotFound(err) {
		t.Fatalf("update of an unpinned certificate: %v, want not found", err)
	}
}

func TestSameCertificateIgnoresWrapping(t *testing.T) {
	cert, _ := testKeyPair(t, "dp.example.com")
	other, _ := testKeyPair(t, "dp.example.com")
	body := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(cert), "-----BEGIN CERTIFICATE-----\n"), "\n-----END CERTIFICATE-----")
	unwrapped := "-----BEGIN CERTIFICATE-----\n" + strings.ReplaceAll(body, "\n", "") + "\n-----END CERTIFICATE-----"
	cases := []struct {
		name string
		a, b string
		want bool
	}{
		{"identical", cert, cert, true},
		{"rewrapped base64", cert, unwrapped, true},
		{"trailing white space", cert, cert + "\n\n", true},
		{"another certificate", cert, other, false},
		{"not PEM", "{vault://env/cert}", "{vault://env/cert}", true},
		{"not PEM, different", "{vault://env/a}", "{vault://env/b}", false},
	}
	for _, tc := range cases {
		if got := sameCertificate(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: sameCertificate = %v, want %v", tc.name, got, tc.want)
		}
	}
	if strings.Count(cert, "\n") <= 3 || strings.Count(unwrapped, "\n") != 2 {
		t.Fatal("the test certificate is not rewrapped")
	}
}
