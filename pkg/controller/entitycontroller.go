package controller

import (
	"k8s.io/client-go/tools/cache"
	events "k8s.io/client-go/tools/record"
)

// NewEntityController wires a kind into a controller whose reconciler is
// the kind's EntityReconciler, with the watches of what its objects refer
// to.
func NewEntityController[T Entity, D any](
	kind Kind[T, D],
	informer *Informer[T],
	clients ClientGetter[T],
	konnectClients ClientSource,
	recorder events.EventRecorder,
	reconcilerOpts ReconcilerOptions,
	opts Options,
) (*Controller[T], error) {
	reconciler := NewEntityReconciler(&kind, informer, clients, konnectClients, recorder, reconcilerOpts)
	c, err := New(kind.KindName(), informer, reconciler, opts)
	if err != nil {
		return nil, err
	}
	for _, dep := range kind.Dependencies {
		if err := c.Watch(dep); err != nil {
			return nil, err
		}
	}
	if kind.Borrows != nil || len(kind.UsedBy) > 0 {
		// An object being deleted waits for its referrers.
		informer.OnReferrersChanged(func(key string) {
			if name, err := cache.ParseObjectName(key); err == nil {
				c.Enqueue(name)
			}
		})
	}
	return c, nil
}
