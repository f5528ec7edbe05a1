package controller

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// Informer is a typed, read-only view of one kind over one shared informer
// per watched namespace, or over one informer for the whole cluster. Lookups
// in a namespace that is not watched answer NotFound.
type Informer[T Object] struct {
	resource    schema.GroupResource
	clusterWide cache.SharedIndexInformer
	namespaced  map[string]cache.SharedIndexInformer
	refs        *referrers
}

// NewInformer returns a view over informers, keyed by the namespace each
// watches; the key "" is an informer for every namespace (or for a
// cluster-scoped kind).
func NewInformer[T Object](resource schema.GroupResource, informers map[string]cache.SharedIndexInformer) *Informer[T] {
	i := &Informer[T]{resource: resource, namespaced: map[string]cache.SharedIndexInformer{}, refs: &referrers{}}
	for ns, inf := range informers {
		if ns == "" {
			i.clusterWide = inf
			continue
		}
		i.namespaced[ns] = inf
	}
	return i
}

func (i *Informer[T]) all() []cache.SharedIndexInformer {
	if i.clusterWide != nil {
		return []cache.SharedIndexInformer{i.clusterWide}
	}
	out := make([]cache.SharedIndexInformer, 0, len(i.namespaced))
	for _, inf := range i.namespaced {
		out = append(out, inf)
	}
	return out
}

func (i *Informer[T]) forNamespace(namespace string) cache.SharedIndexInformer {
	if i.clusterWide != nil {
		return i.clusterWide
	}
	return i.namespaced[namespace]
}

// Get returns the cached object. Callers must not modify it.
func (i *Informer[T]) Get(namespace, name string) (T, error) {
	var zero T
	inf := i.forNamespace(namespace)
	if inf == nil {
		return zero, apierrors.NewNotFound(i.resource, name)
	}
	key := cache.NewObjectName(namespace, name).String()
	item, exists, err := inf.GetIndexer().GetByKey(key)
	if err != nil {
		return zero, err
	}
	if !exists {
		return zero, apierrors.NewNotFound(i.resource, name)
	}
	obj, ok := item.(T)
	if !ok {
		return zero, fmt.Errorf("cache for %s holds %T", i.resource, item)
	}
	return obj, nil
}

// ByIndex returns the cached objects whose index values include key.
func (i *Informer[T]) ByIndex(index, key string) ([]T, error) {
	var out []T
	for _, inf := range i.all() {
		items, err := inf.GetIndexer().ByIndex(index, key)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			if obj, ok := item.(T); ok {
				out = append(out, obj)
			}
		}
	}
	return out, nil
}

// List returns every cached object.
func (i *Informer[T]) List() []T {
	var out []T
	for _, inf := range i.all() {
		for _, item := range inf.GetIndexer().List() {
			if obj, ok := item.(T); ok {
				out = append(out, obj)
			}
		}
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
func (i *Informer[T]) AddEventHandler(handler cache.TypedResourceEventHandler[T]) error {
	for _, inf := range i.all() {
		if _, err := cache.NewTypedSharedIndexInformer[T](inf).AddTypedEventHandler(handler); err != nil {
			return fmt.Errorf("adding an event handler to the %s informer: %w", i.resource, err)
		}
	}
	return nil
}

// AddUntypedEventHandler registers handler on every underlying informer.
func (i *Informer[T]) AddUntypedEventHandler(handler cache.ResourceEventHandler) error {
	for _, inf := range i.all() {
		if _, err := inf.AddEventHandler(handler); err != nil {
			return fmt.Errorf("adding an event handler to the %s informer: %w", i.resource, err)
		}
	}
	return nil
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

// EventSource is anything whose changes can enqueue dependents: an
// Informer of any kind.
type EventSource interface {
	AddUntypedEventHandler(handler cache.ResourceEventHandler) error
	HasSynced() bool
}
