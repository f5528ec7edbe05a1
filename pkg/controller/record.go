package controller

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
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

// listingScope is one listing scope whose entities of the kind are listed. It
// keeps no credentials: each listing takes them from a member resolved at
// that moment (see currentPlacement).
type listingScope struct {
	// org is the organisation of the members' latest listing
	// (listing.org), "" until one is known.
	org     string
	members map[cache.ObjectName]struct{}
}

// memory holds a controller's records, and indexes those whose entities
// the lister checks by listing scope.
type memory struct {
	mu      sync.Mutex
	records map[cache.ObjectName]*record
	scopes  map[string]*listingScope
	// marks numbers the lister's marks, so that a reconcile clears only the
	// mark it acted on, never one given while it ran.
	marks uint64
	// schedule is called once for each listing scope that gains its first
	// member.
	schedule func(scope string)
}

func newMemory(schedule func(string)) *memory {
	return &memory{records: map[cache.ObjectName]*record{}, scopes: map[string]*listingScope{}, schedule: schedule}
}

// get returns a copy of the record of the object with uid: an empty one
// when nothing is remembered of it (or of an object that had its name
// before).
func (m *memory) get(key cache.ObjectName, uid types.UID) record {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rec, ok := m.records[key]; ok && rec.uid == uid {
		return *rec
	}
	return record{uid: uid}
}

// update applies edits to the record of the object with uid, starting from
// an empty record when the one stored is of another object, and keeps the
// listing scopes in step with its listing.
func (m *memory) update(key cache.ObjectName, uid types.UID, edits ...edit) {
	if len(edits) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.records[key]
	if !ok || rec.uid != uid {
		if ok {
			m.leaveLocked(key, rec)
		}
		rec = &record{uid: uid}
		m.records[key] = rec
	}
	before := rec.listing
	for _, e := range edits {
		e(rec)
	}
	m.relistLocked(key, before, rec.listing)
}

// relistLocked moves key between listing scopes after its listing changed.
func (m *memory) relistLocked(key cache.ObjectName, before, after *listing) {
	if before != nil && (after == nil || after.scope != before.scope) {
		if pl, ok := m.scopes[before.scope]; ok {
			delete(pl.members, key)
		}
	}
	if after == nil {
		return
	}
	pl, ok := m.scopes[after.scope]
	if !ok {
		pl = &listingScope{members: map[cache.ObjectName]struct{}{}}
		m.scopes[after.scope] = pl
		if m.schedule != nil {
			m.schedule(after.scope)
		}
	}
	pl.members[key] = struct{}{}
	if after.org != "" {
		pl.org = after.org // a token may have been replaced
	}
}

func (m *memory) leaveLocked(key cache.ObjectName, rec *record) {
	if rec.listing == nil {
		return
	}
	if pl, ok := m.scopes[rec.listing.scope]; ok {
		delete(pl.members, key)
	}
}

// forget drops the record of an object that no longer exists, and
// reports whether it left its entity in Konnect.
func (m *memory) forget(key cache.ObjectName) (leftBehind bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rec, ok := m.records[key]; ok {
		m.leaveLocked(key, rec)
		leftBehind = rec.knownID != ""
	}
	delete(m.records, key)
	return leftBehind
}

// vacated reports whether the record under key is of another object than
// uid's (one gone, whose name uid's object now has) that left its entity in
// Konnect. It reports so once.
func (m *memory) vacated(key cache.ObjectName, uid types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.records[key]
	if !ok || rec.uid == uid || rec.knownID == "" {
		return false
	}
	rec.knownID = ""
	return true
}

// member is one entity of a listing scope, as the lister reads it.
type member struct {
	uid types.UID
	listing
	// foreign is the other cluster the entity was last found to belong
	// to; reported says that its drift is reported (report policy);
	// listingRefused that the refusal of the last listing is.
	foreign        string
	reported       bool
	listingRefused bool
}

// scopeOrganization names the organisation a listing scope's listing waits
// for (listingOrganization); ok is false when the scope has no members.
func (m *memory) scopeOrganization(scope string) (org string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	pl, ok := m.scopes[scope]
	if !ok || len(pl.members) == 0 {
		return "", false
	}
	if pl.org == "" {
		return "scope " + scope, true
	}
	return pl.org, true
}

// scopeMembers returns a listing scope's members as they are now; ok is
// false (and the scope is dropped) when it has none left.
func (m *memory) scopeMembers(scope string) (map[cache.ObjectName]member, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	pl, ok := m.scopes[scope]
	if !ok {
		return nil, false
	}
	if len(pl.members) == 0 {
		delete(m.scopes, scope)
		return nil, false
	}
	out := make(map[cache.ObjectName]member, len(pl.members))
	for key := range pl.members {
		if rec := m.records[key]; rec != nil && rec.listing != nil {
			out[key] = member{uid: rec.uid, listing: *rec.listing, foreign: rec.foreign, reported: rec.driftReported != nil, listingRefused: rec.listingRefused != ""}
		}
	}
	return out, true
}

// mark records the lister's request to write the entity of the object
// with the mark's uid again.
func (m *memory) mark(key cache.ObjectName, mark driftMark) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.records[key]
	if !ok || rec.uid != mark.uid {
		return
	}
	m.marks++
	mark.seq = m.marks
	rec.mark = &mark
}

// refuseListing records why the listing of the entity of the object with
// uid was refused ("": it no longer is), and reports whether that changed.
func (m *memory) refuseListing(key cache.ObjectName, uid types.UID, why string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.records[key]
	if !ok || rec.uid != uid || rec.listingRefused == why {
		return false
	}
	rec.listingRefused = why
	return true
}

// adoptListed makes a listed entity the snapshot of key's entity, when
// nothing was written for it since seen was read.
func (m *memory) adoptListed(key cache.ObjectName, seen member, snapshot Snapshot, sum uint64) {
	m.relisted(key, seen, func(l *listing) bool {
		if l.snapshot.Known() {
			return false
		}
		l.snapshot, l.listedSum = snapshot, sum
		return true
	})
}

// inSync records that a listing found key's entity, with sum, equal to its
// snapshot, when nothing was written for it since seen was read.
func (m *memory) inSync(key cache.ObjectName, seen member, sum uint64) {
	m.relisted(key, seen, func(l *listing) bool {
		if !l.snapshot.Known() || l.listedSum == sum {
			return false
		}
		l.listedSum = sum
		return true
	})
}

// relisted replaces the listing of key's entity with a copy that change
// edits (reconciles read the listing they copied without the lock), when
// the entity is still the one seen and nothing was written for it since.
func (m *memory) relisted(key cache.ObjectName, seen member, change func(*listing) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.records[key]
	if !ok || rec.uid != seen.uid || rec.listing == nil {
		return
	}
	if l := rec.listing; l.id != seen.id || !l.writtenAt.Equal(seen.writtenAt) {
		return
	}
	l := *rec.listing
	if change(&l) {
		rec.listing = &l
	}
}

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
