package controller

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// DefaultReferenceGracePeriod is how long a reference problem must last,
// unchanged, before a Warning Event reports it. On a first apply objects
// wait a second or so for the objects they refer to: that wait shows in
// their conditions at once, but is not worth a Warning.
const DefaultReferenceGracePeriod = 10 * time.Second

// EventDeletedWithParent says that an object's Konnect entity is gone
// because its control plane or parent went: Konnect deletes a control
// plane's entities with it, and the operator deletes a parent's children
// before the parent.
const EventDeletedWithParent = "DeletedWithParent"

// reportGoneWithParent says, once, that the entity recorded in the status
// went from Konnect with its control plane or parent. Only when the
// object's spec is the one last written to Konnect: a reference changed to
// name another, missing object says nothing about where the entity is.
func (r *EntityReconciler[T, D]) reportGoneWithParent(t *pass[T, D], cause string) {
	id := t.cached.KonnectStatus(false).GetKonnectID()
	if id == "" || t.rec.goneReported == id {
		return
	}
	if wrote := t.rec.programmedGeneration; wrote != 0 && wrote != t.cached.GetGeneration() || wrote == 0 && !t.facts.programmed {
		return
	}
	t.remember(goneReportedOf(id))
	r.recorder.Event(t.cached, corev1.EventTypeWarning, EventDeletedWithParent,
		fmt.Sprintf("Konnect deleted this %s's entity %s with its control plane or parent (%s); it is created again once the reference is back", r.kind.KindName(), id, cause))
}
