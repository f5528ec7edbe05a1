package controller

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
)

// Dependency says that objects of the controller's kind refer to objects
// that Source watches: whenever one of those changes, the objects that refer
// to it are reconciled. Keys returns the keys ("namespace/name", or "name"
// for cluster-scoped kinds) of the objects obj refers to. Source is an
// Informer, when the dependents are indexed under the source objects' own
// keys, or a SourceOf one, which maps them to other keys or lets fewer
// updates through. On an update, the dependents of both the old and the new
// source object are reconciled, so that those it stopped pointing at hear of
// it too.
type Dependency[T Object] struct {
	Name   string
	Source EventSource
	Keys   func(obj T) []string
}

// EventSource is what a Dependency watches: an Informer of any kind, or a
// SourceOf one. The type of its objects stays inside it, so that the
// dependencies of one kind on several others fit in one slice.
type EventSource interface {
	// HasSynced reports whether the source's informers have synced.
	HasSynced() bool
	// onChange registers changed, called with the keys that the dependents
	// of a source object are indexed under whenever the object is added,
	// updated (for the old and the new object alike) or deleted.
	onChange(changed func(keys []string)) (synced func() bool, err error)
	// tracker is the informer the source reads: it learns which objects
	// refer to its own.
	tracker() referrerTracker
	// lookup finds the object with key, as the source holds it; ok is
	// false when the source's keys are not its objects' own (see SourceOf).
	lookup(key string) (ref Reference, ok bool)
}

// Reference is an object that another names through a Dependency, as the
// dependency's source holds it.
type Reference struct {
	// Dependency is the name of the Dependency.
	Dependency string
	// Resource is the source's resource.
	Resource schema.GroupResource
	// Namespace ("" for a cluster-scoped object) and Name of the object
	// named.
	Namespace, Name string
	// Object is the object, nil when the source holds none of that name.
	// Callers must not modify it.
	Object metav1.Object
}

// References returns the objects obj names through the dependency, found
// or not: the same description of obj's references that its controller
// watches, for tools that show them (kubectl konnect status). None when
// the source maps its objects to other keys (a SourceOf with Key or Keys).
func (d Dependency[T]) References(obj T) []Reference {
	var out []Reference
	for _, key := range d.Keys(obj) {
		if ref, ok := d.Source.lookup(key); ok {
			ref.Dependency = d.Name
			out = append(out, ref)
		}
	}
	return out
}

// SourceOf is an Informer as the Source of a Dependency whose dependents
// are not indexed under the source objects' own keys, or that lets only
// some updates through. Key, when set, maps a source object to the key its
// dependents are indexed under (for example a KongReferenceGrant to its
// namespace); Keys maps it to several (for example an annotation naming
// several plugins). Updates, when set, lets through only the updates of a
// source object for which it returns true (for example
// SpecOrMetadataChanged, when the dependents never read the source's
// status); by default every update that carries a new resourceVersion does.
type SourceOf[S Object] struct {
	Informer *Informer[S]
	Key      func(source S) string
	Keys     func(source S) []string
	Updates  func(oldSource, newSource S) bool
}

// HasSynced implements EventSource.
func (s SourceOf[S]) HasSynced() bool { return s.Informer.HasSynced() }

func (s SourceOf[S]) tracker() referrerTracker { return s.Informer }

func (s SourceOf[S]) lookup(key string) (Reference, bool) {
	if s.Key != nil || s.Keys != nil {
		return Reference{}, false
	}
	return s.Informer.lookup(key)
}

func (s SourceOf[S]) onChange(changed func(keys []string)) (func() bool, error) {
	notify := func(source S) { changed(s.keysOf(source)) }
	return s.Informer.addDependencyHandler(cache.TypedResourceEventHandlerFuncs[S]{
		AddFunc: notify,
		UpdateFunc: func(oldSource, newSource S) {
			if oldSource.GetResourceVersion() != newSource.GetResourceVersion() && s.passes(oldSource, newSource) {
				// The queue drops the duplicates when both name the same.
				notify(oldSource)
				notify(newSource)
			}
		},
		DeleteFunc: func(deleted cache.DeletedObject[S]) {
			var null S
			if deleted.OptionalObj != null {
				notify(deleted.OptionalObj)
			}
		},
	})
}

// keysOf returns the index values a source object's dependents are found
// under.
func (s SourceOf[S]) keysOf(source S) []string {
	switch {
	case s.Keys != nil:
		return s.Keys(source)
	case s.Key != nil:
		return []string{s.Key(source)}
	default:
		return []string{cache.MetaObjectToName(source).String()}
	}
}

// passes reports whether an update of a source concerns the dependents.
func (s SourceOf[S]) passes(oldSource, newSource S) bool {
	return s.Updates == nil || s.Updates(oldSource, newSource)
}

// addDependencyHandler registers the handler of a Dependency's source on
// the informers.
func (i *Informer[T]) addDependencyHandler(handler cache.TypedResourceEventHandler[T]) (synced func() bool, err error) {
	return i.AddEventHandler(handler)
}

func (i *Informer[T]) onChange(changed func(keys []string)) (func() bool, error) {
	return SourceOf[T]{Informer: i}.onChange(changed)
}

func (i *Informer[T]) tracker() referrerTracker { return i }

func (i *Informer[T]) lookup(key string) (Reference, bool) {
	name, err := cache.ParseObjectName(key)
	if err != nil {
		return Reference{}, false
	}
	ref := Reference{Resource: i.resource, Namespace: name.Namespace, Name: name.Name}
	if obj, err := i.Get(name.Namespace, name.Name); err == nil {
		ref.Object = obj
	}
	return ref, true
}

// Watch registers a dependency: an index on this controller's informer and
// a handler on the source that enqueues the dependents.
func (c *Controller[T]) Watch(dep Dependency[T]) error {
	index := "ref:" + dep.Name
	if err := c.informer.AddIndex(index, dep.Keys); err != nil {
		return err
	}
	if err := c.trackReferrersOf(dep, index); err != nil {
		return err
	}
	c.sources = append(c.sources, dep.Source)
	synced, err := dep.Source.onChange(func(keys []string) {
		for _, key := range keys {
			dependents, err := c.informer.ByIndex(index, key)
			if err != nil {
				utilruntime.HandleError(fmt.Errorf("finding %s objects that refer to %s: %w", c.kind, key, err))
				return
			}
			for _, obj := range dependents {
				c.Enqueue(cache.MetaObjectToName(obj))
			}
		}
	})
	c.handlersSynced = append(c.handlersSynced, synced)
	return err
}
