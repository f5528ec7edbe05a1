package catalog_test

import (
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/catalog"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
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

// programmed marks obj Programmed as the entity id of w's control plane.
func (w world) programmed(obj interface {
	KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus
	ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef
	SetConditions([]metav1.Condition)
}, id string) {
	obj.KonnectStatus(true).ID = id
	obj.ControlPlaneStatus(true).ControlPlaneID = w.cpID
	obj.SetConditions([]metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, "")})
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

func TestCatalogComparesControlPlanesAndTheirMembers(t *testing.T) {
	w := newWorld(t)
	group, err := w.api.ControlPlanes.CreateControlPlane(t.Context(), components.CreateControlPlaneRequest{
		Name: "group", ClusterType: components.CreateControlPlaneRequestClusterTypeClusterTypeControlPlaneGroup.ToPointer(),
	})
	if err != nil {
		t.Fatal(err)
	}
	groupID := group.GetControlPlane().GetID()

	same := w.controlPlane("same", w.cpID, &konnectv1alpha2.CreateControlPlaneRequest{Name: "catalog"})
	described := w.controlPlane("described", w.cpID, &konnectv1alpha2.CreateControlPlaneRequest{Name: "catalog", Description: ptr("the orders team's")})
	groupType := string(components.CreateControlPlaneRequestClusterTypeClusterTypeControlPlaneGroup)
	withMembers := w.controlPlane("group", groupID, &konnectv1alpha2.CreateControlPlaneRequest{Name: "group", ClusterType: &groupType})
	withMembers.Spec.Members = []corev1.LocalObjectReference{{Name: "cp"}}
	gone := w.controlPlane("gone", "00000000-0000-4000-8000-000000000000", &konnectv1alpha2.CreateControlPlaneRequest{Name: "gone"})
	mirrorSource := konnectv1alpha2.ControlPlaneSourceMirror
	mirror := w.controlPlane("mirror", w.cpID, nil)
	mirror.Spec.Source = &mirrorSource
	mirror.Spec.Mirror = &konnectv1alpha2.MirrorSpec{Konnect: konnectv1alpha2.MirrorKonnect{ID: w.cpID}}

	c := catalog.NewCatalog(append(w.objects, same, described, withMembers, gone, mirror))
	checkComparisons(t, w, c, []comparisonCase{
		{"a control plane that matches", same, catalog.StateEqual, nil},
		{"a control plane whose description differs", described, catalog.StateDiffers, []catalog.FieldDifference{
			{Field: "description", Cluster: `"the orders team's"`, Konnect: `""`},
		}},
		{"a group without its member in Konnect", withMembers, catalog.StateDiffers, []catalog.FieldDifference{
			{Field: "members", Cluster: `["` + w.cpID + `"]`},
		}},
		{"a control plane gone from Konnect", gone, catalog.StateMissing, nil},
		{"a mirror, which is only read", mirror, catalog.StateNotCompared, nil},
	})
}

