package catalog_test

import (
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/catalog"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
	"github.com/konnect-operator/konnect-operator/pkg/testkeys"
)

const (
	testToken     = "kpat_catalog_test"
	testNamespace = "ns"
)

// world is a simulator with a control plane, and the objects that reach
// it: a valid auth configuration and a Programmed control plane, "cp".
type world struct {
	clients *konnect.ClientFactory
	api     konnect.API
	cpID    string
	objects []runtime.Object
}

func newWorld(t *testing.T) world {
	t.Helper()
	sim := konnectsim.Start(t, konnectsim.Options{Tokens: map[string]string{testToken: "acme"}})
	clients := konnect.NewClientFactory(konnect.Options{RootCAs: sim.CAPool, RequestsPerSecond: 1e6, Burst: 1e6})
	api, err := clients.API(sim.URL, testToken)
	if err != nil {
		t.Fatal(err)
	}
	created, err := api.ControlPlanes.CreateControlPlane(t.Context(), components.CreateControlPlaneRequest{Name: "catalog"})
	if err != nil {
		t.Fatal(err)
	}
	auth := &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "auth"},
		Spec:       konnectv1alpha1.KonnectAPIAuthConfigurationSpec{Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: testToken, ServerURL: sim.URL},
		Status: konnectv1alpha1.KonnectAPIAuthConfigurationStatus{
			ServerURL:  sim.URL,
			Conditions: []metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, "")},
		},
	}
	w := world{clients: clients, api: api, cpID: created.GetControlPlane().GetID()}
	w.objects = []runtime.Object{auth, w.controlPlane("cp", w.cpID, nil)}
	return w
}

// controlPlane is a Programmed control plane object with Konnect ID id,
// asking for req.
func (w world) controlPlane(name, id string, req *konnectv1alpha2.CreateControlPlaneRequest) *konnectv1alpha2.KonnectGatewayControlPlane {
	cp := &konnectv1alpha2.KonnectGatewayControlPlane{
		ObjectMeta: objectMeta(name),
		Spec: konnectv1alpha2.KonnectGatewayControlPlaneSpec{
			CreateControlPlaneRequest: req,
			Konnect:                   &konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: "auth"}},
		},
	}
	cp.Status.ID = id
	cp.Status.Conditions = []metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, "")}
	return cp
}

func objectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: testNamespace, Name: name, UID: types.UID("uid-" + name), Generation: 1}
}

// cpRef refers to the control plane object name of the test namespace.
func cpRef(name string) *commonv1alpha1.ControlPlaneRef {
	return &commonv1alpha1.ControlPlaneRef{
		Type:                 commonv1alpha1.ControlPlaneRefKonnectNamespacedRef,
		KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: name},
	}
}

// adopting adopts the entity with Konnect ID id in match mode.
func adopting(id string) *commonv1alpha1.AdoptOptions {
	return &commonv1alpha1.AdoptOptions{From: commonv1alpha1.AdoptSourceKonnect, Mode: commonv1alpha1.AdoptModeMatch, Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: id}}
}

// operatorSecret is a Secret labelled for the operator to read.
func operatorSecret(name string, secretType corev1.SecretType, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name, Labels: map[string]string{commonv1alpha1.LabelSecret: "true"}},
		Type:       secretType, Data: map[string][]byte{},
	}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// comparisonCase is an object and how the catalog must find it compared
// with Konnect.
type comparisonCase struct {
	name   string
	obj    runtime.Object
	state  catalog.ComparisonState
	fields []catalog.FieldDifference
}

func checkComparisons(t *testing.T, w world, c *catalog.Catalog, cases []comparisonCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Compare(t.Context(), w.clients, tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tc.state || len(got.Fields) != len(tc.fields) {
				t.Fatalf("got %s (%s) %+v, want %s %+v", got.State, got.Message, got.Fields, tc.state, tc.fields)
			}
			for i := range tc.fields {
				if got.Fields[i] != tc.fields[i] {
					t.Errorf("field %d: got %+v, want %+v", i, got.Fields[i], tc.fields[i])
				}
			}
		})
	}
}

