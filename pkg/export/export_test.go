package export_test

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/catalog"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
	"github.com/konnect-operator/konnect-operator/pkg/export"
	"github.com/konnect-operator/konnect-operator/pkg/export/exporttest"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

const (
	testToken     = "kpat_export_test"
	testNamespace = "payments"
	testAuth      = "konnect"
)

// world is a simulator holding a seeded control plane and a seeded event
// gateway, and the operator's client of it.
type world struct {
	sim     *konnectsim.TestServer
	clients *konnect.ClientFactory
	api     konnect.API
	seeded  exporttest.Seeded
	gateway exporttest.SeededEventGateway
}

func newWorld(t *testing.T, copies int) world {
	t.Helper()
	sim := konnectsim.Start(t, konnectsim.Options{Tokens: map[string]string{testToken: "acme"}})
	clients := konnect.NewClientFactory(konnect.Options{RootCAs: sim.CAPool, RequestsPerSecond: 1e6, Burst: 1e6})
	api, err := clients.API(sim.URL, testToken)
	if err != nil {
		t.Fatal(err)
	}
	seeded, err := exporttest.Seed(t.Context(), api, "Payments Prod", copies)
	if err != nil {
		t.Fatal(err)
	}
	gateway, err := exporttest.SeedEventGateway(t.Context(), api, exporttest.EventGatewayFamily{Name: "payments-events", Namespace: testNamespace})
	if err != nil {
		t.Fatal(err)
	}
	return world{sim: sim, clients: clients, api: api, seeded: seeded, gateway: gateway}
}

