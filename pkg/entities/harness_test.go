package entities

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// A kind's description is tested below the API server: its references
// against informer caches filled by hand, its body and comparisons as plain
// functions, and its SDK calls against the simulator in process.

// cachesOf remembers the cache behind each informer made by cacheOf.
var cachesOf sync.Map // any (*controller.Informer[T]) -> cache.Indexer

// cacheOf returns an informer for T that is never started: a test fills its
// cache with put.
func cacheOf[T controller.Object](resource string) *controller.Informer[T] {
	var zero T
	shared := cache.NewSharedIndexInformer(&cache.ListWatch{}, zero, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	inf := controller.NewInformer[T](schema.GroupResource{Resource: resource}, map[string]cache.SharedIndexInformer{"": shared})
	cachesOf.Store(inf, shared.GetIndexer())
	return inf
}

// put adds (or replaces) objects in the cache of an informer made by cacheOf.
func put[T controller.Object](t *testing.T, inf *controller.Informer[T], objs ...T) {
	t.Helper()
	indexer, ok := cachesOf.Load(inf)
	if !ok {
		t.Fatalf("put: %T was not made by cacheOf", inf)
	}
	for _, obj := range objs {
		if err := indexer.(cache.Indexer).Update(obj); err != nil {
			t.Fatal(err)
		}
	}
}

// testRefs is a Refs over hand-filled caches.
func testRefs() *Refs {
	return &Refs{
		ControlPlanes: cacheOf[*konnectv1alpha2.KonnectGatewayControlPlane]("konnectgatewaycontrolplanes"),
		AuthConfigs:   cacheOf[*konnectv1alpha1.KonnectAPIAuthConfiguration]("konnectapiauthconfigurations"),
		Secrets:       nil,
		Grants:        cacheOf[*configurationv1alpha1.KongReferenceGrant]("kongreferencegrants"),
		Validations:   &Validations{Konnect: everyTokenValid{}},
	}
}

// everyTokenValid answers that every token is the test organisation's.
type everyTokenValid struct{}

func (everyTokenValid) Organization(context.Context, string, string) (konnect.Organization, error) {
	return konnect.Organization{ID: testOrgID}, nil
}

const (
	testNamespace = "ns"
	testServerURL = "https://eu.api.konghq.com"
	testOrgID     = "org-1"
)

// programmedControlPlane puts a Programmed control plane named name, with
// Konnect ID id, and a valid auth configuration with an inline token into
// the caches of refs.
func programmedControlPlane(t *testing.T, refs *Refs, name, id string) *konnectv1alpha2.KonnectGatewayControlPlane {
	t.Helper()
	auth := &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "auth"},
		Spec:       konnectv1alpha1.KonnectAPIAuthConfigurationSpec{Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: "kpat_test", ServerURL: "eu.api.konghq.com"},
		Status: konnectv1alpha1.KonnectAPIAuthConfigurationStatus{
			OrganizationID: testOrgID, ServerURL: testServerURL,
			Conditions: []metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, "")},
		},
	}
	if _, err := refs.AuthConfigs.Get(testNamespace, "auth"); err != nil {
		put(t, refs.AuthConfigs, auth)
	}
	cp := &konnectv1alpha2.KonnectGatewayControlPlane{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name},
		Spec: konnectv1alpha2.KonnectGatewayControlPlaneSpec{
			Konnect: &konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: "auth"}},
		},
	}
	cp.Status.ID = id
	cp.Status.Conditions = []metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, "")}
	put(t, refs.ControlPlanes, cp)
	return cp
}

// konnectRef is a controlPlaneRef to the control plane name of the test
// namespace.
func konnectRef(name string) *commonv1alpha1.ControlPlaneRef {
	return &commonv1alpha1.ControlPlaneRef{
		Type:                 commonv1alpha1.ControlPlaneRefKonnectNamespacedRef,
		KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: name},
	}
}

// objectMeta is the metadata of a test object.
func objectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: testNamespace, Name: name, UID: types.UID("uid-" + name), Generation: 1}
}

// conditionStatus returns the status of one condition of a resolution, ""
// when absent.
func conditionStatus(res controller.Resolution, conditionType string) metav1.ConditionStatus {
	for _, c := range res.Conditions {
		if c.Type == conditionType {
			return c.Status
		}
	}
	return ""
}

