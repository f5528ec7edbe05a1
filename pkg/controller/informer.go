package controller

import (
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// Informer is a typed, read-only view of one kind over one shared informer
// per watched namespace, or over one informer for the whole cluster. Lookups
// in a namespace that is not watched answer NotFound.
//
// A namespace may also be covered by several informers, each selecting
// different objects of the kind (Secrets by label, for example): the view
// then holds the union of what they hold.
type Informer[T Object] struct {
	resource    schema.GroupResource
	clusterWide []cache.SharedIndexInformer
	namespaced  map[string][]cache.SharedIndexInformer
	refs        *referrers
	// elsewhere finds objects of other shards (see SetElsewhere).
	elsewhere Locate
	// fanOuts holds, per underlying informer, the one handler registered
	// with it that passes every event on to the handlers added through
	// AddEventHandler.
	fanOuts *fanOuts[T]
}

// NewInformer returns a view over informers, keyed by the namespace each
// watches; the key "" is an informer for every namespace (or for a
// cluster-scoped kind).
func NewInformer[T Object](resource schema.GroupResource, informers map[string]cache.SharedIndexInformer) *Informer[T] {
	several := make(map[string][]cache.SharedIndexInformer, len(informers))
	for ns, inf := range informers {
		several[ns] = []cache.SharedIndexInformer{inf}
	}
	return NewUnionInformer[T](resource, several)
}

// NewUnionInformer returns a view over several informers per namespace
// (key "" for every namespace), each holding a disjoint or overlapping
// selection of the kind's objects.
func NewUnionInformer[T Object](resource schema.GroupResource, informers map[string][]cache.SharedIndexInformer) *Informer[T] {
	i := &Informer[T]{resource: resource, namespaced: map[string][]cache.SharedIndexInformer{}, refs: &referrers{},
		fanOuts: &fanOuts[T]{byInformer: map[cache.SharedIndexInformer]*fanOut[T]{}}}
	for ns, infs := range informers {
		if ns == "" {
			i.clusterWide = append(i.clusterWide, infs...)
			continue
		}
		i.namespaced[ns] = append(i.namespaced[ns], infs...)
	}
	return i
}

func (i *Informer[T]) all() []cache.SharedIndexInformer {
	if len(i.clusterWide) > 0 {
		return i.clusterWide
	}
	var out []cache.SharedIndexInformer
	for _, infs := range i.namespaced {
		out = append(out, infs...)
	}
	return out
}

func (i *Informer[T]) forNamespace(namespace string) []cache.SharedIndexInformer {
	if len(i.clusterWide) > 0 {
		return i.clusterWide
	}
	return i.namespaced[namespace]
}

// Get returns the cached object. Callers must not modify it.
func (i *Informer[T]) Get(namespace, name string) (T, error) {
	var zero T
	key := cache.NewObjectName(namespace, name).String()
	for _, inf := range i.forNamespace(namespace) {
		item, exists, err := inf.GetIndexer().GetByKey(key)
		if err != nil {
			return zero, err
		}
		if !exists {
			continue
		}
		obj, ok := item.(T)
		if !ok {
			return zero, fmt.Errorf("cache for %s holds %T", i.resource, item)
		}
		return obj, nil
	}
	return zero, apierrors.NewNotFound(i.resource, name)
}

// ByIndex returns the cached objects whose index values include key. An
// object held by several informers of a namespace is returned once.
func (i *Informer[T]) ByIndex(index, key string) ([]T, error) {
	var out []T
	seen := map[cache.ObjectName]bool{}
	for _, inf := range i.all() {
		items, err := inf.GetIndexer().ByIndex(index, key)
		if err != nil {
			return nil, err
		}
		out = appendUnseen(out, seen, items)
	}
	return out, nil
}

// List returns every cached object, each once.
func (i *Informer[T]) List() []T {
	var out []T
	seen := map[cache.ObjectName]bool{}
	for _, inf := range i.all() {
		out = appendUnseen(out, seen, inf.GetIndexer().List())
	}
	return out
}

func appendUnseen[T Object](out []T, seen map[cache.ObjectName]bool, items []any) []T {
	for _, item := range items {
		obj, ok := item.(T)
		if !ok {
			continue
		}
		name := cache.MetaObjectToName(obj)
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, obj)
	}
	return out
}

