package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// memory holds a controller's records, and indexes those whose entities
// the lister checks by listing scope (listerrecords.go).
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
