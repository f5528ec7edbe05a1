package controller

import (
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// listingScope is one listing scope whose entities of the kind are listed. It
// keeps no credentials: each listing takes them from a member resolved at
// that moment (see currentPlacement).
type listingScope struct {
	// org is the organisation of the members' latest listing
	// (listing.org), "" until one is known.
	org     string
	members map[cache.ObjectName]struct{}
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

// leaveLocked takes key out of the listing scope of rec's listing.
func (m *memory) leaveLocked(key cache.ObjectName, rec *record) {
	if rec.listing == nil {
		return
	}
	if pl, ok := m.scopes[rec.listing.scope]; ok {
		delete(pl.members, key)
	}
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