func TestCatalogHidesCredentialsAndComparesPasswordsByTheirHash(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	consumerEntity, err := w.api.Consumers.CreateConsumer(ctx, w.cpID, components.Consumer{Username: ptr("alice")})
	if err != nil {
		t.Fatal(err)
	}
	consumerID := *consumerEntity.GetConsumer().ID
	basic, err := w.api.BasicAuths.CreateBasicAuthWithConsumer(ctx, operations.CreateBasicAuthWithConsumerRequest{
		ControlPlaneID: w.cpID, ConsumerIDForNestedEntities: consumerID,
		BasicAuthWithoutParents: components.BasicAuthWithoutParents{Username: "alice", Password: "first"},
	})
	if err != nil {
		t.Fatal(err)
	}
	key, err := w.api.APIKeys.CreateKeyAuthWithConsumer(ctx, operations.CreateKeyAuthWithConsumerRequest{
		ControlPlaneID: w.cpID, ConsumerIDForNestedEntities: consumerID,
		KeyAuthWithoutParents: &components.KeyAuthWithoutParents{Key: ptr("k-1"), Tags: []string{"team:a"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	keyID := *key.GetKeyAuth().ID

	consumer := &configurationv1.KongConsumer{ObjectMeta: objectMeta("alice"), Username: "alice"}
	consumer.Spec.ControlPlaneRef = cpRef("cp")
	w.programmed(consumer, consumerID)
	basicAuth := func(name, password string) *configurationv1alpha1.KongCredentialBasicAuth {
		return &configurationv1alpha1.KongCredentialBasicAuth{
			ObjectMeta: objectMeta(name),
			Spec: configurationv1alpha1.KongCredentialBasicAuthSpec{
				ConsumerRef: corev1.LocalObjectReference{Name: "alice"}, Adopt: adopting(*basic.GetBasicAuth().ID),
				KongCredentialBasicAuthAPISpec: configurationv1alpha1.KongCredentialBasicAuthAPISpec{Username: "alice", Password: password},
			},
		}
	}
	samePassword, otherPassword := basicAuth("same", "first"), basicAuth("other", "second")
	usersKey := &configurationv1alpha1.KongCredentialAPIKey{
		ObjectMeta: objectMeta("users-key"),
		Spec: configurationv1alpha1.KongCredentialAPIKeySpec{
			ConsumerRef: corev1.LocalObjectReference{Name: "alice"}, Adopt: adopting(keyID),
			KongCredentialAPIKeyAPISpec: configurationv1alpha1.KongCredentialAPIKeyAPISpec{Key: "k-1"},
		},
	}
	keySecret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "alice-key", UID: "uid-alice-key",
			Labels: map[string]string{commonv1alpha1.LabelCredential: "key-auth"}, Annotations: map[string]string{entities.AnnotationAdoptID: keyID}},
		Data: map[string][]byte{"key": []byte("k-1")},
	}
	made, err := entities.CredentialFromSecret(consumer, keySecret)
	if err != nil {
		t.Fatal(err)
	}
	madeKey := made.(*configurationv1alpha1.KongCredentialAPIKey)
	madeKey.UID = "uid-made-alice-key"

	c := catalog.NewCatalog(append(w.objects, consumer, samePassword, otherPassword, usersKey, madeKey, keySecret))
	checkComparisons(t, w, c, []comparisonCase{
		{"a basic-auth credential whose password hashes the same", samePassword, catalog.StateEqual, nil},
		{"a basic-auth credential whose password differs", otherPassword, catalog.StateDiffers, []catalog.FieldDifference{
			{Field: "password", Hidden: true},
		}},
		{"a user's API key whose tags differ", usersKey, catalog.StateDiffers, []catalog.FieldDifference{
			{Field: "tags", Cluster: `[]`, Konnect: `["team:a"]`},
		}},
		{"an API key made from a Secret, every field hidden", madeKey, catalog.StateDiffers, []catalog.FieldDifference{
			{Field: "tags", Hidden: true},
		}},
	})
}

func TestCatalogShowsAConsumersGroupsByTheirKonnectIDs(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	consumerEntity, err := w.api.Consumers.CreateConsumer(ctx, w.cpID, components.Consumer{Username: ptr("bob")})
	if err != nil {
		t.Fatal(err)
	}
	groupEntity, err := w.api.ConsumerGroups.CreateConsumerGroup(ctx, w.cpID, components.ConsumerGroup{Name: "gold"})
	if err != nil {
		t.Fatal(err)
	}
	groupID := *groupEntity.GetConsumerGroup().ID

	group := &configurationv1beta1.KongConsumerGroup{ObjectMeta: objectMeta("gold")}
	group.Spec.Name, group.Spec.ControlPlaneRef = "gold", cpRef("cp")
	w.programmed(group, groupID)
	consumer := func(name string, groups ...string) *configurationv1.KongConsumer {
		c := &configurationv1.KongConsumer{ObjectMeta: objectMeta(name), Username: "bob", ConsumerGroups: groups}
		c.Spec.ControlPlaneRef = cpRef("cp")
		w.programmed(c, *consumerEntity.GetConsumer().ID)
		return c
	}
	alone, member := consumer("alone"), consumer("member", "gold")

	c := catalog.NewCatalog(append(w.objects, group, alone, member))
	checkComparisons(t, w, c, []comparisonCase{
		{"a consumer in none of its groups, as in Konnect", alone, catalog.StateEqual, nil},
		{"a consumer whose group Konnect does not list", member, catalog.StateDiffers, []catalog.FieldDifference{
			{Field: entities.ConsumerGroupsField, Cluster: `["` + groupID + `"]`, Konnect: `[]`},
		}},
	})
}
