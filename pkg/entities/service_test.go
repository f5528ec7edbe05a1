package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

func testService(name string) kongService {
	return &configurationv1alpha1.KongService{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongServiceSpec{
			ControlPlaneRef:    konnectRef("cp"),
			KongServiceAPISpec: configurationv1alpha1.KongServiceAPISpec{Name: name, Host: name + ".example.com"},
		},
	}
}

func TestServiceCertificatesMustBeProgrammedInItsControlPlane(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	certs := cacheOf[kongCertificate]("kongcertificates")
	caCerts := cacheOf[kongCACertificate]("kongcacertificates")
	kind := ServiceKind(refs, certs, caCerts)
	svc := testService("orders")
	svc.Spec.ClientCertificateRef = &commonv1alpha1.NamespacedRef{Name: "client"}
	svc.Spec.CACertificateRefs = []commonv1alpha1.NamespacedRef{{Name: "ca"}}

	resolve := func() controller.Resolution {
		t.Helper()
		res, err := kind.Resolve(t.Context(), svc, controller.ForSync)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := resolve()
	if res.Ready || conditionStatus(res, commonv1alpha1.ConditionKongCertificateRefValid) != "False" ||
		conditionStatus(res, commonv1alpha1.ConditionKongCACertificateRefsValid) != "False" {
		t.Fatalf("missing certificates: ready=%v %v", res.Ready, res.Conditions)
	}

	put(t, certs, programmedIn(testCertificate("client"), "cp-id", "cert-id"))
	put(t, caCerts, programmedIn(&configurationv1alpha1.KongCACertificate{ObjectMeta: objectMeta("ca")}, "other-cp", "ca-id"))
	res = resolve()
	if res.Ready || conditionStatus(res, commonv1alpha1.ConditionKongCertificateRefValid) != "True" ||
		conditionStatus(res, commonv1alpha1.ConditionKongCACertificateRefsValid) != "False" {
		t.Fatalf("a CA certificate of another control plane: ready=%v %v", res.Ready, res.Conditions)
	}

	put(t, caCerts, programmedIn(&configurationv1alpha1.KongCACertificate{ObjectMeta: objectMeta("ca")}, "cp-id", "ca-id"))
	res = resolve()
	if !res.Ready {
		t.Fatalf("both Programmed in the control plane: %v", res.Conditions)
	}
	body, err := kind.Desired(t.Context(), svc, res.Placement)
	if err != nil {
		t.Fatal(err)
	}
	if body.ClientCertificate == nil || deref(body.ClientCertificate.ID) != "cert-id" || !slices.Equal(body.CaCertificates, []string{"ca-id"}) {
		t.Fatalf("body certificates %+v %v", body.ClientCertificate, body.CaCertificates)
	}

	// Deleting needs no certificate.
	certs = cacheOf[kongCertificate]("kongcertificates")
	if res, _ := ServiceKind(refs, certs, caCerts).Resolve(t.Context(), svc, controller.ForDelete); !res.Ready {
		t.Fatalf("deleting with a certificate gone: %v", res.Conditions)
	}
}

func TestServiceCertificateInAnotherNamespaceNeedsAGrant(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	certs := cacheOf[kongCertificate]("kongcertificates")
	cert := testCertificate("client")
	cert.Namespace = "tls"
	put(t, certs, programmedIn(cert, "cp-id", "cert-id"))
	kind := ServiceKind(refs, certs, cacheOf[kongCACertificate]("kongcacertificates"))
	svc := testService("orders")
	svc.Spec.ClientCertificateRef = &commonv1alpha1.NamespacedRef{Name: "client", Namespace: "tls"}

	res, _ := kind.Resolve(t.Context(), svc, controller.ForSync)
	if res.Ready || conditionStatus(res, commonv1alpha1.ConditionResolvedRefs) != "False" {
		t.Fatalf("without a grant: ready=%v %v", res.Ready, res.Conditions)
	}
	grant(t, refs, "tls", "KongService", testNamespace, groupConfiguration, kindCertificate)
	res, _ = kind.Resolve(t.Context(), svc, controller.ForSync)
	if !res.Ready || conditionStatus(res, commonv1alpha1.ConditionResolvedRefs) != "True" {
		t.Fatalf("with a grant: ready=%v %v", res.Ready, res.Conditions)
	}
	deps := map[string]bool{}
	for _, d := range kind.Dependencies {
		if deps[d.Name] {
			t.Fatalf("two dependencies named %q", d.Name)
		}
		deps[d.Name] = true
	}
}

func TestServiceBody(t *testing.T) {
	kind := ServiceKind(testRefs(), nil, nil)
	cases := []struct {
		name     string
		spec     configurationv1alpha1.KongServiceAPISpec
		protocol string
		host     string
		port     int64
		path     string
	}{
		{"host and port", configurationv1alpha1.KongServiceAPISpec{Host: "a.example", Port: 8080, Protocol: "https"}, "https", "a.example", 8080, ""},
		{"a URL with a port", configurationv1alpha1.KongServiceAPISpec{URL: "http://b.example:9000/api"}, "http", "b.example", 9000, "/api"},
		{"an https URL takes port 443", configurationv1alpha1.KongServiceAPISpec{URL: "https://c.example"}, "https", "c.example", 443, ""},
	}
	for _, tc := range cases {
		svc := testService("s")
		svc.Spec.KongServiceAPISpec = tc.spec
		body, err := kind.Desired(t.Context(), svc, controller.Placement{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(deref(body.Protocol)) != tc.protocol || body.Host != tc.host || deref(body.Port) != tc.port || deref(body.Path) != tc.path || body.URL != nil {
			t.Errorf("%s: protocol %q host %q port %d path %q url %v", tc.name, deref(body.Protocol), body.Host, deref(body.Port), deref(body.Path), body.URL)
		}
		if !slices.Contains(body.Tags, controller.UIDTag(svc)) {
			t.Errorf("%s: tags %v lack the UID", tc.name, body.Tags)
		}
	}
	svc := testService("s")
	svc.Spec.URL = "not a url"
	if _, err := kind.Desired(t.Context(), svc, controller.Placement{}); !konnect.IsInvalidInput(err) {
		t.Errorf("a relative URL: %v, want invalid input", err)
	}
}

func TestServiceMatchAppliesKonnectDefaults(t *testing.T) {
	desired := components.Service{Name: ptr("s"), Host: "h"}
	cases := []struct {
		name   string
		actual components.ServiceOutput
		want   []string
	}{
		{"Konnect's defaults equal unset fields", components.ServiceOutput{Name: ptr("s"), Host: "h", Port: ptr[int64](80), Protocol: components.ServiceProtocolHTTP.ToPointer(), Path: ptr("/")}, nil},
		{"another host and port", components.ServiceOutput{Name: ptr("s"), Host: "x", Port: ptr[int64](81)}, []string{"host", "port"}},
		{"another protocol and path", components.ServiceOutput{Name: ptr("s"), Host: "h", Protocol: components.ServiceProtocolHTTPS.ToPointer(), Path: ptr("/a")}, []string{"protocol", "path"}},
	}
	for _, tc := range cases {
		if got := serviceMatches(desired, &tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestServiceCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, serviceCalls,
		components.Service{Name: ptr("orders"), Host: "a.example", Tags: []string{uid}},
		components.Service{Name: ptr("orders"), Host: "b.example", Tags: []string{uid}}, uid)
}

func TestDeletingAServiceDeletesItsRoutesFirst(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	ctx := t.Context()
	svc, err := serviceCalls.doCreate(ctx, s.api, p, components.Service{Name: ptr("orders"), Host: "a.example"})
	if err != nil {
		t.Fatal(err)
	}
	route, err := routeCalls.doCreate(ctx, s.api, p, components.CreateRouteRouteJSON(components.RouteJSON{
		Paths: []string{"/orders"}, Service: &components.RouteJSONService{ID: svc.ID},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := serviceCalls.doDelete(ctx, s.api, p, deref(svc.ID)); !refusedForChildren(err) {
		t.Fatalf("Konnect deleted a service with a route (%v); the cascade is not exercised", err)
	}
	if err := deleteService(ctx, s.api, p, deref(svc.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := routeCalls.doGet(ctx, s.api, p, deref(routeID(route))); !konnect.IsNotFound(err) {
		t.Fatalf("the route is still there: %v", err)
	}
	if _, err := serviceCalls.doGet(ctx, s.api, p, deref(svc.ID)); !konnect.IsNotFound(err) {
		t.Fatalf("the service is still there: %v", err)
	}
}
