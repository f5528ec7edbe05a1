package controller

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// record is everything a controller remembers of one object between
// reconciles: its last write to Konnect, what the drift lister knows and
// asked for, the Warnings already given, and its retry state. It lives in
// memory only; after a restart what an object's status says stands in for
// it (see decide).
//
// Reconciles read a copy (memory.get), decide on it, and change the stored
// record through edits applied in one place once the action is carried out.
type record struct {
	uid types.UID

	// written says that fingerprint and syncedAt describe the last write
	// to Konnect (or what a restart assumes of an object reported
	// Programmed).
	written     bool
	fingerprint uint64
	syncedAt    time.Time
	// createdID is the ID of an entity created for the object that the
	// status may not show yet (its write failed, or the cache lags): the
	// next reconcile uses it instead of creating again.
	createdID string
	// createOutcomeUnknown: the last create failed in a way that may have
	// created the entity anyway (a timeout, a reset connection, a 5xx), so
	// the next attempt looks the entity up first.
	createOutcomeUnknown bool
	// finalized: this process removed the cleanup finalizer; a reconcile
	// that still sees it (the cache lags) must not delete again.
	finalized bool
	// knownID is the ID of the entity this process last knew the object
	// by, "" when none or once it deleted it: an object that goes while it
	// has one leaves the entity in Konnect, for its successor to take back.
	knownID string
	// refusal is why the last create took no entity (another cluster's,
	// or a conflict); nil when none.
	refusal *refusal
	// pendingReads counts the reads in a row that found an asynchronous
	// entity in transition: the delay before the next one grows with it.
	pendingReads int

	// listing is the entity as the drift lister checks it; nil when it is
	// not listed.
	listing *listing
	// mark is the lister's request to write the entity again; nil when
	// there is none.
	mark *driftMark
	// foreign is the cluster identity of another cluster's operator that
	// owns the entity, as the lister (or a read) last found it; ownerKnown
	// says that this process wrote the entity, or read whose it is.
	foreign    string
	ownerKnown bool
	// driftReported is the drift reported under the report policy and not
	// over yet (nil: none).
	driftReported *driftMark
	// listingRefused is why the last listing of the entity's scope was
	// refused (a *konnect.ServerFaultError), "" when it was not: until a
	// listing or a write succeeds, whether the entity drifted is unknown.
	listingRefused string

	// warned is the cause (reason and message) of the last Warning Event.
	warned string
	// problem is a reference problem not reported yet, first seen at
	// problemSince.
	problem      string
	problemSince time.Time
	// programmedGeneration is the generation this process last wrote to
	// Konnect (0: none).
	programmedGeneration int64
	// goneReported is the entity ID whose going with its parent was
	// reported.
	goneReported string
}

// listing is what the drift lister knows of one entity.
type listing struct {
	// scope is the listing scope (scopeOf) the entity is found in.
	scope string
	// org names the organisation whose limiter a listing of scope waits
	// for (listingOrganization): no credentials, only where they lead.
	org string
	id  string
	// snapshot is Konnect's answer to the last write; unknown after a
	// restart until the first listing compares the entity with the spec.
	snapshot Snapshot
	// writtenAt is when this process last wrote the entity: a listing that
	// started before may show the entity as it was before the write.
	writtenAt time.Time
	// listedSum is the entity's Listed.Sum when a listing last found it
	// equal to snapshot, 0 when none did since the write: a later listing
	// that shows the same sum need not compare it again.
	listedSum uint64
}

// foreignOwner is the cluster identity of another cluster's operator that
// owns the entity, from the record or the lister's mark; "" when none.
func (rec record) foreignOwner() string {
	if rec.mark != nil {
		switch rec.mark.cause {
		case driftForeign:
			return rec.mark.owner()
		case driftOwned:
			return ""
		}
	}
	return rec.foreign
}

// edit is one change to an object's record.
type edit func(*record)

// The edits the executor makes.

// forgetAll empties the record: the object no longer needs anything of it.
// The entity it knew, if any, stays in Konnect.
func forgetAll(rec *record) { *rec = record{uid: rec.uid, knownID: rec.knownID} }

