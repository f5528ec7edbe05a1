package controller

import (
	"hash/fnv"
	"time"

	"k8s.io/apimachinery/pkg/types"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// timing is what decide knows of its controller's periods and waits: the
// sync period, how long reference problems and new objects wait, and when
// the workers started. It is fixed once the workers start. (The day-2
// controls an object's annotations set are its policies: facts.policies.)
type timing struct {
	syncPeriod time.Duration
	// referenceGrace is how long a reference problem lasts before a
	// Warning reports it.
	referenceGrace time.Duration
	// quietWait is how long a new object waits quietly for references on
	// their way to Konnect.
	quietWait time.Duration
	// startedAt separates objects created while this process runs (their
	// entities can only come from it) from older ones, whose entity an
	// earlier process may have created without recording its ID.
	startedAt time.Time
}

// decide chooses what one reconcile does with an object, from what the
// object says (f), where its references stand (res), what the controller
// remembers of it (rec) and the time. It has no side effects: the executor
// carries the action out and edits the record.
func (tm timing) decide(f facts, res Resolution, rec record, now time.Time) action {
	if f.policies.Invalid != "" {
		return action{op: opReportPolicy}
	}
	if f.deleting {
		return tm.decideDeletion(f, res, rec, now)
	}
	if f.policies.Reconcile == commonv1alpha1.ReconcilePolicyPause {
		return action{op: opPause}
	}
	if !res.Ready {
		if res.Waiting == WaitRead {
			// Not a state to report: a restart would otherwise write the
			// status of every object whose Secret is read by name.
			return action{op: opWaitQuietly, wait: readWait}
		}
		if wait := tm.quiet(f, res, now); wait > 0 {
			return action{op: opWaitQuietly, wait: wait}
		}
		if res.Waiting == WaitShard {
			// Most likely moving with what it refers to: quiet for as long
			// as a new object waits for references on their way.
			if _, wait := rec.referenceWarning(f.problem, now, tm.quietWait); wait > 0 {
				return action{op: opWaitQuietly, wait: wait, noteProblem: true}
			}
		}
		warn, wait := rec.referenceWarning(f.problem, now, tm.referenceGrace)
		return action{op: opReportReferences, warn: warn, wait: wait}
	}
	id := f.id
	if id == "" && f.adopting {
		// Adopted again until the status holds the ID, even when an earlier
		// reconcile adopted it and lost its status write: adopting in match
		// mode only reads, where an update would write.
		return action{op: opAdopt}
	}
	if id == "" {
		id = rec.createdID // created by a reconcile whose status write did not land
	}
	if id == "" {
		return tm.decideCreate(f, res, rec, now)
	}
	if owner := rec.foreignOwner(); owner != "" && !f.takeOver {
		return action{op: opReportForeign, id: id, owner: owner, mark: rec.mark}
	}
	// After a restart an object Programmed for its generation carries no
	// change of its own: a write only corrects drift.
	changed := !f.programmed
	if rec.written {
		changed = rec.fingerprint != f.fingerprint
	}
	if mark := rec.mark; mark != nil {
		switch {
		case mark.cause == driftInSync || mark.cause == driftOwned:
			return action{op: opKeep, id: id, mark: mark}
		case f.policies.Reconcile == commonv1alpha1.ReconcilePolicyReport && mark.counts() && !changed:
			return action{op: opReportDrift, id: id, mark: mark}
		}
		return action{op: opUpdate, id: id, mark: mark, changed: changed, checkOwner: tm.unknownOwner(f, rec)}
	}
	wait, write, assumed := tm.due(f, rec, now)
	if write {
		return action{op: opUpdate, id: id, changed: changed, checkOwner: tm.unknownOwner(f, rec)}
	}
	a := action{op: opKeep, id: id, wait: wait, assumeSyncedAt: assumed}
	if f.async {
		// Nothing to write; an entity in transition (or failed) is read
		// again, a settled one reported as it is.
		a.op = opSettle
		if f.phase != Settled {
			a.op = opRefresh
		}
	}
	return a
}

func (tm timing) decideDeletion(f facts, res Resolution, rec record, now time.Time) action {
	orphan := f.policies.Deletion == commonv1alpha1.DeletionPolicyOrphan ||
		// A control plane left in Konnect keeps its entities, unless they
		// say otherwise; a namespace deleted whole (admission cannot refuse
		// it) leaves a protected object's entity.
		res.ParentOrphans && !f.policies.DeletionSet || f.policies.Protected
	switch {
	case !f.finalizer:
		return action{op: opForget}
	case rec.finalized:
		return action{op: opAwaitCache}
	case f.deletionAt.After(now):
		return action{op: opWaitForDeletion, wait: f.deletionAt.Sub(now)}
	case f.policies.Reconcile == commonv1alpha1.ReconcilePolicyPause:
		return action{op: opPause}
	case orphan && !f.borrowed:
		return action{op: opOrphan}
	case rec.foreignOwner() != "" && !f.takeOver:
		return action{op: opOrphan, owner: rec.foreignOwner()}
	case len(f.dependents) > 0:
		return action{op: opWaitForDependents}
	case f.borrowed:
		return action{op: opRelease}
	case res.Gone:
		return action{op: opDropWithParent}
	case !res.Ready && res.Waiting == WaitRead:
		// What the delete needs is being read for the first time: its
		// answer reconciles the object again.
		return action{op: opWaitQuietly, wait: readWait}
	case !res.Ready:
		return action{op: opReportUndeletable}
	}
	id := f.id
	if id == "" {
		id = rec.createdID
	}
	// A create may have succeeded without its ID reaching the status, or
	// the object lost the ID with its status (a restore).
	return action{op: opDelete, id: id, lookFirst: id == "", byIdentity: id == "" && f.find == findByIdentity,
		checkOwner: id != "" && tm.unknownOwner(f, rec)}
}

// unknownOwner reports whether a write or delete must first read whose the
// entity is: neither written nor read by this process, nor taken over on
// purpose. A borrowed entity (a mirrored control plane) is only ever read,
// whoever owns it.
func (tm timing) unknownOwner(f facts, rec record) bool {
	return f.ownerReadable && !f.borrowed && !rec.ownerKnown && !f.takeOver
}

// readWait is how long an object waits for objects being read (WaitRead)
// before it looks again, should their answer not reconcile it.
const readWait = 10 * time.Second

// quiet returns how long a new object (Programmed not reported yet, its
// status showing it unfinished) with nothing wrong but references not there
// yet may still wait without a status write: up to quietWait after its
// creation for references on their way, up to the reference grace period
// for references not found. Zero: write the status now.
func (tm timing) quiet(f facts, res Resolution, now time.Time) time.Duration {
	if f.reported || !f.unfinishedShown {
		// A status that shows nothing would read as done.
		return 0
	}
	var quiet time.Duration
	switch res.Waiting {
	case WaitProgress:
		quiet = tm.quietWait
	case WaitMissing:
		quiet = tm.referenceGrace
	default:
		return 0
	}
	return max(f.createdAt.Add(quiet).Sub(now), 0)
}

// mayExistAlready reports whether a create must look for the entity first.
func (tm timing) mayExistAlready(f facts, rec record) bool {
	return f.createdAt.Before(tm.startedAt) || rec.createOutcomeUnknown
}

// due decides whether the entity must be written now and, when not, how
// long until it must be (zero: never by itself). In list mode an entity is
// written only when the spec or the metadata changed (the lister asks for
// the rest); in update mode, and for entities that are not listed, also
// once the sync period has passed since the last write.
//
// An object this process never wrote (after a restart) that reports
// Programmed for its generation is assumed written: in list mode now (the
// lister compares its entity with the spec), in update mode at a point of
// the last period that its UID picks, so that resyncs after a restart
// spread out instead of all arriving at once.
func (tm timing) due(f facts, rec record, now time.Time) (wait time.Duration, write bool, assumed time.Time) {
	if !rec.written {
		if !f.programmed {
			return 0, true, time.Time{}
		}
		assumed = now
		if !f.lists && tm.syncPeriod > 0 {
			assumed = now.Add(-spread(rec.uid, tm.syncPeriod))
		}
		rec.written, rec.fingerprint, rec.syncedAt = true, f.fingerprint, assumed
	}
	if rec.fingerprint != f.fingerprint {
		return 0, true, time.Time{}
	}
	if f.lists {
		return 0, false, assumed
	}
	if elapsed := now.Sub(rec.syncedAt); elapsed < tm.syncPeriod {
		return tm.syncPeriod - elapsed, false, assumed
	}
	return 0, true, time.Time{}
}

// spread picks, from a UID, a stable point within a period.
func spread(uid types.UID, period time.Duration) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(string(uid)))
	return time.Duration(h.Sum64() % uint64(period))
}

// referenceWarning reports whether a reference problem with this cause is
// reported in a Warning now, and otherwise how long until it would be
// (zero when it never will, as it was reported already).
func (rec record) referenceWarning(cause string, now time.Time, grace time.Duration) (warn bool, wait time.Duration) {
	if rec.warned == cause {
		return false, 0
	}
	since := rec.problemSince
	if rec.problem != cause {
		since = now
	}
	if elapsed := now.Sub(since); elapsed < grace {
		return false, grace - elapsed
	}
	return true, 0
}
