package tree

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned/fake"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/inventory"
)

const ns = "payments"

const rejected = "Konnect rejected the token: get organization: unauthorized (HTTP 401): Invalid credentials"

func objectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, Generation: 1}
}

func authConfig(name string, valid metav1.Condition) *konnectv1alpha1.KonnectAPIAuthConfiguration {
	a := &konnectv1alpha1.KonnectAPIAuthConfiguration{ObjectMeta: objectMeta(name)}
	valid.ObservedGeneration = 1
	a.Status.Conditions = []metav1.Condition{valid}
	return a
}

func controlPlane(name, auth, id string, programmed metav1.Condition) *konnectv1alpha2.KonnectGatewayControlPlane {
	cp := &konnectv1alpha2.KonnectGatewayControlPlane{ObjectMeta: objectMeta(name)}
	cp.Spec.CreateControlPlaneRequest = &konnectv1alpha2.CreateControlPlaneRequest{Name: name}
	cp.Spec.Konnect = &konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: auth}}
	cp.Status.ID = id
	programmed.ObservedGeneration = 1
	cp.Status.Conditions = []metav1.Condition{programmed}
	return cp
}

func service(name, cp, id string, programmed metav1.Condition) *configurationv1alpha1.KongService {
	s := &configurationv1alpha1.KongService{ObjectMeta: objectMeta(name)}
	s.Spec.ControlPlaneRef = &commonv1alpha1.ControlPlaneRef{
		Type: commonv1alpha1.ControlPlaneRefKonnectNamespacedRef, KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: cp},
	}
	s.Spec.Host = name + ".example.com"
	if id != "" {
		s.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndCertificateAndCACertificatesRefs{}
		s.Status.Konnect.ID = id
	}
	programmed.ObservedGeneration = 1
	s.Status.Conditions = []metav1.Condition{programmed}
	return s
}

func route(name, svc string, programmed metav1.Condition) *configurationv1alpha1.KongRoute {
	r := &configurationv1alpha1.KongRoute{ObjectMeta: objectMeta(name)}
	r.Spec.ServiceRef = &configurationv1alpha1.ServiceRef{
		Type: configurationv1alpha1.ServiceRefTypeNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: svc},
	}
	r.Spec.Paths = []string{"/" + name}
	programmed.ObservedGeneration = 1
	r.Status.Conditions = []metav1.Condition{programmed}
	return r
}

var (
	programmed = controller.TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, "")
	blocked    = controller.FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonBlockedByReference, "a reference is blocked")
	waiting    = controller.FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonWaitingForReferences, "a reference is missing")
)

// read is what kubectl konnect status reads of a cluster holding objs.
func read(t *testing.T, objs ...runtime.Object) *inventory.Objects {
	t.Helper()
	read, err := inventory.Read(t.Context(), inventory.Cluster{Clientset: fake.NewSimpleClientset(objs...), Kube: kubefake.NewSimpleClientset()}, ns, inventory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return read
}

// cluster holds a chain whose auth configuration has a token Konnect
// rejects, a route whose service does not exist, and a chain that is
// Programmed.
func cluster(t *testing.T) *inventory.Objects {
	return read(t,
		authConfig("konnect", controller.FalseCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, rejected)),
		controlPlane("prod", "konnect", "", blocked),
		service("orders", "prod", "", blocked),
		route("orders", "orders", blocked),
		route("orphan", "later", waiting),
		authConfig("ok", controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, "")),
		controlPlane("dev", "ok", "cp-1", programmed),
		service("api", "dev", "svc-1", programmed),
		&configurationv1.KongPlugin{ObjectMeta: objectMeta("cors"), PluginName: "cors"},
		binding("cors", "dev", "cors", "gone", waiting),
	)
}

func binding(name, cp, plugin, target string, programmed metav1.Condition) *configurationv1alpha1.KongPluginBinding {
	b := &configurationv1alpha1.KongPluginBinding{ObjectMeta: objectMeta(name)}
	b.Spec.ControlPlaneRef = &commonv1alpha1.ControlPlaneRef{
		Type: commonv1alpha1.ControlPlaneRefKonnectNamespacedRef, KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: cp},
	}
	b.Spec.PluginRef = configurationv1alpha1.PluginRef{Name: plugin}
	b.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{
		ServiceRef: &configurationv1alpha1.TargetRefWithGroupKind{Name: target, Kind: "KongService", Group: "configuration.konghq.com"},
	}
	programmed.ObservedGeneration = 1
	b.Status.Conditions = []metav1.Condition{programmed}
	return b
}

func asked(t *testing.T, objects *inventory.Objects, args ...string) []*Node {
	t.Helper()
	targets, err := inventory.ParseTargets(args)
	if err != nil {
		t.Fatal(err)
	}
	selected, err := objects.Pick(ns, targets)
	if err != nil {
		t.Fatal(err)
	}
	return Of(objects, selected)
}