// forgetCreated drops a remembered ID once the status carries it, or the
// entity is gone.
func forgetCreated(rec *record) { rec.createdID = "" }

// created remembers the ID of an entity just created (or taken over).
func created(id string) edit {
	return func(rec *record) { rec.createdID = id }
}

// mayHaveCreated records a create that may have created the entity anyway.
func mayHaveCreated(rec *record) { rec.createOutcomeUnknown = true }

// synced records a write of the entity with fingerprint fp at now, which
// answered mark when there was one (a later mark stays).
func synced(fp uint64, now time.Time, mark *driftMark) edit {
	return func(rec *record) {
		rec.written, rec.fingerprint, rec.syncedAt = true, fp, now
		rec.createOutcomeUnknown = false
		if mark != nil && rec.mark != nil && rec.mark.seq == mark.seq {
			rec.mark = nil
		}
	}
}

// assumeSynced records what a restart assumes of an object reported
// Programmed: written with fingerprint fp at at.
func assumeSynced(fp uint64, at time.Time) edit {
	return func(rec *record) { rec.written, rec.fingerprint, rec.syncedAt = true, fp, at }
}

// unsynced makes the next reconcile write to Konnect.
func unsynced(rec *record) { rec.written = false }

// remark asks for the entity to be written again, for a mark the pass
// found itself (an entity missing at an update) and could not act on.
func remark(mark *driftMark) edit {
	return func(rec *record) {
		if rec.mark == nil && mark != nil && mark.seq == 0 {
			m := *mark
			rec.mark = &m
		}
	}
}

// listed records the entity with the given ID as written now with
// Konnect's answer (a snapshot) or, with no snapshot, as to be compared
// with the spec by the next listing; nil lists it no more. An entity known
// already with this ID keeps its snapshot when none is given.
func listed(p Placement, id string, snapshot Snapshot, now time.Time) edit {
	scope := scopeOf(p)
	org := listingOrganization(p)
	return func(rec *record) {
		switch {
		case snapshot.Known():
			rec.listing = &listing{scope: scope, org: org, id: id, snapshot: snapshot, writtenAt: now}
		case rec.listing != nil && rec.listing.id == id && rec.listing.scope == scope:
			// Copies of the record share its listing: it is replaced, not
			// changed.
			l := *rec.listing
			l.org = org
			rec.listing = &l
		default:
			rec.listing = &listing{scope: scope, org: org, id: id}
		}
	}
}

// unlisted stops the lister checking the entity.
func unlisted(rec *record) { rec.listing, rec.mark = nil, nil }

// programmedAt records a successful write (or check) of the given
// generation: the causes reported so far are over, and reported again if
// they come back.
func programmedAt(generation int64) edit {
	return func(rec *record) {
		rec.warned, rec.problem, rec.problemSince, rec.goneReported = "", "", time.Time{}, ""
		rec.programmedGeneration = generation
	}
}

// warned records the cause of a Warning just given.
func warnedOf(cause string) edit {
	return func(rec *record) { rec.warned, rec.problem = cause, "" }
}

// problemSeen records a reference problem not reported yet, first seen now
// unless it was seen before.
func problemSeen(cause string, now time.Time) edit {
	return func(rec *record) {
		if rec.warned != cause && rec.problem != cause {
			rec.problem, rec.problemSince = cause, now
		}
	}
}

// goneReportedOf records that the going of the entity with this ID with
// its parent was reported.
func goneReportedOf(id string) edit {
	return func(rec *record) { rec.goneReported = id }
}

// finalized records that this process removed the cleanup finalizer, and
// drops the rest.
func finalized(rec *record) { *rec = record{uid: rec.uid, finalized: true} }

// knownEntity records the ID of the entity the object stands for now.
func knownEntity(id string) edit {
	return func(rec *record) { rec.knownID, rec.refusal = id, nil }
}

// refused records why a create took no entity.
func refused(why refusal) edit {
	return func(rec *record) { rec.refusal = &why }
}

// pendingRead counts one more read that found the entity in transition.
func pendingRead(rec *record) { rec.pendingReads++ }

// settledRead resets the reads of an entity that left its transition.
func settledRead(rec *record) { rec.pendingReads = 0 }
