package controller

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

func TestSyncStateDue(t *testing.T) {
	const period = time.Minute
	key := cache.NewObjectName("ns", "svc")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	tests := []struct {
		name       string
		prepare    func(s *syncState)
		uid        types.UID
		fp         uint64
		programmed bool
		now        time.Time
		wantNow    bool
		wantWait   time.Duration // checked when > 0
	}{
		{
			name:    "unknown object that is not programmed is written now",
			uid:     "a",
			fp:      1,
			now:     start,
			wantNow: true,
		},
		{
			name:     "unchanged object inside the period waits for the rest of it",
			prepare:  func(s *syncState) { s.synced(key, "a", 1, start) },
			uid:      "a",
			fp:       1,
			now:      start.Add(20 * time.Second),
			wantWait: 40 * time.Second,
		},
		{
			name:    "unchanged object is written again once the period has passed",
			prepare: func(s *syncState) { s.synced(key, "a", 1, start) },
			uid:     "a",
			fp:      1,
			now:     start.Add(period),
			wantNow: true,
		},
		{
			name:    "a changed fingerprint is written at once",
			prepare: func(s *syncState) { s.synced(key, "a", 1, start) },
			uid:     "a",
			fp:      2,
			now:     start.Add(time.Second),
			wantNow: true,
		},
		{
			name:    "an object recreated under the same name is written at once",
			prepare: func(s *syncState) { s.synced(key, "a", 1, start) },
			uid:     "b",
			fp:      1,
			now:     start.Add(time.Second),
			wantNow: true,
		},
		{
			name:    "a forgotten object is written at once",
			prepare: func(s *syncState) { s.synced(key, "a", 1, start); s.forgetSync(key) },
			uid:     "a",
			fp:      1,
			now:     start.Add(time.Second),
			wantNow: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSyncState()
			if tt.prepare != nil {
				tt.prepare(s)
			}
			got := s.due(key, tt.uid, tt.fp, tt.programmed, tt.now, period)
			if tt.wantNow && got != 0 {
				t.Fatalf("due() = %s, want now", got)
			}
			if tt.wantWait > 0 && got != tt.wantWait {
				t.Fatalf("due() = %s, want %s", got, tt.wantWait)
			}
		})
	}
}

func TestSyncStateSpreadsResyncsAfterRestart(t *testing.T) {
	const period = time.Minute
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newSyncState()
	distinct := map[time.Duration]bool{}
	for i := range 50 {
		key := cache.NewObjectName("ns", string(rune('a'+i)))
		wait := s.due(key, types.UID(key.Name), 1, true, now, period)
		if wait <= 0 || wait > period {
			t.Fatalf("a programmed object seen for the first time must wait within one period, got %s", wait)
		}
		distinct[wait] = true
	}
	if len(distinct) < 10 {
		t.Fatalf("resyncs after a restart should spread over the period, got only %d distinct delays", len(distinct))
	}
}

func TestSyncStateCreateOutcome(t *testing.T) {
	s := newSyncState()
	key := cache.NewObjectName("ns", "svc")
	s.markCreateOutcomeUnknown("a")
	if !s.isCreateOutcomeUnknown("a") {
		t.Fatal("an unknown create outcome must be remembered")
	}
	s.synced(key, "a", 1, time.Now())
	if s.isCreateOutcomeUnknown("a") {
		t.Fatal("a successful sync settles the create outcome")
	}
}
