package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// Drift detection modes (--drift-detection).
const (
	// DriftList finds drift by listing each control plane's entities once
	// per sync period and writes only those that differ from what the
	// operator last wrote, or are missing. The default.
	DriftList = "list"
	// DriftUpdate writes every entity again every sync period, as the seed
	// algorithm does: a change made outside the cluster is overwritten
	// without being seen.
	DriftUpdate = "update"
)

// DriftModes are the accepted values of --drift-detection.
var DriftModes = []string{DriftList, DriftUpdate}

// EventDriftCorrected is the reason of the Event that reports an entity
// written again because Konnect held something else.
const EventDriftCorrected = "DriftCorrected"

// driftCause says why the lister wants an object written.
type driftCause int

const (
	// driftChanged: the listed entity differs from the last write (or,
	// with no snapshot, from the spec) in the named fields.
	driftChanged driftCause = iota + 1
	// driftMissing: the listing does not show the entity (deleted, or its
	// identity tags were removed).
	driftMissing
	// driftUnknown: no snapshot and the kind cannot compare the listed
	// entity with the spec: one write takes the snapshot. Not a drift.
	driftUnknown
)

// driftMark is the lister's request to write an object's entity again.
type driftMark struct {
	uid    types.UID
	cause  driftCause
	fields []string
}

// counts reports whether the write corrects drift (counted and reported).
func (m driftMark) counts() bool { return m.cause == driftChanged || m.cause == driftMissing }

// describe says what drifted, naming fields, never their values.
func (m driftMark) describe() string {
	if m.cause == driftMissing {
		return "was missing from Konnect (deleted, or its identity tags removed there)"
	}
	return fmt.Sprintf("was changed in Konnect outside the cluster (fields: %s)", strings.Join(m.fields, ", "))
}

// scopeOf names what one listing covers: the entity's control plane or,
// for a control plane itself, its organisation as the credentials see it
// (another token may see other control planes). The token is in the name
// only as a hash, which is never logged.
func scopeOf(p Placement) string {
	if p.ControlPlaneID != "" {
		return p.ControlPlaneID
	}
	token := sha256.Sum256([]byte(p.Auth.Token))
	return "organization " + p.Auth.OrgID + " at " + p.Auth.ServerURL + " as " + hex.EncodeToString(token[:8])
}

// member is an object whose entity the lister checks.
type member struct {
	uid types.UID
	// plane is the listing scope (scopeOf) the entity is found in.
	plane string
	id    string
	// snapshot is Konnect's answer to the last write; unknown after a
	// restart until the first listing compares the entity with the spec.
	snapshot Snapshot
	// writtenAt is when this process last wrote the entity: a listing that
	// started before may show the entity as it was before the write.
	writtenAt time.Time
}

// plane is one control plane whose entities of the kind are listed.
type plane struct {
	placement Placement
	members   map[cache.ObjectName]struct{}
}

// driftIndex is what the lister knows: the objects whose entities it
// checks, grouped by control plane, and the writes it asked for. In memory
// only: after a restart it is rebuilt from the objects as they are
// reconciled, without snapshots.
type driftIndex struct {
	mu      sync.Mutex
	members map[cache.ObjectName]member
	planes  map[string]*plane
	marks   map[cache.ObjectName]driftMark
	// schedule is called once for each control plane that gains its first
	// member.
	schedule func(plane string)
}

func newDriftIndex(schedule func(string)) *driftIndex {
	return &driftIndex{
		members:  map[cache.ObjectName]member{},
		planes:   map[string]*plane{},
		marks:    map[cache.ObjectName]driftMark{},
		schedule: schedule,
	}
}

// track records the entity of key as written now, with Konnect's answer.
func (d *driftIndex) track(key cache.ObjectName, uid types.UID, p Placement, id string, snapshot Snapshot, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.putLocked(key, member{uid: uid, plane: scopeOf(p), id: id, snapshot: snapshot, writtenAt: now}, p)
}

// ensure records the entity of key, unless it is known already with this
// ID: how an object that this process has not written (after a restart)
// joins its control plane's listing, with no snapshot.
func (d *driftIndex) ensure(key cache.ObjectName, uid types.UID, p Placement, id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m, ok := d.members[key]; ok && m.uid == uid && m.id == id && m.plane == scopeOf(p) {
		d.planes[m.plane].placement = p // the server may have been renamed
		return
	}
	d.putLocked(key, member{uid: uid, plane: scopeOf(p), id: id}, p)
}

func (d *driftIndex) putLocked(key cache.ObjectName, m member, p Placement) {
	if old, ok := d.members[key]; ok && old.plane != m.plane {
		d.leaveLocked(key, old.plane)
	}
	d.members[key] = m
	pl, ok := d.planes[m.plane]
	if !ok {
		pl = &plane{members: map[cache.ObjectName]struct{}{}}
		d.planes[m.plane] = pl
	}
	pl.placement = p
	pl.members[key] = struct{}{}
	if !ok && d.schedule != nil {
		d.schedule(m.plane)
	}
}

func (d *driftIndex) leaveLocked(key cache.ObjectName, planeID string) {
	if pl, ok := d.planes[planeID]; ok {
		delete(pl.members, key)
	}
}

// forget stops checking key (deleted, or no longer listable).
func (d *driftIndex) forget(key cache.ObjectName) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if m, ok := d.members[key]; ok {
		d.leaveLocked(key, m.plane)
	}
	delete(d.members, key)
	delete(d.marks, key)
}

// planeMembers returns a control plane's placement and members as they are
// now; ok is false (and the plane is dropped) when it has none left.
func (d *driftIndex) planeMembers(planeID string) (Placement, map[cache.ObjectName]member, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pl, ok := d.planes[planeID]
	if !ok {
		return Placement{}, nil, false
	}
	if len(pl.members) == 0 {
		delete(d.planes, planeID)
		return Placement{}, nil, false
	}
	out := make(map[cache.ObjectName]member, len(pl.members))
	for key := range pl.members {
		out[key] = d.members[key]
	}
	return pl.placement, out, true
}

// adoptListed makes a listed entity the snapshot of key, when nothing was
// written for key since seen was read.
func (d *driftIndex) adoptListed(key cache.ObjectName, seen member, snapshot Snapshot) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.members[key]
	if !ok || m.uid != seen.uid || m.id != seen.id || !m.writtenAt.Equal(seen.writtenAt) || m.snapshot.Known() {
		return
	}
	m.snapshot = snapshot
	d.members[key] = m
}

// mark asks for key's entity to be written again.
func (d *driftIndex) mark(key cache.ObjectName, m driftMark) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.marks[key] = m
}

// takeMark returns and removes the write asked for key's object with uid.
func (d *driftIndex) takeMark(key cache.ObjectName, uid types.UID) (driftMark, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.marks[key]
	delete(d.marks, key)
	return m, ok && m.uid == uid
}
