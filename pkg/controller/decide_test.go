package controller

import (
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// TestDecide covers every action decide chooses: each row is one branch of
// decide.
func TestDecide(t *testing.T) {
	const period = time.Minute
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	tm := timing{syncPeriod: period, referenceGrace: 10 * time.Second, quietWait: 5 * time.Minute, startedAt: now.Add(-time.Hour)}
	ready := Resolution{Ready: true}
	missing := Resolution{Waiting: WaitMissing}
	onTheirWay := Resolution{Waiting: WaitProgress}
	broken := Resolution{Waiting: NoWait}
	beingRead := Resolution{Waiting: WaitRead}
	inOtherShard := Resolution{Waiting: WaitShard}
	// fresh is a new object, its status set to unfinished by the
	// schema's default; existing one Programmed with an ID.
	fresh := facts{createdAt: now.Add(-time.Second), fingerprint: 1, unfinishedShown: true}
	existing := facts{createdAt: now.Add(-30 * time.Minute), id: "e1", programmed: true, reported: true, fingerprint: 1}
	listed := func(f facts) facts { f.lists = true; return f }
	with := func(f facts, change func(*facts)) facts { change(&f); return f }
	writtenAt := func(at time.Time, fp uint64) record {
		return record{uid: "u", written: true, fingerprint: fp, syncedAt: at}
	}
	mark := &driftMark{uid: "u", cause: driftChanged, fields: []string{"host"}, seq: 3}
	missingMark := &driftMark{uid: "u", cause: driftMissing, seq: 4}
	inSyncMark := &driftMark{uid: "u", cause: driftInSync, seq: 5}
	foreignMark := &driftMark{uid: "u", cause: driftForeign, fields: []string{"cluster-b"}, seq: 6}
	ownedMark := &driftMark{uid: "u", cause: driftOwned, seq: 7}
	const pause = commonv1alpha1.ReconcilePolicyPause
	reporting := func(f facts) facts {
		f.lists, f.policies.Reconcile = true, commonv1alpha1.ReconcilePolicyReport
		return f
	}
	byIdentity := func(f facts) facts { f.find = findByIdentity; return f }
	refusedBy := func(inTheWay string, fp uint64, at time.Time) record {
		return record{uid: "u", refusal: &refusal{fingerprint: fp, scope: scopeOf(Placement{}), inTheWay: inTheWay, at: at}}
	}
	deleting := func(f facts) facts {
		f.deleting, f.deletionAt, f.finalizer = true, now.Add(-time.Second), true
		return f
	}

	tests := []struct {
		name string
		f    facts
		res  Resolution
		rec  record
		want action
	}{
		// References not ready.
		{"a new object waits quietly for references on their way", fresh, onTheirWay, record{},
			action{op: opWaitQuietly, wait: 5*time.Minute - time.Second}},
		{"a new object waits quietly for missing references only for the grace period", fresh, missing, record{},
			action{op: opWaitQuietly, wait: 9 * time.Second}},
		{"a new object whose status shows nothing yet says at once that it waits", with(fresh, func(f *facts) { f.unfinishedShown, f.problem = false, "on its way" }), onTheirWay, record{},
			action{op: opReportReferences, wait: 10 * time.Second}},
		{"a new object past the grace period reports missing references, the Warning later", with(fresh, func(f *facts) { f.createdAt = now.Add(-time.Minute); f.problem = "gone" }), missing, record{},
			action{op: opReportReferences, wait: 10 * time.Second}},
		{"an object that reported once reports at once", with(existing, func(f *facts) { f.problem = "gone" }), onTheirWay, record{},
			action{op: opReportReferences, wait: 10 * time.Second}},
		{"a Programmed object whose Secret is being read waits for it without a status write", existing, beingRead, writtenAt(now.Add(-time.Second), 1),
			action{op: opWaitQuietly, wait: readWait}},
		{"a new object whose Secret is being read waits for it too", fresh, beingRead, record{},
			action{op: opWaitQuietly, wait: readWait}},
		{"a broken reference is reported at once", with(fresh, func(f *facts) { f.problem = "refused" }), broken, record{},
			action{op: opReportReferences, wait: 10 * time.Second}},
		{"a problem that lasted the grace period is reported in a Warning", with(existing, func(f *facts) { f.problem = "gone" }), broken,
			record{problem: "gone", problemSince: now.Add(-11 * time.Second)},
			action{op: opReportReferences, warn: true}},
		{"a problem reported in a Warning is not reported again", with(existing, func(f *facts) { f.problem = "gone" }), broken,
			record{warned: "gone"},
			action{op: opReportReferences}},
		{"another problem starts its own grace period", with(existing, func(f *facts) { f.problem = "other" }), broken,
			record{problem: "gone", problemSince: now.Add(-time.Hour)},
			action{op: opReportReferences, wait: 10 * time.Second}},

		{"a Programmed object whose reference is in another shard waits quietly, the problem noted", with(existing, func(f *facts) { f.problem = "in shard b" }), inOtherShard, record{},
			action{op: opWaitQuietly, wait: 5 * time.Minute, noteProblem: true}},
		{"it waits out the rest of the quiet wait since the problem was first seen", with(existing, func(f *facts) { f.problem = "in shard b" }), inOtherShard,
			record{problem: "in shard b", problemSince: now.Add(-time.Minute)},
			action{op: opWaitQuietly, wait: 4 * time.Minute, noteProblem: true}},
		{"a reference still in another shard after the quiet wait is reported, in a Warning at once", with(existing, func(f *facts) { f.problem = "in shard b" }), inOtherShard,
			record{problem: "in shard b", problemSince: now.Add(-6 * time.Minute)},
			action{op: opReportReferences, warn: true}},

		// Create.
		{"a new object is created", fresh, ready, record{}, action{op: opCreate}},
		{"an object older than the process is looked up by its UID before creating", with(fresh, func(f *facts) { f.createdAt = now.Add(-2 * time.Hour) }), ready, record{},
			action{op: opCreate, lookFirst: true}},
		{"a create whose outcome is unknown is looked up before creating again", fresh, ready, record{createOutcomeUnknown: true},
			action{op: opCreate, lookFirst: true}},
		{"spec.adopt takes the named entity over", with(fresh, func(f *facts) { f.adopting = true }), ready, record{}, action{op: opAdopt}},
		{"an adoption whose status write did not land adopts again (a read), not an update (a write)", with(fresh, func(f *facts) { f.adopting = true }), ready,
			record{uid: "u", createdID: "e9"}, action{op: opAdopt}},
		{"an entity created whose ID the status lacks is not created again", fresh, ready, record{uid: "u", createdID: "e9", written: true, fingerprint: 1, syncedAt: now},
			action{op: opKeep, id: "e9", wait: period}},

		// Create, finding the entity an object had before (a rebuilt
		// cluster, a restore without status).
		{"a kind listed with identities looks for the object's entity there before creating", byIdentity(fresh), ready, record{},
			action{op: opCreate, byIdentity: true}},
		{"an object older than the process is found by its identity too, not by its UID", with(byIdentity(fresh), func(f *facts) { f.createdAt = now.Add(-2 * time.Hour) }), ready, record{},
			action{op: opCreate, byIdentity: true}},
		{"a create of unknown outcome, not listed yet, is looked up by its UID as well", byIdentity(fresh), ready, record{createOutcomeUnknown: true},
			action{op: opCreate, byIdentity: true, lookFirst: true}},
		{"a kind found by what it holds looks before every create", with(fresh, func(f *facts) { f.find = findByContent }), ready, record{},
			action{op: opCreate, lookFirst: true}},
		{"an entity found in the way is reported without a call within the period", byIdentity(fresh), ready, refusedBy("h1", 1, now.Add(-10*time.Second)),
			action{op: opReportRefusal, wait: 50 * time.Second}},
		{"once the period has passed the entity in the way is read again, not created over", byIdentity(fresh), ready, refusedBy("h1", 1, now.Add(-period)),
			action{op: opCreate, inTheWay: "h1"}},
		{"a conflict whose entity in the way cannot be read waits for a change", byIdentity(fresh), ready, refusedBy("", 1, now.Add(-time.Hour)),
			action{op: opReportRefusal}},
		{"a changed spec tries to create again at once", byIdentity(fresh), ready, refusedBy("h1", 2, now.Add(-time.Second)),
			action{op: opCreate, byIdentity: true}},
		{"another control plane tries to create again at once", byIdentity(fresh), Resolution{Ready: true, Placement: Placement{ControlPlaneID: "cp-2"}},
			refusedBy("h1", 1, now.Add(-time.Second)), action{op: opCreate, byIdentity: true}},

		// Update, list mode.
		{"list mode: an unchanged entity is kept, with no wait", listed(existing), ready, writtenAt(now.Add(-time.Hour), 1),
			action{op: opKeep, id: "e1"}},
		{"list mode: a changed spec is written at once", listed(existing), ready, writtenAt(now.Add(-time.Second), 2),
			action{op: opUpdate, id: "e1", changed: true}},
		{"list mode: drift the lister marked is written", listed(existing), ready, func() record { r := writtenAt(now, 1); r.mark = mark; return r }(),
			action{op: opUpdate, id: "e1", mark: mark}},
		{"list mode after a restart: a Programmed object is assumed written now", listed(existing), ready, record{uid: "u"},
			action{op: opKeep, id: "e1", assumeSyncedAt: now}},
		{"after a restart an object not Programmed for its generation is written", with(existing, func(f *facts) { f.programmed = false }), ready, record{uid: "u"},
			action{op: opUpdate, id: "e1", changed: true}},
		{"after a restart drift is corrected without counting as a change", listed(existing), ready, record{uid: "u", mark: mark},
			action{op: opUpdate, id: "e1", mark: mark}},

		// Update, update mode (every entity written again each period).
		{"update mode: inside the period the entity waits for the rest of it", existing, ready, writtenAt(now.Add(-20*time.Second), 1),
			action{op: opKeep, id: "e1", wait: 40 * time.Second}},
		{"update mode: once the period has passed the entity is written again", existing, ready, writtenAt(now.Add(-period), 1),
			action{op: opUpdate, id: "e1"}},
		{"update mode: a changed spec is written at once", existing, ready, writtenAt(now.Add(-time.Second), 2),
			action{op: opUpdate, id: "e1", changed: true}},
		{"update mode after a restart: the next write comes at a point of the period the UID picks", existing, ready, record{uid: "u"},
			action{op: opKeep, id: "e1", wait: period - spread("u", period), assumeSyncedAt: now.Add(-spread("u", period))}},

		// Asynchronous entities.
		{"an asynchronous entity in transition is read again", with(existing, func(f *facts) { f.async, f.phase = true, Transient }), ready, writtenAt(now, 1),
			action{op: opRefresh, id: "e1", wait: period}},
		{"an asynchronous entity that failed is read again", with(existing, func(f *facts) { f.async, f.phase = true, Failed }), ready, writtenAt(now, 1),
			action{op: opRefresh, id: "e1", wait: period}},
		{"a settled asynchronous entity is reported, without a call", with(existing, func(f *facts) { f.async = true }), ready, writtenAt(now.Add(-time.Second), 1),
			action{op: opSettle, id: "e1", wait: period - time.Second}},
		{"an asynchronous entity whose spec changed is written", with(existing, func(f *facts) { f.async = true }), ready, writtenAt(now, 2),
			action{op: opUpdate, id: "e1", changed: true}},

		// Deletion.
		{"an object without our finalizer is forgotten", with(deleting(existing), func(f *facts) { f.finalizer = false }), ready, record{}, action{op: opForget}},
		{"a finalizer removed already waits for the cache", deleting(existing), ready, record{finalized: true}, action{op: opAwaitCache}},
		{"a deletion timestamp ahead is waited for", with(deleting(existing), func(f *facts) { f.deletionAt = now.Add(time.Minute) }), ready, record{},
			action{op: opWaitForDeletion, wait: time.Minute}},
		{"an entity still used by other objects waits for them", with(deleting(existing), func(f *facts) { f.dependents = []string{"KongRoute ns/r"} }), ready, record{}, action{op: opWaitForDependents}},
		{"a borrowed entity still used waits for its dependents", with(deleting(existing), func(f *facts) { f.borrowed, f.dependents = true, []string{"KongService ns/s"} }), ready, record{}, action{op: opWaitForDependents}},
		{"a borrowed entity is released", with(deleting(existing), func(f *facts) { f.borrowed = true }), Resolution{}, record{}, action{op: opRelease}},
		{"an entity gone with its parent leaves only the finalizer", deleting(existing), Resolution{Gone: true}, record{}, action{op: opDropWithParent}},
		{"what the delete needs being unusable is reported", deleting(existing), Resolution{}, record{}, action{op: opReportUndeletable}},
		{"the entity is deleted", deleting(existing), ready, record{}, action{op: opDelete, id: "e1"}},
		{"an entity created whose ID the status lacks is deleted by that ID", with(deleting(fresh), func(f *facts) { f.id = "" }), ready, record{createdID: "e9"},
			action{op: opDelete, id: "e9"}},
		{"an entity whose ID is unknown is looked up by its UID and deleted", deleting(fresh), ready, record{}, action{op: opDelete, lookFirst: true}},
		{"an object restored without its status and deleted looks for its entity by its identity too", deleting(byIdentity(fresh)), ready, record{},
			action{op: opDelete, lookFirst: true, byIdentity: true}},

		// The day-2 controls.
		{"an unknown policy leaves the object alone", with(existing, func(f *facts) { f.policies.Invalid = "bad" }), ready, record{}, action{op: opReportPolicy}},
		{"an unknown policy holds a deletion too", with(deleting(existing), func(f *facts) { f.policies.Invalid = "bad" }), ready, record{}, action{op: opReportPolicy}},
		{"pause makes no call, whatever changed", with(existing, func(f *facts) { f.policies.Reconcile = pause }), ready, func() record { r := writtenAt(now, 2); r.mark = mark; return r }(),
			action{op: opPause}},
		{"pause keeps a deletion waiting", with(deleting(existing), func(f *facts) { f.policies.Reconcile = pause }), ready, record{}, action{op: opPause}},
		{"report: drift found is reported, not written", reporting(existing), ready, func() record { r := writtenAt(now, 1); r.mark = mark; return r }(),
			action{op: opReportDrift, id: "e1", mark: mark}},
		{"report: an entity missing is reported, not created", reporting(existing), ready, func() record { r := writtenAt(now, 1); r.mark = missingMark; return r }(),
			action{op: opReportDrift, id: "e1", mark: missingMark}},
		{"report: a change of the spec is still written", reporting(existing), ready, func() record { r := writtenAt(now, 2); r.mark = mark; return r }(),
			action{op: opUpdate, id: "e1", mark: mark, changed: true}},
		{"report: drift that is over is said to be over", reporting(existing), ready, func() record { r := writtenAt(now, 1); r.mark = inSyncMark; return r }(),
			action{op: opKeep, id: "e1", mark: inSyncMark}},
		{"an entity another cluster owns is reported, not written", listed(existing), ready, func() record { r := writtenAt(now, 2); r.mark = foreignMark; return r }(),
			action{op: opReportForeign, id: "e1", owner: "cluster-b", mark: foreignMark}},
		{"an entity known to be another cluster's stays so", listed(existing), ready, func() record { r := writtenAt(now, 2); r.foreign = "cluster-b"; return r }(),
			action{op: opReportForeign, id: "e1", owner: "cluster-b"}},
		{"spec.adopt override takes another cluster's entity over", with(listed(existing), func(f *facts) { f.takeOver = true }), ready,
			func() record { r := writtenAt(now, 1); r.mark = foreignMark; return r }(),
			action{op: opUpdate, id: "e1", mark: foreignMark}},
		{"an entity no longer another cluster's is kept", listed(existing), ready, func() record { r := writtenAt(now, 1); r.foreign = "cluster-b"; r.mark = ownedMark; return r }(),
			action{op: opKeep, id: "e1", mark: ownedMark}},
		{"a first write of an entity of unknown owner reads the owner first", with(existing, func(f *facts) { f.ownerReadable = true }), ready, writtenAt(now, 2),
			action{op: opUpdate, id: "e1", changed: true, checkOwner: true}},
		{"a borrowed entity is read again whoever owns it", with(existing, func(f *facts) { f.ownerReadable, f.borrowed = true, true }), ready, writtenAt(now, 2),
			action{op: opUpdate, id: "e1", changed: true}},
		{"a first delete of an entity of unknown owner reads the owner first", with(deleting(existing), func(f *facts) { f.ownerReadable = true }), ready, record{},
			action{op: opDelete, id: "e1", checkOwner: true}},
		{"orphan leaves the entity", with(deleting(existing), func(f *facts) { f.policies.Deletion = commonv1alpha1.DeletionPolicyOrphan }), ready, record{}, action{op: opOrphan}},
		{"a control plane deleted with orphan leaves its entities", deleting(existing), Resolution{Ready: true, ParentOrphans: true}, record{}, action{op: opOrphan}},
		{"an entity whose own policy says delete goes even then", with(deleting(existing), func(f *facts) { f.policies.DeletionSet = true }),
			Resolution{Ready: true, ParentOrphans: true}, record{}, action{op: opDelete, id: "e1"}},
		{"a protected object deleted with its namespace leaves its entity", with(deleting(existing), func(f *facts) { f.policies.Protected = true }), ready, record{}, action{op: opOrphan}},
		{"another cluster's entity is never deleted from here", deleting(existing), ready, record{foreign: "cluster-b"}, action{op: opOrphan, owner: "cluster-b"}},
	}
	covered := map[op]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rec.uid == "" {
				tt.rec.uid = "u"
			}
			got := tm.decide(tt.f, tt.res, tt.rec, now)
			if got.op != tt.want.op || got.wait != tt.want.wait || got.id != tt.want.id || got.lookFirst != tt.want.lookFirst ||
				got.mark != tt.want.mark || got.changed != tt.want.changed || !got.assumeSyncedAt.Equal(tt.want.assumeSyncedAt) || got.warn != tt.want.warn ||
				got.owner != tt.want.owner || got.checkOwner != tt.want.checkOwner || got.byIdentity != tt.want.byIdentity || got.inTheWay != tt.want.inTheWay {
				t.Errorf("decide = %+v (%s)\n want %+v (%s)", got, got.op, tt.want, tt.want.op)
			}
		})
		covered[tt.want.op] = true
	}
	for o := range opNames {
		if !covered[o] {
			t.Errorf("no row decides %s", o)
		}
	}
}

