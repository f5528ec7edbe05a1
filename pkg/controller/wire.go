package controller

import (
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
)

// DependentAdapter is an Adapter that also says which other objects its
// kind refers to, so that their changes reconcile it again.
type DependentAdapter[T Entity, D any] interface {
	Adapter[T, D]
	Dependencies() []Dependency[T]
}

// NewEntityController wires an adapter into a controller running the seed
// algorithm for its kind.
func NewEntityController[T Entity, D any](
	adapter DependentAdapter[T, D],
	informer *Informer[T],
	clients ClientGetter[T],
	konnectClients ClientSource,
	recorder record.EventRecorder,
	reconcilerOpts ReconcilerOptions,
	opts Options,
) (*Controller[T], error) {
	reconciler := NewEntityReconciler(adapter, informer, clients, konnectClients, recorder, reconcilerOpts)
	c, err := New(adapter.GroupVersionKind().Kind, informer, reconciler, opts)
	if err != nil {
		return nil, err
	}
	for _, dep := range adapter.Dependencies() {
		if err := c.Watch(dep); err != nil {
			return nil, err
		}
	}
	if _, ok := any(adapter).(Borrower[T]); ok {
		// A borrowing object being deleted waits for its referrers.
		informer.OnReferrersChanged(func(key string) {
			if name, err := cache.ParseObjectName(key); err == nil {
				c.Enqueue(name)
			}
		})
	}
	return c, nil
}