func TestTheCauseOfAnObjectNamesTheRootOfItsReferences(t *testing.T) {
	objects := cluster(t)
	for _, tc := range []struct{ object, cause string }{
		{"kongroute/orders", "KongRoute orders waits for KongService orders, which waits for KonnectGatewayControlPlane prod, which waits for KonnectAPIAuthConfiguration konnect: " + rejected},
		{"kongroute/orphan", "KongRoute orphan waits for KongService later, which does not exist"},
		// The KongPlugin it names is there; the operator reports on it
		// through the binding, never on its own.
		{"kongpluginbinding/cors", "KongPluginBinding cors waits for KongService gone, which does not exist"},
		{"kongservice/api", ""},
	} {
		got := asked(t, objects, tc.object)[0]
		if got.Cause != tc.cause {
			t.Errorf("%s: cause %q, want %q", tc.object, got.Cause, tc.cause)
		}
	}
}

func TestAnAskedObjectShowsWhatItRefersToAndWhatRefersToIt(t *testing.T) {
	objects := cluster(t)
	svc := asked(t, objects, "kongservice/orders")[0]
	up := []string{}
	for n := svc; len(n.References) > 0; n = n.References[0] {
		up = append(up, n.References[0].Kind+" "+n.References[0].Name+" "+n.References[0].Status)
	}
	if want := []string{"KonnectGatewayControlPlane prod False", "KonnectAPIAuthConfiguration konnect False"}; strings.Join(up, "; ") != strings.Join(want, "; ") {
		t.Errorf("the service refers to %v, want %v", up, want)
	}
	if len(svc.Referrers) != 1 || svc.Referrers[0].Name != "orders" || svc.Referrers[0].Kind != "KongRoute" {
		t.Errorf("referrers %+v, want the route orders", svc.Referrers)
	}
	if api := asked(t, objects, "kongservice/api")[0]; api.KonnectID != "svc-1" || api.Status != "True" {
		t.Errorf("a Programmed service: %+v", api)
	}

	var text bytes.Buffer
	if err := Print(&text, []*Node{svc}, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"KongService payments/orders  Programmed=False (BlockedByReference)\n",
		"  why: KongService orders waits for KonnectGatewayControlPlane prod, which waits for KonnectAPIAuthConfiguration konnect: " + rejected,
		"  refers to:\n  └── KonnectGatewayControlPlane payments/prod  Programmed=False (BlockedByReference)\n",
		"      └── KonnectAPIAuthConfiguration payments/konnect  APIAuthValid=False (Invalid)\n",
		"  referred to by:\n  └── KongRoute payments/orders  Programmed=False (BlockedByReference)\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("no %q in:\n%s", want, text.String())
		}
	}
}

func TestANamespaceIsAForestBelowWhatEachObjectNamesFirst(t *testing.T) {
	var text bytes.Buffer
	if err := Print(&text, Forest(cluster(t), ns), false); err != nil {
		t.Fatal(err)
	}
	want := `KongService payments/later  not found
└── KongRoute payments/orphan  Programmed=False (WaitingForReferences)
    why: KongRoute orphan waits for KongService later, which does not exist
KonnectAPIAuthConfiguration payments/konnect  APIAuthValid=False (Invalid)
  why: KonnectAPIAuthConfiguration konnect: ` + rejected + `
└── KonnectGatewayControlPlane payments/prod  Programmed=False (BlockedByReference)
    why: KonnectGatewayControlPlane prod waits for KonnectAPIAuthConfiguration konnect: ` + rejected + `
    └── KongService payments/orders  Programmed=False (BlockedByReference)
        why: KongService orders waits for KonnectGatewayControlPlane prod, which waits for KonnectAPIAuthConfiguration konnect: ` + rejected + `
        └── KongRoute payments/orders  Programmed=False (BlockedByReference)
            why: KongRoute orders waits for KongService orders, which waits for KonnectGatewayControlPlane prod, which waits for KonnectAPIAuthConfiguration konnect: ` + rejected + `
KonnectAPIAuthConfiguration payments/ok  APIAuthValid=True
└── KonnectGatewayControlPlane payments/dev  Programmed=True  id cp-1
    ├── KongPluginBinding payments/cors  Programmed=False (WaitingForReferences)
    │   why: KongPluginBinding cors waits for KongService gone, which does not exist
    └── KongService payments/api  Programmed=True  id svc-1
`
	if text.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", text.String(), want)
	}
}

func TestJSONCarriesTheTreeForScripts(t *testing.T) {
	var out bytes.Buffer
	if err := PrintJSON(&out, asked(t, cluster(t), "kongroute/orders")); err != nil {
		t.Fatal(err)
	}
	var got []Node
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Cause == "" || got[0].Reason != commonv1alpha1.ReasonBlockedByReference ||
		len(got[0].References) != 1 || got[0].References[0].Kind != "KongService" {
		t.Fatalf("JSON: %s", out.String())
	}
}
