package controller

import "time"

// op is what one reconcile does.
type op int

const (
	// opWaitQuietly: a new object waits for references on their way,
	// without a status write; their changes enqueue it again.
	opWaitQuietly op = iota + 1
	// opReportReferences: references are not usable; say so in the status
	// (Programmed=False) and, once the problem has lasted, in a Warning.
	opReportReferences
	// opCreate creates the entity, unless it finds the one the object had
	// (by its identity, its UID or what it holds, see findMode) or the one
	// a conflict named is still there.
	opCreate
	// opAdopt takes over the entity that spec.adopt names.
	opAdopt
	// opUpdate writes the entity: the spec or metadata changed, the sync
	// period passed (update mode), or the lister found drift.
	opUpdate
	// opKeep writes nothing to Konnect; the status says Programmed, and the
	// object waits for the rest of the sync period (or for a change).
	opKeep
	// opRefresh reads an asynchronous entity in transition again.
	opRefresh
	// opSettle reports an asynchronous entity that has settled, without a
	// Konnect call.
	opSettle

	// opForget: the object being deleted holds no cleanup finalizer of
	// ours; nothing to do.
	opForget
	// opAwaitCache: this process removed the finalizer already; the cache
	// has not caught up.
	opAwaitCache
	// opWaitForDeletion: the deletion timestamp lies ahead.
	opWaitForDeletion
	// opWaitForDependents keeps the object, and its entity, until the
	// objects that use it (its dependents) are gone.
	opWaitForDependents
	// opRelease lets a borrowed entity go without a Konnect call.
	opRelease
	// opDropWithParent: Konnect deleted the entity with its control plane
	// or parent; only the finalizers are left to remove.
	opDropWithParent
	// opReportUndeletable: what the delete call needs is not usable; say so.
	opReportUndeletable
	// opDelete deletes the entity (looking it up by its UID tag first when
	// its ID is unknown) and then the finalizers.
	opDelete

	// The day-2 controls (commonv1alpha1.Policies).

	// opPause makes no Konnect call and says so (Paused=True); a deletion
	// waits until the object is no longer paused.
	opPause
	// opReportPolicy: an annotation holds a policy the operator does not
	// know; the object is left alone until it is fixed.
	opReportPolicy
	// opReportDrift reports, under the report policy, what the lister found
	// changed (or missing) in Konnect, without writing it back.
	opReportDrift
	// opReportForeign: another cluster's operator owns the entity; it is
	// never written or deleted from here.
	opReportForeign
	// opOrphan releases the object being deleted and leaves its entity in
	// Konnect, untouched.
	opOrphan
	// opReportRefusal says again, without a Konnect call, why the last
	// create took no entity (another cluster's entity, a conflict), until
	// the spec changes or the sync period has passed.
	opReportRefusal
)

var opNames = map[op]string{
	opWaitQuietly: "WaitQuietly", opReportReferences: "ReportReferences", opCreate: "Create",
	opAdopt: "Adopt", opUpdate: "Update", opKeep: "Keep", opRefresh: "Refresh", opSettle: "Settle",
	opForget: "Forget", opAwaitCache: "AwaitCache", opWaitForDeletion: "WaitForDeletion", opWaitForDependents: "WaitForDependents",
	opRelease: "Release", opDropWithParent: "DropWithParent", opReportUndeletable: "ReportUndeletable", opDelete: "Delete",
	opPause: "Pause", opReportPolicy: "ReportPolicy", opReportDrift: "ReportDrift", opReportForeign: "ReportForeign", opOrphan: "Orphan",
	opReportRefusal: "ReportRefusal",
}

func (o op) String() string { return opNames[o] }

// action is decide's answer: one op and what carrying it out needs.
type action struct {
	op op
	// wait is how long until the object is reconciled again by itself
	// (zero: only when something changes).
	wait time.Duration
	// id is the entity's Konnect ID, from the status or the record ("" when
	// unknown).
	id string
	// lookFirst: the entity may exist already (created by an earlier
	// process, or by a create whose outcome is unknown): look it up by its
	// UID tag (FindByUID) before creating, or before deleting when id is
	// unknown.
	lookFirst bool
	// byIdentity: look the entity up among the kind's listed entities by
	// the object's kind, namespace and name before creating, or before
	// deleting when id is unknown.
	byIdentity bool
	// inTheWay is the ID of the entity that the last create found in the
	// object's way: read again before creating.
	inTheWay string
	// mark is the lister's request the update answers, if any.
	mark *driftMark
	// changed: the write carries a change of the spec or metadata, not
	// only a correction of drift or a periodic write.
	changed bool
	// assumeSyncedAt, when set, is the last write a restart assumes of an
	// object reported Programmed: the record takes it without a write.
	assumeSyncedAt time.Time
	// warn: the reference problem has lasted the grace period and is
	// reported in a Warning now.
	warn bool
	// owner is the cluster identity of another cluster's operator that
	// owns the entity (opReportForeign, opOrphan).
	owner string
	// checkOwner: before writing or deleting, read whose the entity is
	// (this process knows nothing of it yet).
	checkOwner bool
	// noteProblem: a quiet wait that the record times from when the
	// problem was first seen (WaitShard).
	noteProblem bool
}
