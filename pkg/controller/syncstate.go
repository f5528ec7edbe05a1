package controller

import (
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// syncRecord is what the loop remembers of an object's last successful sync
// with Konnect.
type syncRecord struct {
	uid         types.UID
	fingerprint uint64
	syncedAt    time.Time
}

// syncState keeps, per object, when it was last written to Konnect and what
// was written. It decides whether a reconcile must call Konnect now (the
// desired entity or the object's metadata changed, or the sync period has
// passed) or only requeue for the rest of the period. It lives in memory:
// after a restart an object that was Programmed for its generation is
// assumed synced at a random point of the last period, so that resyncs
// spread out instead of arriving all at once, and any drift is still
// overwritten within one period.
type syncState struct {
	mu      sync.Mutex
	records map[cache.ObjectName]syncRecord
	// createOutcomeUnknown holds the objects whose last create failed in a
	// way that may have created the entity anyway (a timeout, a reset
	// connection, a 5xx): the next attempt looks the entity up first.
	createOutcomeUnknown map[types.UID]bool
	// created holds the IDs of entities created whose ID may not have
	// reached the status yet (the status write failed, or the cache has not
	// caught up): the next reconcile uses the ID instead of creating again.
	created map[types.UID]string
	// finalized holds the objects whose cleanup finalizer this process
	// removed, until the cache shows it: a reconcile that still sees the
	// finalizer must not delete from Konnect again.
	finalized map[cache.ObjectName]types.UID
	// pending counts, per object, the reads in a row that found its entity
	// in transition (asynchronous kinds): the delay before the next one
	// grows with it.
	pending map[cache.ObjectName]int
}

func newSyncState() *syncState {
	return &syncState{
		records:              map[cache.ObjectName]syncRecord{},
		createOutcomeUnknown: map[types.UID]bool{},
		created:              map[types.UID]string{},
		finalized:            map[cache.ObjectName]types.UID{},
		pending:              map[cache.ObjectName]int{},
	}
}

// due reports how long to wait before the next Konnect write: zero means
// now. programmed says whether the object reports Programmed=True for its
// current generation, used only when nothing is remembered of it.
func (s *syncState) due(key cache.ObjectName, uid types.UID, fingerprint uint64, programmed bool, now time.Time, period time.Duration) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, known := s.records[key]
	if !known || rec.uid != uid {
		if !programmed {
			return 0
		}
		rec = syncRecord{uid: uid, fingerprint: fingerprint, syncedAt: now.Add(-rand.N(period))}
		s.records[key] = rec
	}
	if rec.fingerprint != fingerprint {
		return 0
	}
	if elapsed := now.Sub(rec.syncedAt); elapsed < period {
		return period - elapsed
	}
	return 0
}

// changed reports whether the entity must be written because the desired
// entity or the object's metadata changed since the last write. An object
// this process never wrote (after a restart) counts as unchanged when it
// reports Programmed for its generation: the lister compares its entity
// with the spec instead.
func (s *syncState) changed(key cache.ObjectName, uid types.UID, fingerprint uint64, programmed bool, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, known := s.records[key]
	if !known || rec.uid != uid {
		if !programmed {
			return true
		}
		s.records[key] = syncRecord{uid: uid, fingerprint: fingerprint, syncedAt: now}
		return false
	}
	return rec.fingerprint != fingerprint
}

// synced records a successful write of fingerprint at now.
func (s *syncState) synced(key cache.ObjectName, uid types.UID, fingerprint uint64, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[key] = syncRecord{uid: uid, fingerprint: fingerprint, syncedAt: now}
	delete(s.createOutcomeUnknown, uid)
}

// forget drops what is remembered of an object that no longer exists.
func (s *syncState) forget(key cache.ObjectName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec, ok := s.records[key]; ok {
		delete(s.createOutcomeUnknown, rec.uid)
		delete(s.created, rec.uid)
	}
	delete(s.records, key)
	delete(s.finalized, key)
	delete(s.pending, key)
}

// markFinalized records that the cleanup finalizer of the object with the
// given UID was removed, and drops the rest of what is remembered of it.
func (s *syncState) markFinalized(key cache.ObjectName, uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.createOutcomeUnknown, uid)
	delete(s.created, uid)
	delete(s.records, key)
	delete(s.pending, key)
	s.finalized[key] = uid
}

// isFinalized reports whether the cleanup finalizer of the object with the
// given UID was already removed.
func (s *syncState) isFinalized(key cache.ObjectName, uid types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finalized[key] == uid
}

// forgetSync makes the next reconcile write to Konnect, keeping the rest.
func (s *syncState) forgetSync(key cache.ObjectName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.records, key)
}

func (s *syncState) markCreateOutcomeUnknown(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.createOutcomeUnknown[uid] = true
}

func (s *syncState) isCreateOutcomeUnknown(uid types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.createOutcomeUnknown[uid]
}

// isSynced reports whether fingerprint is what was last written, that is
// whether a write now only overwrites drift.
func (s *syncState) isSynced(key cache.ObjectName, uid types.UID, fingerprint uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[key]
	return ok && rec.uid == uid && rec.fingerprint == fingerprint
}

// rememberCreated records the ID of an entity just created for obj.
func (s *syncState) rememberCreated(uid types.UID, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created[uid] = id
}

// createdID returns the ID of an entity created for obj whose status may
// not show it yet, or "".
func (s *syncState) createdID(uid types.UID) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.created[uid]
}

// forgetCreated drops a remembered ID once the status carries it or the
// entity is gone.
func (s *syncState) forgetCreated(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.created, uid)
}

// nextPending returns how long to wait before reading an entity in
// transition again: base, doubled for every read in a row that found it
// still in transition, at most maxDelay.
func (s *syncState) nextPending(key cache.ObjectName, base, maxDelay time.Duration) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	delay := base
	for i := 0; i < s.pending[key] && delay < maxDelay; i++ {
		delay *= 2
	}
	s.pending[key]++
	return min(delay, maxDelay)
}

// settled resets the pending backoff of an entity that left its transition.
func (s *syncState) settled(key cache.ObjectName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, key)
}
