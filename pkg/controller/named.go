package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
)

// NamedWatch starts, on an Informer, a watch of single objects by name, for
// the objects that its informers' selection leaves out but that other
// objects name explicitly (a certificate's Secret that carries none of the
// labels the Secret informers select by). listWatch lists and watches the
// one object namespace/name (a field selector on metadata.name); stub makes
// an object of the kind with only a namespace and a name, to tell the
// dependents of an object that is not there. transform, when set, is
// applied to every object before it is stored.
//
// Each watched object costs one watch on the API server and, in the
// operator, a reflector (its goroutine, the watch stream's, and the object
// with its managed fields dropped), for as long as some object
// refers to it through a Dependency on this Informer: the watch stops when
// the last referrer lets go. The objects of the informers' selection cost
// nothing more. It must be called before the informers start.
func (i *Informer[T]) NamedWatch(listWatch func(namespace, name string) cache.ListerWatcher, stub func(namespace, name string) T, transform cache.TransformFunc) {
	i.named = &namedWatches[T]{listWatch: listWatch, stub: stub, transform: transform,
		watches: map[cache.ObjectName]*namedWatch[T]{}, inNamespace: map[string]int{}, perNamespace: MaxNamedWatchesPerNamespace}
	i.OnReferrersChanged(func(key string) {
		name, err := cache.ParseObjectName(key)
		if err != nil {
			return
		}
		if refs, err := i.anyReferrers(key); err == nil && !refs {
			i.named.stop(name)
		}
	})
}

// StartNamedWatches lets GetNamed start watches, which all stop with stop.
func (i *Informer[T]) StartNamedWatches(stop <-chan struct{}) {
	if i.named == nil {
		return
	}
	i.named.mu.Lock()
	defer i.named.mu.Unlock()
	// Each watch's context derives from this one, so that stopping them
	// all costs one goroutine rather than one per watch.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-stop
		cancel()
	}()
	i.named.ctx = ctx
}

// MaxNamedWatchesPerNamespace bounds the objects of one namespace watched
// by name at once. Each costs a watch on the API server and a reflector in
// the operator; a namespace whose objects name more (each distinct) gets
// NamedWatchLimitError for the rest, and no other namespace is touched.
const MaxNamedWatchesPerNamespace = 256

// NamedWatchLimitError is the answer of GetNamed for an object that would
// be watched by name when its namespace has MaxNamedWatchesPerNamespace
// such watches already.
type NamedWatchLimitError struct {
	Resource, Namespace, Name string
	Limit                     int
}

func (e *NamedWatchLimitError) Error() string {
	return fmt.Sprintf("%s %s/%s is not read: the operator already watches %d %s of namespace %s one by one, the most it watches in a namespace; give it one of the labels the operator selects %s by",
		e.Resource, e.Namespace, e.Name, e.Limit, e.Resource, e.Namespace, e.Resource)
}

// NotCachedYetError is the answer of GetNamed while the watch of the object
// it started has not listed it yet; its dependents are reconciled when it
// has.
type NotCachedYetError struct {
	Namespace, Name string
}

func (e *NotCachedYetError) Error() string {
	return fmt.Sprintf("%s/%s is being read", e.Namespace, e.Name)
}

// IsNotCachedYet reports whether err is a NotCachedYetError.
func IsNotCachedYet(err error) bool {
	var notYet *NotCachedYetError
	return errors.As(err, &notYet)
}

// GetNamed returns an object that an object of another kind names
// explicitly: from the informers, or else from a watch of that one object,
// started on the first call (which answers NotCachedYetError). An object in
// a namespace the informers do not watch is NotFound, as with Get.
func (i *Informer[T]) GetNamed(namespace, name string) (T, error) {
	obj, err := i.Get(namespace, name)
	if i.named == nil || !apierrors.IsNotFound(err) || len(i.forNamespace(namespace)) == 0 {
		return obj, err
	}
	return i.named.get(i, namespace, name)
}

// anyReferrers reports whether any dependency still refers to key.
func (i *Informer[T]) anyReferrers(key string) (bool, error) {
	i.refs.mu.RLock()
	lookups := slices.Clone(i.refs.lookups)
	i.refs.mu.RUnlock()
	for _, l := range lookups {
		found, err := l.find(key)
		if err != nil {
			return false, err
		}
		if len(found) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// namedWatches are the watches of single objects an Informer holds, and the
// dependency handlers each of them feeds.
type namedWatches[T Object] struct {
	listWatch func(namespace, name string) cache.ListerWatcher
	stub      func(namespace, name string) T
	transform cache.TransformFunc

	mu sync.Mutex
	// ctx ends every watch; nil until StartNamedWatches.
	ctx     context.Context
	watches map[cache.ObjectName]*namedWatch[T]
	// inNamespace counts the watches of each namespace, perNamespace
	// bounds them (MaxNamedWatchesPerNamespace).
	inNamespace  map[string]int
	perNamespace int
	handlers     []cache.TypedResourceEventHandler[T]
}

// addHandler registers a dependency's handler with every watch, present
// and future.
func (n *namedWatches[T]) addHandler(h cache.TypedResourceEventHandler[T]) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.handlers = append(n.handlers, h)
}

func (n *namedWatches[T]) get(i *Informer[T], namespace, name string) (T, error) {
	var zero T
	key := cache.NewObjectName(namespace, name)
	n.mu.Lock()
	w := n.watches[key]
	if w == nil {
		if n.ctx == nil {
			n.mu.Unlock()
			return zero, &NotCachedYetError{Namespace: namespace, Name: name}
		}
		if n.inNamespace[namespace] >= n.perNamespace {
			n.mu.Unlock()
			n.stopUnreferenced(i, namespace)
			n.mu.Lock()
			w = n.watches[key]
		}
		if w == nil && n.inNamespace[namespace] >= n.perNamespace {
			n.mu.Unlock()
			return zero, &NamedWatchLimitError{Resource: i.resource.String(), Namespace: namespace, Name: name, Limit: n.perNamespace}
		}
		if w == nil {
			w = n.start(key)
		}
	}
	n.mu.Unlock()
	obj, synced := w.current()
	switch {
	case !synced:
		return zero, &NotCachedYetError{Namespace: namespace, Name: name}
	case obj == nil:
		return zero, apierrors.NewNotFound(i.resource, name)
	}
	typed, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("watch of %s %s holds %T", i.resource, key, obj)
	}
	return typed, nil
}