// conditionOf returns one condition of a resolution, its Type alone when
// absent.
func conditionOf(res controller.Resolution, conditionType string) metav1.Condition {
	for _, c := range res.Conditions {
		if c.Type == conditionType {
			return c
		}
	}
	return metav1.Condition{Type: conditionType}
}

// simulated is the simulator in process, with one organisation, and its API
// through the operator's own client.
type simulated struct {
	sim *konnectsim.TestServer
	api konnect.API
}

func startSimulator(t testing.TB) simulated {
	t.Helper()
	sim := konnectsim.Start(t, konnectsim.Options{Tokens: map[string]string{"kpat_test": "acme"}})
	factory := konnect.NewClientFactory(konnect.Options{RootCAs: sim.CAPool, RequestsPerSecond: 1e6, Burst: 1e6})
	api, err := factory.API(sim.URL, "kpat_test")
	if err != nil {
		t.Fatal(err)
	}
	return simulated{sim: sim, api: api}
}

// controlPlane creates a control plane in the simulator and returns where
// its entities live.
func (s simulated) controlPlane(t testing.TB, name string) controller.Placement {
	t.Helper()
	res, err := s.api.ControlPlanes.CreateControlPlane(t.Context(), components.CreateControlPlaneRequest{Name: name})
	if err != nil {
		t.Fatalf("create control plane: %v", err)
	}
	return controller.Placement{ControlPlaneID: res.GetControlPlane().GetID()}
}

// exerciseCalls runs one collection's calls against the simulator: create,
// read, overwrite, find by the UID tag, delete, and read what is gone.
func exerciseCalls[D, A any](t *testing.T, s simulated, p controller.Placement, calls coreCalls[D, A], body, changed D, uidTag string) {
	t.Helper()
	ctx := context.Background()
	created, err := calls.doCreate(ctx, s.api, p, body)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	id := deref(calls.id(created))
	if id == "" {
		t.Fatal("create answered no ID")
	}
	if _, err := calls.doUpsert(ctx, s.api, p, id, changed); err != nil {
		t.Fatalf("upsert: %v", err)
	}
	got, err := calls.doGet(ctx, s.api, p, id)
	if err != nil || deref(calls.id(got)) != id {
		t.Fatalf("get: %v, %v", got, err)
	}
	if !slices.Contains(calls.tags(got), uidTag) {
		t.Fatalf("the entity lost its UID tag: %v", calls.tags(got))
	}
	found, err := calls.findByUID(ctx, s.api, uidTag, p)
	if err != nil || found != id {
		t.Fatalf("find by UID: %q, %v; want %q", found, err, id)
	}
	if other, err := calls.findByUID(ctx, s.api, controller.TagKeyUID+":nobody", p); err != nil || other != "" {
		t.Fatalf("find by another UID: %q, %v; want nothing", other, err)
	}
	if err := calls.doDelete(ctx, s.api, p, id); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := calls.doGet(ctx, s.api, p, id); !konnect.IsNotFound(err) {
		t.Fatalf("get after delete: %v, want not found", err)
	}
}

// ptr points to a copy of v, for the SDK's optional fields.
func ptr[T any](v T) *T { return &v }

// programmedIn marks obj Programmed as entity id of control plane cpID.
func programmedIn[T placedEntity](obj T, cpID, id string) T {
	status := obj.ControlPlaneStatus(true)
	status.ID, status.ControlPlaneID = id, cpID
	obj.SetConditions([]metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, "")})
	return obj
}

// grant puts into refs a KongReferenceGrant in namespace that lets kind
// objects of namespace from refer to toKind objects of toGroup.
func grant(t *testing.T, refs *Refs, namespace, fromKind, from, toGroup, toKind string) {
	t.Helper()
	put(t, refs.Grants, &configurationv1alpha1.KongReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fromKind + "-to-" + toKind},
		Spec: configurationv1alpha1.KongReferenceGrantSpec{
			From: []configurationv1alpha1.ReferenceGrantFrom{{Group: groupConfiguration, Kind: fromKind, Namespace: from}},
			To:   []configurationv1alpha1.ReferenceGrantTo{{Group: toGroup, Kind: toKind}},
		},
	})
}
