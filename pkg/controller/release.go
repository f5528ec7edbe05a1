package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// Event reasons of borrowing objects.
const (
	EventBorrowed             = "Borrowed"
	EventWaitingForDependents = "WaitingForDependents"
	EventReleased             = "Released"
)

// release finishes the deletion of an object whose entity is borrowed: no
// Konnect call, only the finalizers go, once no object that created
// entities inside it is left. The referrers' own changes enqueue the object
// again (see NewEntityController).
func (r *EntityReconciler[T, D]) release(ctx context.Context, key cache.ObjectName, obj T) error {
	waiting, err := r.holders(key)
	if err != nil {
		return err
	}
	if len(waiting) > 0 {
		r.recorder.Eventf(obj, corev1.EventTypeNormal, EventWaitingForDependents,
			"Kept until these objects have deleted their entities from the %s in Konnect: %s", r.kind.KindName(), strings.Join(waiting, ", "))
		return nil
	}
	if err := r.removeFinalizers(ctx, obj); err != nil {
		return err
	}
	r.recorder.Eventf(obj, corev1.EventTypeNormal, EventReleased, "Released %s %s; it stays in Konnect", r.kind.KindName(), obj.KonnectStatus(false).GetKonnectID())
	r.state.forget(key)
	return nil
}

// held reports whether objects that use obj's entity still hold it (see
// Kind.HeldBy), recording an Event that names them; the referrers' own
// changes enqueue obj again.
func (r *EntityReconciler[T, D]) held(key cache.ObjectName, obj T) (bool, error) {
	if len(r.kind.HeldBy) == 0 || r.kind.Borrows != nil {
		// A kind that borrows holds only its borrowed objects (release):
		// an owned control plane goes first, and Konnect deletes its
		// entities with it.
		return false, nil
	}
	waiting, err := r.holders(key)
	if err != nil || len(waiting) == 0 {
		return false, err
	}
	r.recorder.Eventf(obj, corev1.EventTypeNormal, EventWaitingForDependents,
		"Kept, with its entity in Konnect, until these objects that use it are deleted: %s", strings.Join(waiting, ", "))
	return true, nil
}

// holders names, sorted, the objects that refer to the object with key
// through one of the kind's HeldBy dependencies and still hold the cleanup
// finalizer.
func (r *EntityReconciler[T, D]) holders(key cache.ObjectName) ([]string, error) {
	var waiting []string
	for _, dependency := range r.kind.HeldBy {
		found, err := r.informer.Referrers(key.String(), dependency)
		if err != nil {
			return nil, err
		}
		for _, ref := range found {
			if hasFinalizer(ref.Object, commonv1alpha1.FinalizerKonnectCleanup) {
				waiting = append(waiting, fmt.Sprintf("%s %s", ref.Kind, cache.MetaObjectToName(ref.Object)))
			}
		}
	}
	slices.Sort(waiting)
	return slices.Compact(waiting), nil
}
