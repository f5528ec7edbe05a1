package entities

import (
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

func TestCredentialFromSecretAdoptsTheCredentialTheSecretNames(t *testing.T) {
	consumer := &configurationv1.KongConsumer{ObjectMeta: objectMeta("alice")}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "alice-key", UID: "uid-secret",
			Labels: map[string]string{commonv1alpha1.LabelCredential: "key-auth"}},
		Data: map[string][]byte{"key": []byte("k-1")},
	}
	made, err := CredentialFromSecret(consumer, secret)
	if err != nil {
		t.Fatal(err)
	}
	if key := made.(kongAPIKey); key.Spec.Adopt != nil || key.Spec.Key != "k-1" || key.Spec.ConsumerRef.Name != "alice" {
		t.Fatalf("without the annotation: %+v", key.Spec)
	}

	secret.Annotations = map[string]string{AnnotationAdoptID: "cred-id"}
	made, err = CredentialFromSecret(consumer, secret)
	if err != nil {
		t.Fatal(err)
	}
	adopt := made.(kongAPIKey).Spec.Adopt
	if adopt == nil || adopt.Mode != commonv1alpha1.AdoptModeMatch || adopt.Konnect == nil || adopt.Konnect.ID != "cred-id" {
		t.Fatalf("with the annotation: adopt %+v", adopt)
	}
	if _, _, fromSecret := madeFromSecret(made.(kongAPIKey)); !fromSecret {
		t.Fatal("the object is not known as made from a Secret")
	}

	delete(secret.Data, "key")
	if _, err := CredentialFromSecret(consumer, secret); err == nil {
		t.Fatal("a Secret without its data key made a credential")
	}
}

// catalogWorld is a simulator with a control plane, and the objects that
// reach it: a valid auth configuration and a Programmed control plane.
type catalogWorld struct {
	simulated
	clients *konnect.ClientFactory
	cpID    string
	objects []runtime.Object
}

func newCatalogWorld(t *testing.T) *catalogWorld {
	t.Helper()
	s := startSimulator(t)
	clients := konnect.NewClientFactory(konnect.Options{RootCAs: s.sim.CAPool, RequestsPerSecond: 1e6, Burst: 1e6})
	cp := s.controlPlane(t, "catalog")
	auth := &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "auth"},
		Spec:       konnectv1alpha1.KonnectAPIAuthConfigurationSpec{Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: "kpat_test", ServerURL: s.sim.URL},
		Status: konnectv1alpha1.KonnectAPIAuthConfigurationStatus{
			ServerURL:  s.sim.URL,
			Conditions: []metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, "")},
		},
	}
	cpObject := &konnectv1alpha2.KonnectGatewayControlPlane{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "cp"},
		Spec: konnectv1alpha2.KonnectGatewayControlPlaneSpec{
			Konnect: &konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: "auth"}},
		},
	}
	cpObject.Status.ID = cp.ControlPlaneID
	cpObject.Status.Conditions = []metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, "")}
	return &catalogWorld{simulated: s, clients: clients, cpID: cp.ControlPlaneID, objects: []runtime.Object{auth, cpObject}}
}

func TestCatalogComparesWithTheKindsOwnComparison(t *testing.T) {
	w := newCatalogWorld(t)
	ctx := t.Context()
	created, err := w.api.Services.CreateService(ctx, w.cpID, components.Service{Name: ptr("orders"), Host: "orders.example.com", Tags: []string{"team:a"}})
	if err != nil {
		t.Fatal(err)
	}
	serviceID := *created.GetService().ID
	pair := func() (string, string) { return testKeyPair(t, "shop.example.com") }
	cert, key := pair()
	certificate, err := w.api.Certificates.CreateCertificate(ctx, w.cpID, components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: cert, Key: key}))
	if err != nil {
		t.Fatal(err)
	}
	otherCert, otherKey := pair()

	service := func(name, host string, adopt string, tags ...string) kongService {
		svc := testService(name)
		svc.Spec.Host, svc.Spec.Tags = host, tags
		if adopt != "" {
			svc.Spec.Adopt = &commonv1alpha1.AdoptOptions{From: commonv1alpha1.AdoptSourceKonnect, Mode: commonv1alpha1.AdoptModeMatch, Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: adopt}}
		}
		return svc
	}
	equal := service("orders", "orders.example.com", serviceID, "team:a")
	moved := service("orders", "orders.internal", serviceID, "team:b")
	fresh := service("fresh", "fresh.example.com", "")
	unresolved := service("lost", "lost.example.com", "")
	unresolved.Spec.ControlPlaneRef = konnectRef("missing")
	fromSecret := testCertificate("shop")
	fromSecret.Spec.Tags = nil
	fromSecret.Spec.Type = configurationv1alpha1.CertificateSourceSecretRef
	fromSecret.Spec.SecretRef = &commonv1alpha1.NamespacedRef{Name: "shop-tls"}
	fromSecret.Spec.Adopt = &commonv1alpha1.AdoptOptions{From: commonv1alpha1.AdoptSourceKonnect, Mode: commonv1alpha1.AdoptModeMatch, Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: *certificate.GetCertificate().ID}}
	tls := tlsSecret(testNamespace, "shop-tls", map[string]string{secretKeyTLSCert: otherCert, secretKeyTLSKey: otherKey})

	enabled := true
	plugin, err := w.api.Plugins.CreatePlugin(ctx, w.cpID, components.Plugin{Name: "rate-limiting", Enabled: &enabled, Config: map[string]any{"minute": 1}})
	if err != nil {
		t.Fatal(err)
	}
	pluginConfig := pluginSecret(testNamespace, "limits", map[string]string{"config": `{"minute": 2}`})
	kongPlugin := &configurationv1.KongPlugin{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "limits"}, PluginName: "rate-limiting",
		ConfigFrom: configFrom("limits", "config"),
	}
	adoptedPlugin := testBinding("limits", nil)
	adoptedPlugin.Spec.PluginRef.Name = "limits"
	adoptedPlugin.Spec.Adopt = &commonv1alpha1.AdoptOptions{From: commonv1alpha1.AdoptSourceKonnect, Mode: commonv1alpha1.AdoptModeMatch, Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: *plugin.GetPlugin().ID}}

	catalog := NewCatalog(append(w.objects, equal, fresh, unresolved, fromSecret, tls, pluginConfig, kongPlugin, adoptedPlugin))
	cases := []struct {
		name   string
		obj    runtime.Object
		state  ComparisonState
		fields []FieldDifference
	}{
		{"an adopted service that matches", equal, StateEqual, nil},
		{"a service whose host and tags differ", moved, StateDiffers, []FieldDifference{
			{Field: "host", Cluster: `"orders.internal"`, Konnect: `"orders.example.com"`},
			{Field: "tags", Cluster: `["team:b"]`, Konnect: `["team:a"]`},
		}},
		{"a service not created yet", fresh, StateMissing, nil},
		{"a service whose control plane is missing", unresolved, StateUnresolved, nil},
		{"a certificate from a Secret holding another pair", fromSecret, StateDiffers, []FieldDifference{
			{Field: "cert", Hidden: true}, {Field: "key", Hidden: true},
		}},
		{"a plugin whose configuration from a Secret differs", adoptedPlugin, StateDiffers, []FieldDifference{
			{Field: "config", Hidden: true},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := catalog.Compare(ctx, w.clients, tc.obj)
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