// AddIndex adds a typed index to every underlying informer. It must be
// called before the informers start.
func (i *Informer[T]) AddIndex(name string, keys func(obj T) []string) error {
	indexers := cache.Indexers{name: func(item any) ([]string, error) {
		obj, ok := item.(T)
		if !ok {
			return nil, nil
		}
		return keys(obj), nil
	}}
	for _, inf := range i.all() {
		if _, exists := inf.GetIndexer().GetIndexers()[name]; exists {
			continue
		}
		if err := inf.AddIndexers(indexers); err != nil {
			return fmt.Errorf("adding index %q to the %s informer: %w", name, i.resource, err)
		}
	}
	return nil
}

// AddEventHandler registers a typed handler on every underlying informer.
// synced reports whether the handler has been given every object of the
// informers' initial lists.
//
// The handlers added before an informer passes on its first event share
// one registration with it (see fanOut); one added later gets its own.
func (i *Informer[T]) AddEventHandler(handler cache.TypedResourceEventHandler[T]) (synced func() bool, err error) {
	var registrations []cache.ResourceEventHandlerRegistration
	for _, inf := range i.all() {
		registration, err := i.fanOuts.add(inf, handler)
		if err != nil {
			return nil, fmt.Errorf("adding an event handler to the %s informer: %w", i.resource, err)
		}
		registrations = append(registrations, registration)
	}
	return allSynced(registrations), nil
}

// fanOuts are the fanOut of each underlying informer of a view.
type fanOuts[T Object] struct {
	mu         sync.Mutex
	byInformer map[cache.SharedIndexInformer]*fanOut[T]
}

// add registers handler with inf: through inf's fanOut while that has
// passed on no event yet, on its own otherwise.
func (f *fanOuts[T]) add(inf cache.SharedIndexInformer, handler cache.TypedResourceEventHandler[T]) (cache.ResourceEventHandlerRegistration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	typed := cache.NewTypedSharedIndexInformer[T](inf)
	fan, ok := f.byInformer[inf]
	if !ok {
		fan = &fanOut[T]{handlers: []cache.TypedResourceEventHandler[T]{handler}}
		registration, err := typed.AddTypedEventHandler(fan)
		if err != nil {
			return nil, err
		}
		fan.registration = registration
		f.byInformer[inf] = fan
		return registration, nil
	}
	if fan.join(handler) {
		return fan.registration, nil
	}
	return typed.AddTypedEventHandler(handler)
}

// fanOut is one handler registration that passes each event on to several
// handlers, in the order they were added, one after the other.
//
// Each registration with a shared informer has a buffer of the events its
// handler has not taken yet, which grows to hold an initial list that
// arrives faster than the handler takes it and never shrinks: with
// 100,000 objects, a few MiB per registration, for the process's life. The
// handlers of this package only look up and enqueue, so one registration
// per informer serves them all. The registration's HasSynced covers every
// handler that shares it: they all joined before its first event.
type fanOut[T Object] struct {
	mu       sync.Mutex
	handlers []cache.TypedResourceEventHandler[T]
	// passing says that an event has been passed on: a handler that joined
	// now would miss what came before, so none may.
	passing      bool
	registration cache.ResourceEventHandlerRegistration
}

// join adds handler unless an event has been passed on already.
func (f *fanOut[T]) join(handler cache.TypedResourceEventHandler[T]) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.passing {
		return false
	}
	f.handlers = append(f.handlers, handler)
	return true
}

// targets returns the handlers, which no longer change once it is called.
func (f *fanOut[T]) targets() []cache.TypedResourceEventHandler[T] {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.passing = true
	return f.handlers
}

func (f *fanOut[T]) OnAdd(obj T, isInInitialList bool) {
	for _, h := range f.targets() {
		h.OnAdd(obj, isInInitialList)
	}
}

func (f *fanOut[T]) OnUpdate(oldObj, newObj T) {
	for _, h := range f.targets() {
		h.OnUpdate(oldObj, newObj)
	}
}

func (f *fanOut[T]) OnDelete(obj cache.DeletedObject[T]) {
	for _, h := range f.targets() {
		h.OnDelete(obj)
	}
}

func allSynced(registrations []cache.ResourceEventHandlerRegistration) func() bool {
	return func() bool {
		for _, r := range registrations {
			if !r.HasSynced() {
				return false
			}
		}
		return true
	}
}

// HasSynced reports whether every underlying informer has synced.
func (i *Informer[T]) HasSynced() bool {
	for _, inf := range i.all() {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

// Resource returns the group and resource the informer watches.
func (i *Informer[T]) Resource() schema.GroupResource { return i.resource }
