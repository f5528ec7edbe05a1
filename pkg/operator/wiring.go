package operator

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned/scheme"
	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/companions"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// wiring builds controllers: it hands out one typed cache per resource
// (the same one to every controller that reads it) and typed clients, and
// collects the controllers built and the first error, so that the list of
// controllers in buildControllers reads as a table.
type wiring struct {
	f     *informerFactories
	d     dependencies
	rest  map[schema.GroupVersion]rest.Interface
	views map[viewKey]any
	built []runnable
	err   error
}

func newWiring(f *informerFactories, d dependencies) *wiring {
	cs := d.clientset
	return &wiring{
		f: f, d: d,
		rest: map[schema.GroupVersion]rest.Interface{
			groupVersion(configurationv1.GroupVersion):       cs.ConfigurationV1().RESTClient(),
			groupVersion(configurationv1alpha1.GroupVersion): cs.ConfigurationV1alpha1().RESTClient(),
			groupVersion(configurationv1beta1.GroupVersion):  cs.ConfigurationV1beta1().RESTClient(),
			groupVersion(konnectv1alpha1.GroupVersion):       cs.KonnectV1alpha1().RESTClient(),
			groupVersion(konnectv1alpha2.GroupVersion):       cs.KonnectV1alpha2().RESTClient(),
		},
		views: map[viewKey]any{},
	}
}

// add keeps a built controller, or the first error.
func (w *wiring) add(c runnable, err error) {
	switch {
	case w.err != nil:
	case err != nil:
		w.err = err
	default:
		w.built = append(w.built, c)
	}
}

// viewKey names a typed cache: a resource, of this shard or of every one.
type viewKey struct {
	gvr        schema.GroupVersionResource
	everyShard bool
}

// informerOf is the typed cache of r over every watched namespace (or the
// cluster, for a cluster-scoped kind): of this shard's objects, unless the
// kind belongs to no shard.
func informerOf[T controller.Object](w *wiring, r resource[T]) *controller.Informer[T] {
	key := viewKey{gvr: r.gvr, everyShard: r.everyShard}
	if view, ok := w.views[key]; ok {
		return view.(*controller.Informer[T])
	}
	factories, clusterWide := w.f.konnect, w.f.clusterWide
	if r.everyShard {
		factories, clusterWide = w.f.everyShard, w.f.everyShardClusterWide
	}
	if r.cluster {
		factories = map[string]externalversions.SharedInformerFactory{"": clusterWide}
	}
	informers := map[string]cache.SharedIndexInformer{}
	for ns, factory := range factories {
		generic, err := factory.ForResource(r.gvr)
		if err != nil { // a resource missing from the generated informers
			w.add(nil, fmt.Errorf("no informer for %s: %w", r.gvr, err))
			continue
		}
		informers[ns] = generic.Informer()
	}
	view := controller.NewInformer[T](r.gvr.GroupResource(), informers)
	if !r.everyShard && w.d.locator != nil {
		view.SetElsewhere(w.d.locator.forResource(r.gvr, r.cluster))
	}
	w.views[key] = view
	return view
}

// everyShardOf is the typed cache of r's objects of every shard, for what
// a shard decides about objects that belong to no shard (a token Secret is
// in use while an auth configuration of any shard reads it).
func everyShardOf[T controller.Object](w *wiring, r resource[T]) *controller.Informer[T] {
	return informerOf(w, everyShard(r))
}

// clientsOf returns the typed client of r in a namespace ("" for a
// cluster-scoped kind).
func clientsOf[T controller.Object](w *wiring, r resource[T]) func(namespace string) *gentype.Client[T] {
	restClient := w.rest[r.gvr.GroupVersion()]
	return func(namespace string) *gentype.Client[T] {
		return gentype.NewClient[T](r.gvr.Resource, restClient, scheme.ParameterCodec, namespace, r.empty)
	}
}

// statusClients narrows clientsOf to what reconcilers write.
func statusClients[T controller.Object](w *wiring, r resource[T]) controller.ClientGetter[T] {
	clients := clientsOf(w, r)
	return func(namespace string) controller.Client[T] { return clients(namespace) }
}

// writers narrows clientsOf to what the helper controllers write.
func writers[T controller.Object](w *wiring, r resource[T]) func(string) entities.ObjectWriter[T] {
	clients := clientsOf(w, r)
	return func(namespace string) entities.ObjectWriter[T] { return clients(namespace) }
}

// entity builds the controller of a kind described as data. Its objects
// are counted by their Programmed condition in the objects metric.
func entity[T controller.Entity, D any](w *wiring, r resource[T], kind controller.Kind[T, D]) {
	informer := informerOf(w, r)
	c, err := controller.NewEntityController(kind, informer, statusClients(w, r), w.d.konnect, w.d.recorder, w.d.reconcilerOptions(), w.d.options())
	if err == nil {
		metrics.AddObjects(w.d.objects, c.Kind(), commonv1alpha1.ConditionProgrammed, informer.List)
	}
	w.add(c, err)
}

// bindingTarget builds the controller of a kind that KongPluginBindings
// target, and the controller of its cleanup-plugin-binding finalizer.
func bindingTarget[T controller.Entity, D any](w *wiring, r resource[T], kind controller.Kind[T, D]) {
	entity(w, r, kind)
	w.add(companions.NewBindingCleanupController(&companions.BindingCleanupReconciler[T]{
		Kind: &kind, Targets: informerOf(w, r), Bindings: informerOf(w, kongPluginBindings),
		Clients: statusClients(w, r), BindingClients: writers(w, kongPluginBindings),
		Recorder: w.d.recorder,
	}, w.d.options()))
}

// credential builds one consumer credential kind: its controller, and its
// part in the controller that makes credentials from Secrets.
func credential[T controller.Entity, D any](w *wiring, refs *entities.Refs, r resource[T], describe func(entities.CredentialDeps[T]) entities.Credential[T, D]) entities.CredentialKind {
	c := describe(entities.CredentialDeps[T]{
		Refs: refs, Consumers: informerOf(w, kongConsumers), Objects: informerOf(w, r), Clients: writers(w, r),
	})
	entity(w, r, c.Kind)
	return c.CredentialKind
}