// The record changes in one place: a write records what was written and
// clears the lister's mark it answered, and only that one.
func TestSyncedClearsOnlyTheMarkItAnswered(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	answered := &driftMark{uid: "u", cause: driftChanged, seq: 1}
	later := &driftMark{uid: "u", cause: driftMissing, seq: 2}
	for _, tt := range []struct {
		name     string
		stored   *driftMark
		wantMark *driftMark
	}{
		{"the mark acted on is cleared", answered, nil},
		{"a mark given while the write ran stays", later, later},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := record{uid: "u", mark: tt.stored, createOutcomeUnknown: true}
			synced(7, now, answered)(&rec)
			if !rec.written || rec.fingerprint != 7 || !rec.syncedAt.Equal(now) || rec.createOutcomeUnknown {
				t.Errorf("after a write the record is %+v", rec)
			}
			if rec.mark != tt.wantMark {
				t.Errorf("mark = %+v, want %+v", rec.mark, tt.wantMark)
			}
		})
	}
}

// A listing scope is listed while it has members, and a member moves with
// its entity.
func TestMemoryKeepsListingScopesInStepWithRecords(t *testing.T) {
	var scheduled []string
	m := newMemory(func(scope string) { scheduled = append(scheduled, scope) })
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	key := func(name string) cache.ObjectName { return cache.NewObjectName("ns", name) }

	m.update(key("one"), "u1", listed(Placement{ControlPlaneID: "cp-a"}, "e1", Snapshot{}, now))
	m.update(key("two"), "u2", listed(Placement{ControlPlaneID: "cp-a"}, "e2", Snapshot{}, now))
	if members, ok := m.scopeMembers("cp-a"); !ok || len(members) != 2 {
		t.Fatalf("cp-a members = %v", members)
	}
	m.update(key("two"), "u2", listed(Placement{ControlPlaneID: "cp-b"}, "e2", Snapshot{}, now))
	m.forget(key("one"))
	if members, ok := m.scopeMembers("cp-a"); ok {
		t.Fatalf("cp-a still listed with %v after its members left", members)
	}
	members, ok := m.scopeMembers("cp-b")
	if !ok || len(members) != 1 || members[key("two")].id != "e2" {
		t.Fatalf("cp-b = %v", members)
	}
	// An object recreated under the same name starts from an empty record.
	m.update(key("two"), "u3", unsynced)
	if members, _ := m.scopeMembers("cp-b"); len(members) != 0 {
		t.Fatalf("a new object under the name of a listed one inherited its listing: %v", members)
	}
	if len(scheduled) != 2 || scheduled[0] != "cp-a" || scheduled[1] != "cp-b" {
		t.Fatalf("scheduled %v, want each scope once when it gained its first member", scheduled)
	}
}
