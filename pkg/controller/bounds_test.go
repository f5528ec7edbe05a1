package controller

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// TestARefusedListingIsRecordedOnceAndClearedByTheNextListing: a listing
// refused as the server's fault is recorded on every member, whose
// objects are enqueued to say so once, not again for the same refusal;
// the next listing that succeeds clears it and enqueues them again.
func TestARefusedListingIsRecordedOnceAndClearedByTheNextListing(t *testing.T) {
	m := newMemory(nil)
	r := &EntityReconciler[svc, string]{memory: m, kind: countingKind(&counts{})}
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	snapshot := MustSnapshot(map[string]string{"host": "a"})
	keys := []cache.ObjectName{cache.NewObjectName("ns", "one"), cache.NewObjectName("ns", "two")}
	for i, key := range keys {
		m.update(key, types.UID("u"+key.Name), listed(Placement{ControlPlaneID: "cp"}, []string{"e1", "e2"}[i], snapshot, now))
	}
	var enqueued []cache.ObjectName
	enqueue := func(k cache.ObjectName) { enqueued = append(enqueued, k) }
	sorted := func() []cache.ObjectName {
		slices.SortFunc(enqueued, cmpNames)
		out := enqueued
		enqueued = nil
		return out
	}
	members := func() map[cache.ObjectName]member {
		members, _ := m.scopeMembers("cp")
		return members
	}
	const why = "list service: answer refused: the server h listed more than 100000 entities"

	r.refuseListing(members(), why, enqueue)
	if got := sorted(); !slices.Equal(got, keys) {
		t.Fatalf("a refused listing enqueued %v, want both members", got)
	}
	for _, key := range keys {
		if got := m.get(key, types.UID("u"+key.Name)).listingRefused; got != why {
			t.Fatalf("%s records the refusal %q, want %q", key, got, why)
		}
	}
	r.refuseListing(members(), why, enqueue)
	if got := sorted(); len(got) != 0 {
		t.Fatalf("the same refusal again enqueued %v, want none", got)
	}

	listedAgain := []Listed[string]{{ID: "e1", Snapshot: snapshot}, {ID: "e2", Snapshot: snapshot}}
	r.compareListed(context.Background(), members(), listedAgain, now.Add(time.Minute), enqueue)
	if got := sorted(); !slices.Equal(got, keys) {
		t.Fatalf("a listing that succeeded enqueued %v, want both members, to say the refusal is over", got)
	}
	for _, key := range keys {
		if got := m.get(key, types.UID("u"+key.Name)).listingRefused; got != "" {
			t.Fatalf("%s still records the refusal %q", key, got)
		}
	}
}

func cmpNames(a, b cache.ObjectName) int {
	switch {
	case a.String() < b.String():
		return -1
	case a.String() > b.String():
		return 1
	}
	return 0
}

// entriesOf lists n entities written for objects named after scope.
func entriesOf(scope string, n int) map[string][]Listed[string] {
	out := map[string][]Listed[string]{}
	for i := range n {
		id := scope + "-" + string(rune('a'+i))
		out[indexKey("ns", id)] = []Listed[string]{{ID: id}}
	}
	return out
}

// TestTheRecoveryIndexKeepsWhatCreatesUseAndNoMore: a scope no create has
// looked at for the idle time goes at the next sweep, one looked at stays;
// past its entities' bound the index drops the scope used least recently.
func TestTheRecoveryIndexKeepsWhatCreatesUseAndNoMore(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	x := newRecoveryIndex[string](clk, time.Minute)
	x.maxEntries = 5
	ctx := context.Background()
	lists := 0
	index := func(scope string, n int) {
		t.Helper()
		if _, err := x.scope(ctx, scope, func() (map[string][]Listed[string], error) {
			lists++
			return entriesOf(scope, n), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	sized := func(wantScopes, wantEntries int) {
		t.Helper()
		if scopes, entries := x.size(); scopes != wantScopes || entries != wantEntries {
			t.Fatalf("the index holds %d scopes of %d entities, want %d of %d", scopes, entries, wantScopes, wantEntries)
		}
	}

	index("a", 2)
	index("b", 2)
	sized(2, 4)
	clk.Step(40 * time.Second)
	index("a", 2) // used again: kept
	if lists != 2 {
		t.Fatalf("%d listings, want the index of a used again", lists)
	}
	clk.Step(30 * time.Second)
	x.sweep()
	sized(1, 2) // b unused for 70 s goes; a, used 30 s ago, stays

	index("c", 2)
	clk.Step(time.Second)
	index("a", 2)
	index("d", 3) // 2 + 2 + 3 > 5: c, used least recently, goes first
	sized(2, 5)
	x.mu.Lock()
	_, keptA := x.scopes["a"]
	_, keptC := x.scopes["c"]
	x.mu.Unlock()
	if !keptA || keptC {
		t.Fatalf("a kept %v, c kept %v: want the scope used least recently (c) dropped", keptA, keptC)
	}
	x.take("a-a")
	sized(2, 4)
}

// TestAWorkerComesBackRatherThanWaitForAnotherListing: while one create
// lists its scope, another that may not wait (a worker's deferrable
// context) is given a turn a moment later instead of waiting for the
// listing; one that may wait gets the listing's answer.
func TestAWorkerComesBackRatherThanWaitForAnotherListing(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	x := newRecoveryIndex[string](clk, time.Minute)
	listing, release := make(chan struct{}), make(chan struct{})
	go func() {
		_, _ = x.scope(context.Background(), "cp", func() (map[string][]Listed[string], error) {
			close(listing)
			<-release
			return entriesOf("cp", 1), nil
		})
	}()
	<-listing
	waited := make(chan error, 1)
	go func() {
		_, err := x.scope(konnect.WithDeferral(context.Background()), "cp", nil)
		waited <- err
	}()
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	clk.Step(recoveryInlineWait)
	err := <-waited
	if turn, deferred := konnect.IsDeferred(err); !deferred || turn != recoveryRetry {
		t.Fatalf("a worker waiting for another's listing: %v, want a turn %s later", err, recoveryRetry)
	}
	close(release)
	if _, err := x.scope(context.Background(), "cp", nil); err != nil {
		t.Fatalf("once listed: %v", err)
	}
}

// TestAnOrganisationListsOneScopeAtATime: while one of an organisation's
// scopes is listed, its others wait and come back once it ends; another
// organisation's go on.
func TestAnOrganisationListsOneScopeAtATime(t *testing.T) {
	var orgs listingOrgs
	if !orgs.begin("A", "a1") {
		t.Fatal("the first scope of A did not start")
	}
	if orgs.begin("A", "a2") || orgs.begin("A", "a3") {
		t.Fatal("a second scope of A started beside the first")
	}
	if !orgs.begin("B", "b1") {
		t.Fatal("B's scope waited for A's listing")
	}
	if got := orgs.end("A"); !slices.Equal(got, []string{"a2", "a3"}) {
		t.Fatalf("A's listing ended and gave back %v, want a2 and a3", got)
	}
	if !orgs.begin("A", "a2") {
		t.Fatal("A's next scope did not start once the first ended")
	}
}