func TestCatalogComparesWithTheKindsOwnComparison(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	created, err := w.api.Services.CreateService(ctx, w.cpID, components.Service{Name: ptr("orders"), Host: "orders.example.com", Tags: []string{"team:a"}})
	if err != nil {
		t.Fatal(err)
	}
	serviceID := *created.GetService().ID
	pair, err := testkeys.SelfSigned("shop.example.com", false)
	if err != nil {
		t.Fatal(err)
	}
	certificate, err := w.api.Certificates.CreateCertificate(ctx, w.cpID, components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: pair.Cert, Key: pair.Key}))
	if err != nil {
		t.Fatal(err)
	}
	other, err := testkeys.SelfSigned("shop.example.com", false)
	if err != nil {
		t.Fatal(err)
	}

	service := func(name, host string, adopt string, tags ...string) *configurationv1alpha1.KongService {
		svc := &configurationv1alpha1.KongService{
			ObjectMeta: objectMeta(name),
			Spec: configurationv1alpha1.KongServiceSpec{
				ControlPlaneRef:    cpRef("cp"),
				KongServiceAPISpec: configurationv1alpha1.KongServiceAPISpec{Name: name, Host: host, Tags: tags},
			},
		}
		if adopt != "" {
			svc.Spec.Adopt = adopting(adopt)
		}
		return svc
	}
	equal := service("orders", "orders.example.com", serviceID, "team:a")
	moved := service("orders", "orders.internal", serviceID, "team:b")
	fresh := service("fresh", "fresh.example.com", "")
	unresolved := service("lost", "lost.example.com", "")
	unresolved.Spec.ControlPlaneRef = cpRef("missing")
	fromSecret := &configurationv1alpha1.KongCertificate{
		ObjectMeta: objectMeta("shop"),
		Spec: configurationv1alpha1.KongCertificateSpec{
			ControlPlaneRef: cpRef("cp"),
			Type:            configurationv1alpha1.CertificateSourceSecretRef,
			SecretRef:       &commonv1alpha1.NamespacedRef{Name: "shop-tls"},
			Adopt:           adopting(*certificate.GetCertificate().ID),
		},
	}
	tls := operatorSecret("shop-tls", corev1.SecretTypeTLS, map[string]string{corev1.TLSCertKey: other.Cert, corev1.TLSPrivateKeyKey: other.Key})

	enabled := true
	plugin, err := w.api.Plugins.CreatePlugin(ctx, w.cpID, components.Plugin{Name: "rate-limiting", Enabled: &enabled, Config: map[string]any{"minute": 1}})
	if err != nil {
		t.Fatal(err)
	}
	pluginConfig := operatorSecret("limits", corev1.SecretTypeOpaque, map[string]string{"config": `{"minute": 2}`})
	kongPlugin := &configurationv1.KongPlugin{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "limits"}, PluginName: "rate-limiting",
		ConfigFrom: &configurationv1.ConfigSource{SecretValue: configurationv1.SecretValueFromSource{Secret: "limits", Key: "config"}},
	}
	adoptedPlugin := &configurationv1alpha1.KongPluginBinding{
		ObjectMeta: objectMeta("limits"),
		Spec: configurationv1alpha1.KongPluginBindingSpec{
			PluginRef: configurationv1alpha1.PluginRef{Name: "limits"}, ControlPlaneRef: cpRef("cp"),
			Adopt: adopting(*plugin.GetPlugin().ID),
		},
	}

	c := catalog.NewCatalog(append(w.objects, equal, fresh, unresolved, fromSecret, tls, pluginConfig, kongPlugin, adoptedPlugin))
	checkComparisons(t, w, c, []comparisonCase{
		{"an adopted service that matches", equal, catalog.StateEqual, nil},
		{"a service whose host and tags differ", moved, catalog.StateDiffers, []catalog.FieldDifference{
			{Field: "host", Cluster: `"orders.internal"`, Konnect: `"orders.example.com"`},
			{Field: "tags", Cluster: `["team:b"]`, Konnect: `["team:a"]`},
		}},
		{"a service not created yet", fresh, catalog.StateMissing, nil},
		{"a service whose control plane is missing", unresolved, catalog.StateUnresolved, nil},
		{"a certificate from a Secret holding another pair", fromSecret, catalog.StateDiffers, []catalog.FieldDifference{
			{Field: "cert", Hidden: true}, {Field: "key", Hidden: true},
		}},
		{"a plugin whose configuration from a Secret differs", adoptedPlugin, catalog.StateDiffers, []catalog.FieldDifference{
			{Field: "config", Hidden: true},
		}},
	})
}