func (w world) export(t *testing.T) export.Result {
	t.Helper()
	res, err := export.Export(t.Context(), w.api, export.Options{
		ControlPlane: w.seeded.ControlPlane.ID, EventGateway: "payments-events", Namespace: testNamespace, AuthConfiguration: testAuth,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestExportAdoptsEveryKindWithoutADifference exports a control plane with
// an entity of every kind, and an event gateway with an entity of every
// kind its objects take back, and checks, the way the operator adopts and
// takes back, that each object's body equals its entity: references
// resolved through the other exported objects as they are once
// Programmed, credentials made from their Secrets as the operator makes
// them.
func TestExportAdoptsEveryKindWithoutADifference(t *testing.T) {
	w := newWorld(t, 2)
	ctx := t.Context()
	w.sim.ResetCalls()
	res := w.export(t)

	for _, r := range w.sim.Requests() {
		if r.Method != http.MethodGet {
			t.Errorf("the export wrote to Konnect: %s %s", r.Method, r.Path)
		}
	}
	adopted := adoptedIDs(t, res.Objects)
	stores := storeIDs(t, w, res.Objects)
	for collection, ids := range w.seeded.IDs {
		for _, id := range ids {
			if collection == "config-stores" {
				// Taken by name: they have no spec.adopt.
				adopted[id] = stores[id]
			}
			if adopted[id] != 1 {
				t.Errorf("%s %s is adopted by %d objects, want 1", collection, id, adopted[id])
			}
		}
	}
	checkNames(t, res.Objects)
	taking := map[string]int{}
	for _, obj := range res.Objects {
		if key := egKey(obj); key != "" {
			taking[key]++
		}
	}
	if len(w.gateway.Objects) != exporttest.EventGatewayEntities {
		t.Errorf("seeded %d Event Gateway entities, want %d", len(w.gateway.Objects), exporttest.EventGatewayEntities)
	}
	for key := range w.gateway.Objects {
		if taking[key] != 1 {
			t.Errorf("%s is exported %d times, want once, as the object its entity was written for", key, taking[key])
		}
	}
	if len(taking) != len(w.gateway.Objects) {
		t.Errorf("exported Event Gateway objects %v, want those of %v", taking, w.gateway.Objects)
	}

	objects := prospective(t, w, res.Objects)
	kinds := catalog.NewCatalog(objects)
	compared := map[string]int{}
	for _, obj := range objects {
		if _, ok := obj.(interface{ GetConditions() []metav1.Condition }); !ok || isAuth(obj) {
			continue
		}
		if _, isPlugin := obj.(*configurationv1.KongPlugin); isPlugin {
			continue
		}
		cmp, err := kinds.Compare(ctx, w.clients, obj)
		kind := fmt.Sprintf("%T", obj)
		if err != nil {
			t.Fatalf("%s %s: %v", kind, obj.(metav1.Object).GetName(), err)
		}
		want := catalog.StateEqual
		if strings.HasSuffix(kind, "KonnectGatewayControlPlane") {
			want = catalog.StateNotCompared // a mirror is only read
		}
		if cmp.State != want || len(cmp.Fields) > 0 {
			t.Errorf("%s %s: %s %s %+v, want %s", kind, obj.(metav1.Object).GetName(), cmp.State, cmp.Message, cmp.Fields, want)
		}
		compared[kind]++
	}
	if len(compared) != 31 {
		t.Errorf("compared %d kinds, want the control plane, its 20 kinds of entities and the 10 Event Gateway kinds: %v", len(compared), compared)
	}
}

// TestExportIsStableAndSaysWhatItCannotExpress exports twice (the same
// bytes) and checks what standard error is told: the basic-auth password
// and the Event Gateway passwords and keys Konnect does not give back, an
// expression route and its plugin, which are not exported, and an Event
// Gateway listener written for an object of another namespace, which is
// not either.
func TestExportIsStableAndSaysWhatItCannotExpress(t *testing.T) {
	w := newWorld(t, 1)
	ctx := t.Context()
	expr, err := w.api.Routes.CreateRoute(ctx, w.seeded.ControlPlane.ID, components.CreateRouteRouteExpression(components.RouteExpression{
		Name: ptr("by-expression"), Expression: ptr(`http.path == "/expr"`),
	}))
	if err != nil {
		t.Fatal(err)
	}
	// Kong's SDK decodes the answer as a JSON route without matchers.
	exprID := *routeID(expr.GetRoute())
	enabled := true
	if _, err := w.api.Plugins.CreatePlugin(ctx, w.seeded.ControlPlane.ID, components.Plugin{
		Name: "cors", Enabled: &enabled, Route: &components.PluginRoute{ID: &exprID},
	}); err != nil {
		t.Fatal(err)
	}
	elsewhere := createListener(t, w, w.gateway.GatewayID, "written-elsewhere", map[string]string{
		"k8s-kind": "EventGatewayListener", "k8s-namespace": "other", "k8s-name": "listener", "k8s-uid": "f00d",
	})
	var first, second bytes.Buffer
	res := w.export(t)
	if err := export.Write(&first, res.Objects); err != nil {
		t.Fatal(err)
	}
	if err := export.Write(&second, w.export(t).Objects); err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() {
		t.Error("two exports of the same control plane differ")
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{
		"not exported: route " + exprID + ": an expression route",
		"not exported: plugin cors",
		"hash of the password of basic-auth credential " + w.seeded.IDs["basic-auths"][0],
		"not exported: listener " + elsewhere + ": it was written for EventGatewayListener other/listener: export it with -n other",
		"EventGatewayBackendCluster kafka: Konnect never answers authentication.password, so it is exported as \"replace-me:",
		"EventGatewayVirtualCluster orders: Konnect never answers authentication[].principals[].password",
		"EventGatewaySchemaRegistry registry: Konnect never answers config.authentication.basic.password, so it is exported as an empty inline value",
		"EventGatewayListenerPolicy tls: Konnect never answers config.certificates[].key, so it is exported as an empty inline value",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("standard error lacks %q:\n%s", want, notes)
		}
	}
	if strings.Contains(first.String(), "s3cret") {
		t.Error("the export holds a password it cannot know")
	}
	if strings.Contains(notes, "kafka-by-reference") || !strings.Contains(first.String(), "password: "+exporttest.VaultPassword) {
		t.Errorf("a password given as a vault reference is not exported as it is:\n%s", notes)
	}
	for _, secret := range []string{"key-of-alice-0", "hmac-secret", "jwt-secret", "name: kafka-tls-client-identity"} {
		if !strings.Contains(first.String(), secret) {
			t.Errorf("the export lacks the secret material %q Konnect returns", secret)
		}
	}
}

// TestExportSaysWhatOfAnEventGatewayItCannotHandBack: an Event Gateway
// entity is exported as the object its identity labels name, which takes
// it back; standard error says what no exported object would take back
// (a gateway made in Konnect's UI, whose kinds have no spec.adopt, and
// what it holds; two entities written for one object), and whose
// operator an exported object must run under.
func TestExportSaysWhatOfAnEventGatewayItCannotHandBack(t *testing.T) {
	cases := []struct {
		name string
		// make returns the gateway to export and what standard error says.
		make    func(t *testing.T, w world) (gateway string, notes []string)
		objects int
	}{
		{
			name: "made in Konnect's UI",
			make: func(t *testing.T, w world) (string, []string) {
				made, err := w.api.EventGateways.CreateEventGateway(t.Context(), components.CreateGatewayRequest{Name: "made-in-ui"})
				if err != nil {
					t.Fatal(err)
				}
				id := made.GetEventGatewayInfo().GetID()
				createListener(t, w, id, "public", nil)
				return id, []string{
					"not exported: event gateway " + id + ": it carries no identity labels", "has no spec.adopt",
					"not exported either: the 1 entities event gateway " + id + " holds",
				}
			},
		},
		{
			name: "written by another cluster's operator",
			make: func(t *testing.T, w world) (string, []string) {
				other, err := exporttest.SeedEventGateway(t.Context(), w.api, exporttest.EventGatewayFamily{Name: "other", Namespace: testNamespace, Cluster: "old-cluster"})
				if err != nil {
					t.Fatal(err)
				}
				return other.GatewayID, []string{"written by the operator of cluster old-cluster (label k8s-cluster): the exported objects take them back only under an operator run with --cluster-identity=old-cluster"}
			},
			objects: exporttest.EventGatewayEntities,
		},
		{
			name: "two entities written for one object",
			make: func(t *testing.T, w world) (string, []string) {
				twin := createListener(t, w, w.gateway.GatewayID, "twin", map[string]string{
					"k8s-kind": "EventGatewayListener", "k8s-namespace": testNamespace, "k8s-name": "listener", "k8s-uid": "f00d",
				})
				return w.gateway.GatewayID, []string{
					"not exported: listener " + twin + ": 2 entities of its collection were written for EventGatewayListener payments/listener",
					"not exported: listener " + w.gateway.Objects["EventGatewayListener/listener"] + ": 2 entities",
					"not exported: listener policy",
				}
			},
			objects: exporttest.EventGatewayEntities - 3, // the listener and its two policies
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 0)
			gateway, want := tc.make(t, w)
			res, err := export.Export(t.Context(), w.api, export.Options{EventGateway: gateway, Namespace: testNamespace, AuthConfiguration: testAuth})
			if err != nil {
				t.Fatal(err)
			}
			entities := 0
			for _, obj := range res.Objects {
				if egKey(obj) != "" {
					entities++
				}
			}
			if entities != tc.objects {
				t.Errorf("exported %d Event Gateway objects, want %d", entities, tc.objects)
			}
			notes := strings.Join(res.Notes, "\n")
			for _, line := range want {
				if !strings.Contains(notes, line) {
					t.Errorf("standard error lacks %q:\n%s", line, notes)
				}
			}
		})
	}
}

// createListener creates a listener of the gateway through Konnect's API,
// with the given labels, and returns its ID.
func createListener(t *testing.T, w world, gateway, name string, labels map[string]string) string {
	t.Helper()
	res, err := w.api.EventGatewayListeners.CreateEventGatewayListener(t.Context(), gateway, &components.CreateEventGatewayListenerRequest{
		Name: name, Addresses: []string{"0.0.0.0"}, Ports: []components.EventGatewayListenerPort{components.CreateEventGatewayListenerPortInteger(9093)},
		Labels: labels,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.GetEventGatewayListener().GetID()
}

// adoptedIDs counts the objects adopting each ID, Secrets naming a
// credential to adopt included.
func adoptedIDs(t *testing.T, objects []runtime.Object) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, obj := range objects {
		if secret, ok := obj.(*corev1.Secret); ok {
			if id := secret.Annotations[entities.AnnotationAdoptID]; id != "" {
				out[id]++
			}
			continue
		}
		if id := adoptID(t, obj); id != "" {
			out[id]++
		}
	}
	return out
}

func adoptID(t *testing.T, obj runtime.Object) string {
	t.Helper()
	fields, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := fields["spec"].(map[string]any)
	if mirror, ok := spec["mirror"].(map[string]any); ok {
		return mirror["konnect"].(map[string]any)["id"].(string)
	}
	adopt, _ := spec["adopt"].(map[string]any)
	if adopt == nil {
		return ""
	}
	if adopt["mode"] != string(commonv1alpha1.AdoptModeMatch) {
		t.Errorf("%T adopts in mode %v, want match", obj, adopt["mode"])
	}
	return adopt["konnect"].(map[string]any)["id"].(string)
}

// checkNames checks that names are DNS-1123 labels, unique per kind.
func checkNames(t *testing.T, objects []runtime.Object) {
	t.Helper()
	seen := map[string]bool{}
	for _, obj := range objects {
		name := obj.(metav1.Object).GetName()
		for _, problem := range validation.IsDNS1123Label(name) {
			t.Errorf("%T %q: %s", obj, name, problem)
		}
		key := obj.GetObjectKind().GroupVersionKind().Kind + "/" + name
		if seen[key] {
			t.Errorf("two objects are called %s", key)
		}
		seen[key] = true
	}
}

// prospective is the exported objects as the cluster holds them once the
// operator adopted them: every entity Programmed with the ID it adopted,
// Secrets' string data as data, the credentials made from Secrets, and the
// auth configuration the export names.
func prospective(t *testing.T, w world, exported []runtime.Object) []runtime.Object {
	t.Helper()
	out := []runtime.Object{&konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: testAuth},
		Spec:       konnectv1alpha1.KonnectAPIAuthConfigurationSpec{Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: testToken, ServerURL: w.sim.URL},
		Status: konnectv1alpha1.KonnectAPIAuthConfigurationStatus{
			ServerURL:  w.sim.URL,
			Conditions: []metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, "")},
		},
	}}
	secrets := map[string]*corev1.Secret{}
	for _, obj := range exported {
		obj = obj.DeepCopyObject()
		meta := obj.(metav1.Object)
		meta.SetUID(types.UID("uid-" + meta.GetName()))
		if secret, ok := obj.(*corev1.Secret); ok {
			secret.Data = map[string][]byte{}
			for k, v := range secret.StringData {
				secret.Data[k] = []byte(v)
			}
			secrets[secret.Name] = secret
		}
		programmed(t, w, obj)
		egProgrammed(t, w, obj)
		if store, ok := obj.(*konnectv1alpha1.KonnectConfigStore); ok {
			store.Status.ID = storeIDOf(t, w, store.Spec.APISpec.Name)
			store.Status.ControlPlaneID = &commonv1alpha1.KonnectEntityRef{ID: w.seeded.ControlPlane.ID}
		}
		out = append(out, obj)
	}
	for _, obj := range slices.Clone(out) {
		consumer, ok := obj.(*configurationv1.KongConsumer)
		if !ok {
			continue
		}
		for _, name := range consumer.Credentials {
			made, err := entities.CredentialFromSecret(consumer, secrets[name])
			if err != nil {
				t.Fatal(err)
			}
			made.(metav1.Object).SetName(name)
			made.(metav1.Object).SetUID(types.UID("uid-made-" + name))
			programmed(t, w, made)
			out = append(out, made)
		}
	}
	return out
}

