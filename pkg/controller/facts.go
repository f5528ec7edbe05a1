package controller

import (
	"time"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// facts are what decide reads of one object (as the informer holds it).
type facts struct {
	// deleting and deletionAt: the object is being deleted, from then.
	deleting   bool
	deletionAt time.Time
	// finalizer: it holds the cleanup finalizer.
	finalizer bool
	// id is the Konnect ID its status records.
	id string
	// createdAt is its creation timestamp.
	createdAt time.Time
	// programmed: Programmed=True for its generation; reported: Programmed
	// has been reported at all (the schema's default is Unknown).
	programmed, reported bool
	// unfinishedShown: the status already tells a reader that knows
	// nothing of Konnect that the object is not done (Reconciling or
	// Stalled True, set by the schema's default for most kinds), so a
	// wait or a create needs no status write to say so.
	unfinishedShown bool
	// borrowed: its entity is read, never created or deleted (Kind.Borrows).
	borrowed bool
	// adopting: spec.adopt names an existing entity to take over.
	adopting bool
	// async and phase: Konnect provisions the entity asynchronously, and
	// the status records this phase.
	async bool
	phase Phase
	// lists: drift is found by listing (list mode, a kind that lists it).
	lists bool
	// fingerprint hashes what a write depends on (when references are
	// ready and the object is not being deleted).
	fingerprint uint64
	// problem says what is wrong with its references (when not ready).
	problem string
	// dependents name the objects that still use its entity (when deleting
	// and the kind keeps objects for their dependents, Kind.UsedBy).
	dependents []string
	// policies are its day-2 controls; takeOver says that spec.adopt
	// overrides the entity deliberately, even one another cluster owns.
	policies commonv1alpha1.Policies
	takeOver bool
	// ownerReadable: the operator knows its cluster and the kind can read
	// an entity's owner (Kind.Owner).
	ownerReadable bool
	// find is how a create looks for an entity the object may have.
	find findMode
}
