package v1alpha1

// Reasons of Programmed=False when an object without a Konnect ID in its
// status (a cluster rebuilt from Git, objects restored from a backup) finds
// an entity in its way that it does not take back. An entity written for
// the object by another cluster's operator is ReasonOwnedByOtherCluster.
const (
	// ReasonConflictsWithExistingEntity: an entity that was not written for this
	// object (another object's, or one made outside the operator) has its
	// unique name; the message names it and says how to adopt it.
	ReasonConflictsWithExistingEntity = "ConflictsWithExistingEntity"
)