// programmed marks an entity object Programmed with the ID it adopts.
func programmed(t *testing.T, w world, obj runtime.Object) {
	t.Helper()
	entity, ok := obj.(interface {
		KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus
		SetConditions([]metav1.Condition)
	})
	if !ok || isAuth(obj) {
		return
	}
	entity.KonnectStatus(true).ID = adoptID(t, obj)
	if placed, ok := obj.(interface {
		ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef
	}); ok {
		placed.ControlPlaneStatus(true).ControlPlaneID = w.seeded.ControlPlane.ID
	}
	entity.SetConditions([]metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, "")})
}

// egParents are the kinds of the parents of the Event Gateway kinds whose
// parent is not the gateway.
var egParents = map[string]string{
	"EventGatewayVirtualCluster":              "EventGatewayBackendCluster",
	"EventGatewayListenerPolicy":              "EventGatewayListener",
	"EventGatewayVirtualClusterPolicy":        "EventGatewayVirtualCluster",
	"EventGatewayVirtualClusterConsumePolicy": "EventGatewayVirtualCluster",
	"EventGatewayVirtualClusterProducePolicy": "EventGatewayVirtualCluster",
}

// egKey is Kind/name of an Event Gateway object, "" for other objects.
func egKey(obj runtime.Object) string {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if kind != "KonnectEventGateway" && !strings.HasPrefix(kind, "EventGateway") {
		return ""
	}
	return kind + "/" + obj.(metav1.Object).GetName()
}

