package controller

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Concerns reports whether an object of a controller's own kind, as its
// informer holds it, has anything for the controller to do. It may read
// other caches (an index of the objects that refer to it, say); it must
// not block.
type Concerns[T Object] func(obj T) bool

// NewSelective returns a controller like New, except that the events of
// its own informer enqueue an object only when it concerns the controller:
// an add when the new object does, an update when the old or the new one
// does, a delete when the deleted one did (or its last state is unknown).
// Dependencies registered with Watch enqueue their dependents as with New.
//
// It suits a companion controller that most objects of its kind have nothing
// for (a finalizer that only some objects need, objects made for only some
// of them). concerns must hold for every object the controller left a mark
// on (its finalizer, objects it made) as well as every object it would
// act on, so that a restart, which replays every object as an add, brings
// back each one with work left. What makes an object concern the
// controller when another object appears (a binding that targets it, say)
// must be a dependency: its informer's handler then finds the object in
// this cache if this object came first, and concerns finds the other one
// in its cache otherwise, since an informer updates its cache before it
// calls its handlers.
func NewSelective[T Object](kind string, informer *Informer[T], concerns Concerns[T], reconciler Reconciler, opts Options) (*Controller[T], error) {
	if concerns == nil {
		return nil, fmt.Errorf("%s: NewSelective needs a Concerns function", kind)
	}
	return newController(kind, informer, concerns, reconciler, opts)
}

// SpecOrMetadataChanged reports whether an update changed more than an
// object's status: its generation, labels, annotations, owners or deletion
// timestamp, or its finalizers while it is being deleted. A SourceOf
// whose dependents never read the source's status can filter its updates
// with it.
func SpecOrMetadataChanged[S metav1.Object](oldObj, newObj S) bool {
	return specOrMetadataChanged(oldObj, newObj) ||
		!reflect.DeepEqual(oldObj.GetOwnerReferences(), newObj.GetOwnerReferences())
}