// start runs a reflector for one object; n.mu is held.
func (n *namedWatches[T]) start(key cache.ObjectName) *namedWatch[T] {
	ctx, cancel := context.WithCancel(n.ctx)
	w := &namedWatch[T]{key: key, watches: n, cancel: cancel}
	n.watches[key] = w
	n.inNamespace[key.Namespace]++
	reflector := cache.NewNamedReflector("named "+key.String(), n.listWatch(key.Namespace, key.Name), n.stub(key.Namespace, key.Name), w, 0)
	go reflector.RunWithContext(ctx)
	return w
}

// stop ends the watch of key, if any.
func (n *namedWatches[T]) stop(key cache.ObjectName) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopLocked(key)
}

func (n *namedWatches[T]) stopLocked(key cache.ObjectName) {
	w := n.watches[key]
	if w == nil {
		return
	}
	delete(n.watches, key)
	w.cancel()
	if n.inNamespace[key.Namespace]--; n.inNamespace[key.Namespace] <= 0 {
		delete(n.inNamespace, key.Namespace)
	}
}

// stopUnreferenced stops the watches of namespace that no dependency
// refers to (any more): one started for an object whose referrer changed
// its mind before the index knew of it.
func (n *namedWatches[T]) stopUnreferenced(i *Informer[T], namespace string) {
	n.mu.Lock()
	var keys []cache.ObjectName
	for key := range n.watches {
		if key.Namespace == namespace {
			keys = append(keys, key)
		}
	}
	n.mu.Unlock()
	for _, key := range keys {
		if refs, err := i.anyReferrers(key.String()); err == nil && !refs {
			n.stop(key)
		}
	}
}

// watching is how many objects of namespace are watched by name.
func (n *namedWatches[T]) watching(namespace string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.inNamespace[namespace]
}

func (n *namedWatches[T]) currentHandlers() []cache.TypedResourceEventHandler[T] {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.handlers
}

// namedWatch is the store of one object's reflector: it holds the object
// and turns what the reflector tells into events for the dependency
// handlers.
type namedWatch[T Object] struct {
	key     cache.ObjectName
	watches *namedWatches[T]
	cancel  context.CancelFunc

	mu     sync.Mutex
	synced bool
	obj    any
}

func (w *namedWatch[T]) current() (any, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.obj, w.synced
}

// set stores obj (nil when the object is gone) and tells the handlers.
// The first list always tells them, even of an object that is not there,
// since a dependent waits for the answer.
func (w *namedWatch[T]) set(obj any) error {
	if obj != nil && w.watches.transform != nil {
		var err error
		if obj, err = w.watches.transform(obj); err != nil {
			return err
		}
	}
	w.mu.Lock()
	old, first := w.obj, !w.synced
	w.obj, w.synced = obj, true
	w.mu.Unlock()

	oldTyped, hadOld := old.(T)
	newTyped, hasNew := obj.(T)
	for _, h := range w.watches.currentHandlers() {
		switch {
		case hasNew && hadOld:
			h.OnUpdate(oldTyped, newTyped)
		case hasNew:
			h.OnAdd(newTyped, first)
		case hadOld:
			h.OnDelete(cache.DeletedObject[T]{OptionalObj: oldTyped})
		case first:
			h.OnDelete(cache.DeletedObject[T]{OptionalObj: w.watches.stub(w.key.Namespace, w.key.Name)})
		}
	}
	return nil
}

// Add implements cache.ReflectorStore.
func (w *namedWatch[T]) Add(obj any) error { return w.set(obj) }

// Update implements cache.ReflectorStore.
func (w *namedWatch[T]) Update(obj any) error { return w.set(obj) }

// Delete implements cache.ReflectorStore.
func (w *namedWatch[T]) Delete(any) error { return w.set(nil) }

// Replace implements cache.ReflectorStore: the list holds the one object,
// or nothing.
func (w *namedWatch[T]) Replace(list []any, _ string) error {
	for _, obj := range list {
		if name, err := cache.ObjectToName(obj); err == nil && name == w.key {
			return w.set(obj)
		}
	}
	return w.set(nil)
}

// Resync implements cache.ReflectorStore.
func (w *namedWatch[T]) Resync() error { return nil }