// egProgrammed marks an Event Gateway object Programmed with the ID of the
// entity seeded for it, which it takes back, and its status with the IDs
// of its gateway and parent, as the operator records them.
func egProgrammed(t *testing.T, w world, obj runtime.Object) {
	t.Helper()
	key := egKey(obj)
	if key == "" {
		return
	}
	id := w.gateway.Objects[key]
	if id == "" {
		t.Fatalf("%s takes back no seeded entity", key)
	}
	obj.(interface {
		KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus
	}).KonnectStatus(true).ID = id
	obj.(interface{ SetConditions([]metav1.Condition) }).SetConditions([]metav1.Condition{
		controller.TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, ""),
	})
	child, ok := obj.(interface {
		EventGatewayRecords() configurationv1alpha1.EventGatewayRecords
		EventGatewayParentRef() *commonv1alpha1.ObjectRef
	})
	if !ok {
		return
	}
	records := child.EventGatewayRecords()
	records.RecordGatewayID(w.gateway.GatewayID)
	if parentKind := egParents[obj.GetObjectKind().GroupVersionKind().Kind]; parentKind != "" {
		records.RecordParentID(w.gateway.Objects[parentKind+"/"+child.EventGatewayParentRef().NamespacedRef.Name])
	}
}

func isAuth(obj runtime.Object) bool {
	_, ok := obj.(*konnectv1alpha1.KonnectAPIAuthConfiguration)
	return ok
}

func ptr[T any](v T) *T { return &v }

func routeID(r *components.Route) *string {
	if r.RouteJSON != nil {
		return r.RouteJSON.ID
	}
	return r.RouteExpression.ID
}

// storeIDs counts, by Konnect ID, the exported config stores that name
// each seeded store: an object takes the store of its name.
func storeIDs(t *testing.T, w world, objects []runtime.Object) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, obj := range objects {
		if store, ok := obj.(*konnectv1alpha1.KonnectConfigStore); ok {
			out[storeIDOf(t, w, store.Spec.APISpec.Name)]++
		}
	}
	return out
}

// storeIDOf is the Konnect ID of the seeded control plane's config store
// of the given name.
func storeIDOf(t *testing.T, w world, name string) string {
	t.Helper()
	for _, s := range w.sim.APIEntities("acme", "config-stores", w.seeded.ControlPlane.ID) {
		if s["name"] == name {
			return s["id"].(string)
		}
	}
	t.Fatalf("no config store %q in Konnect", name)
	return ""
}
