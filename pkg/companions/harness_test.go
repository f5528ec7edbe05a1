package companions

import (
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// The companion controllers' unit tests run them over informer caches
// filled by hand; package operator runs them against an API server.

const testNamespace = "ns"

type kongBasicAuth = *configurationv1alpha1.KongCredentialBasicAuth

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

// testRefs is a Refs over hand-filled caches, without Secrets.
func testRefs() *entities.Refs {
	return &entities.Refs{
		ControlPlanes: cacheOf[controlPlane]("konnectgatewaycontrolplanes"),
		AuthConfigs:   cacheOf[authConfig]("konnectapiauthconfigurations"),
		Grants:        cacheOf[*configurationv1alpha1.KongReferenceGrant]("kongreferencegrants"),
	}
}
