package controller

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
)

// A listing decodes an entity only when its sum differs from the one it
// had when last found equal to its snapshot, and a write forgets that sum.
func TestListingDecodesOnlyWhatChanged(t *testing.T) {
	m := newMemory(nil)
	r := &EntityReconciler[svc, string]{memory: m, kind: countingKind(&counts{})}
	key := cache.NewObjectName("ns", "one")
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	snapshot := func(host string) Snapshot { return MustSnapshot(map[string]string{"host": host}) }
	m.update(key, "u1", listed(Placement{ControlPlaneID: "cp"}, "e1", snapshot("a"), now))

	decodes := 0
	var enqueued []cache.ObjectName
	list := func(sum uint64, host string) {
		t.Helper()
		members, ok := m.planeMembers("cp")
		if !ok {
			t.Fatal("the scope has no members")
		}
		entity := Listed[string]{ID: "e1", Sum: sum, Decode: func() (Listed[string], error) {
			decodes++
			return Listed[string]{ID: "ignored", Snapshot: snapshot(host)}, nil
		}}
		now = now.Add(time.Minute)
		r.compareListed(context.Background(), members, []Listed[string]{entity}, now, func(k cache.ObjectName) { enqueued = append(enqueued, k) })
	}
	listedSum := func() uint64 { return m.get(key, "u1").listing.listedSum }

	list(7, "a")
	if decodes != 1 || len(enqueued) != 0 || listedSum() != 7 {
		t.Fatalf("first listing: %d decodes, enqueued %v, sum %d; want 1, none, 7", decodes, enqueued, listedSum())
	}
	list(7, "a")
	if decodes != 1 || len(enqueued) != 0 {
		t.Fatalf("an unchanged sum: %d decodes, enqueued %v; want no decode", decodes, enqueued)
	}
	list(8, "b")
	mark := m.get(key, "u1").mark
	if decodes != 2 || !slices.Equal(enqueued, []cache.ObjectName{key}) || mark == nil || mark.cause != driftChanged || listedSum() != 7 {
		t.Fatalf("a changed entity: %d decodes, enqueued %v, mark %+v, sum %d", decodes, enqueued, mark, listedSum())
	}

	// A write takes a new snapshot: the sum seen before it says nothing of it.
	m.update(key, "u1", listed(Placement{ControlPlaneID: "cp"}, "e1", snapshot("b"), now), synced(1, now, mark))
	if listedSum() != 0 {
		t.Fatalf("after a write the listed sum is %d, want none", listedSum())
	}
	stale, _ := m.planeMembers("cp")
	list(9, "b")
	if decodes != 3 || listedSum() != 9 {
		t.Fatalf("after a write: %d decodes, sum %d; want 3, 9", decodes, listedSum())
	}
	// A listing that read the members before a write does not vouch for it.
	m.update(key, "u1", listed(Placement{ControlPlaneID: "cp"}, "e1", snapshot("c"), now.Add(time.Second)))
	m.inSync(key, stale[key], 9)
	if listedSum() != 0 {
		t.Fatalf("a listing from before a write recorded its sum %d", listedSum())
	}
}

// Only an entity known to be as it was compared before is passed over.
func TestAMemberIsUnchangedOnlyWhenNothingElseAsks(t *testing.T) {
	known := MustSnapshot(map[string]string{"host": "a"})
	base := member{listing: listing{snapshot: known, listedSum: 5}}
	if !base.unchanged(5) {
		t.Fatal("an entity with the sum it had when in sync was not unchanged")
	}
	for name, m := range map[string]member{
		"another sum":          {listing: listing{snapshot: known, listedSum: 6}},
		"no sum recorded":      {listing: listing{snapshot: known}},
		"no snapshot":          {listing: listing{listedSum: 5}},
		"another cluster's":    {listing: base.listing, foreign: "c2"},
		"drift being reported": {listing: base.listing, reported: true},
	} {
		if m.unchanged(5) {
			t.Errorf("%s: unchanged", name)
		}
	}
	if (member{}).unchanged(0) {
		t.Error("a kind without sums: unchanged")
	}
}
