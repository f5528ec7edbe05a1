package controller

import (
	"reflect"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// Referrer is an object of another kind that refers to an informer's object
// through a Dependency.
type Referrer struct {
	// Kind of the referring object.
	Kind string
	// Object is the cached referring object; callers must not modify it.
	Object metav1.Object
}

// referrerLookup finds, for one Dependency registered with Watch, the
// objects that refer to a given key.
type referrerLookup struct {
	dependency string
	kind       string
	find       func(key string) ([]metav1.Object, error)
}

// referrers is what an Informer knows of the objects that refer to its own:
// how to find them, and who wants to hear when they change. Every
// Dependency whose Source is an Informer registers itself here, so that an
// object can wait for the objects that still refer to it (a mirrored
// control plane waits for the entities created inside it).
type referrers struct {
	mu        sync.RWMutex
	lookups   []referrerLookup
	listeners []func(key string)
}

// referrerTracker is implemented by Informers; Watch uses it to tell the
// informer a dependency's source reads about its referrers.
type referrerTracker interface {
	trackReferrers(dependency, kind string, find func(key string) ([]metav1.Object, error))
	referrersChanged(keys []string)
}

func (i *Informer[T]) trackReferrers(dependency, kind string, find func(key string) ([]metav1.Object, error)) {
	i.refs.mu.Lock()
	defer i.refs.mu.Unlock()
	i.refs.lookups = append(i.refs.lookups, referrerLookup{dependency: dependency, kind: kind, find: find})
}

func (i *Informer[T]) referrersChanged(keys []string) {
	i.refs.mu.RLock()
	listeners := slices.Clone(i.refs.listeners)
	i.refs.mu.RUnlock()
	for _, key := range keys {
		for _, listen := range listeners {
			listen(key)
		}
	}
}

// Referrers returns the objects that refer to the object with key
// ("namespace/name") through a dependency named dependency, registered by
// any controller's Watch with this informer as its Source.
func (i *Informer[T]) Referrers(key, dependency string) ([]Referrer, error) {
	i.refs.mu.RLock()
	lookups := slices.Clone(i.refs.lookups)
	i.refs.mu.RUnlock()
	var out []Referrer
	for _, l := range lookups {
		if l.dependency != dependency {
			continue
		}
		found, err := l.find(key)
		if err != nil {
			return nil, err
		}
		for _, obj := range found {
			out = append(out, Referrer{Kind: l.kind, Object: obj})
		}
	}
	return out, nil
}

// OnReferrersChanged registers listen, called with the key of an object of
// this informer whenever an object referring to it through some dependency
// is deleted, stops referring to it or changes its finalizers. It must be
// called before the informers start.
func (i *Informer[T]) OnReferrersChanged(listen func(key string)) {
	i.refs.mu.Lock()
	defer i.refs.mu.Unlock()
	i.refs.listeners = append(i.refs.listeners, listen)
}

// trackReferrersOf registers c's objects as referrers of dep.Source's
// objects, and tells the source when one of them lets go.
func (c *Controller[T]) trackReferrersOf(dep Dependency[T], index string) error {
	synced, err := trackReferrers(dep.Source.tracker(), dep.Name, c.kind, c.informer, index, dep.Keys)
	c.handlersSynced = append(c.handlersSynced, synced)
	return err
}

// TrackReferrers registers the objects of referrers, of kind, as referrers
// of source's objects through dependency: keys maps a referrer to the keys
// of the source objects it reads. A Controller's Watch does this for its
// own objects; this is for objects that read source's objects on behalf of
// a controller's (a KongPlugin reads the Secrets of its configuration for
// the bindings that apply it), so that what depends on who refers to an
// object (a watch of that one object) hears of them too. It must be called
// before the informers start.
func TrackReferrers[S, R Object](source *Informer[S], dependency, kind string, referrers *Informer[R], keys func(R) []string) error {
	index := "referrers:" + dependency
	if err := referrers.AddIndex(index, keys); err != nil {
		return err
	}
	_, err := trackReferrers(source, dependency, kind, referrers, index, keys)
	return err
}

// trackReferrers registers the objects of informer, found by index, as
// referrers of tracker's objects, and tells tracker when one of them lets
// go: it is deleted, its keys change or its finalizers do.
func trackReferrers[R Object](tracker referrerTracker, dependency, kind string, informer *Informer[R], index string, keys func(R) []string) (synced func() bool, err error) {
	tracker.trackReferrers(dependency, kind, func(key string) ([]metav1.Object, error) {
		found, err := informer.ByIndex(index, key)
		if err != nil {
			return nil, err
		}
		out := make([]metav1.Object, 0, len(found))
		for _, obj := range found {
			out = append(out, obj)
		}
		return out, nil
	})
	return informer.AddEventHandler(cache.TypedResourceEventHandlerFuncs[R]{
		UpdateFunc: func(oldObj, newObj R) {
			oldKeys, newKeys := keys(oldObj), keys(newObj)
			if !slices.Equal(oldKeys, newKeys) || !reflect.DeepEqual(oldObj.GetFinalizers(), newObj.GetFinalizers()) {
				tracker.referrersChanged(unionOf(oldKeys, newKeys))
			}
		},
		DeleteFunc: func(deleted cache.DeletedObject[R]) {
			var null R
			if deleted.OptionalObj != null {
				tracker.referrersChanged(keys(deleted.OptionalObj))
			}
		},
	})
}

func unionOf(a, b []string) []string {
	out := slices.Clone(a)
	for _, k := range b {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
