package controller

import (
	"slices"
	"testing"
)

func TestSnapshotDifferencesNameChangedFieldsOnly(t *testing.T) {
	written := map[string]any{
		"id": "s1", "host": "a.example", "port": 80, "tags": []string{"x", "y"},
		"client_certificate": map[string]any{"id": "c1"},
		"created_at":         1, "updated_at": 2,
	}
	for _, tt := range []struct {
		name   string
		listed map[string]any
		want   []string
	}{
		{"equal, timestamps aside", map[string]any{
			"id": "s1", "host": "a.example", "port": 80, "tags": []string{"x", "y"},
			"client_certificate": map[string]any{"id": "c1"}, "created_at": 1, "updated_at": 99,
		}, nil},
		{"a null field is an absent one", map[string]any{
			"id": "s1", "host": "a.example", "port": 80, "tags": []string{"x", "y"},
			"client_certificate": map[string]any{"id": "c1"}, "path": nil,
		}, nil},
		{"changed value", map[string]any{
			"id": "s1", "host": "b.example", "port": 80, "tags": []string{"x", "y"},
			"client_certificate": map[string]any{"id": "c1"},
		}, []string{"host"}},
		{"nested change names the top-level field", map[string]any{
			"id": "s1", "host": "a.example", "port": 80, "tags": []string{"x", "y"},
			"client_certificate": map[string]any{"id": "c2"},
		}, []string{"client_certificate"}},
		{"removed and added fields", map[string]any{
			"id": "s1", "host": "a.example", "port": 80,
			"client_certificate": map[string]any{"id": "c1"}, "path": "/p",
		}, []string{"path", "tags"}},
		{"order of a list matters", map[string]any{
			"id": "s1", "host": "a.example", "port": 80, "tags": []string{"y", "x"},
			"client_certificate": map[string]any{"id": "c1"},
		}, []string{"tags"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := SnapshotOf(written)
			if err != nil {
				t.Fatal(err)
			}
			b, err := SnapshotOf(tt.listed)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Differences(b); !slices.Equal(got, tt.want) {
				t.Errorf("Differences = %v, want %v", got, tt.want)
			}
			if got := b.Differences(a); !slices.Equal(got, tt.want) {
				t.Errorf("the other way round: Differences = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSnapshotIsKnownOnlyWhenTaken(t *testing.T) {
	if (Snapshot{}).Known() {
		t.Error("the zero snapshot is known")
	}
	s, err := SnapshotOf(map[string]any{})
	if err != nil || !s.Known() {
		t.Errorf("the snapshot of an empty entity is not known (err %v)", err)
	}
	if _, err := SnapshotOf([]int{1}); err == nil {
		t.Error("a JSON array was taken as an entity")
	}
}

// A record holds its snapshot for as long as the object lives, so a
// snapshot holds no room for fields it does not have.
func TestSnapshotHoldsOnlyItsFields(t *testing.T) {
	s, err := SnapshotOf(map[string]any{"id": "c1", "username": "u", "tags": []string{"a"}, "created_at": 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.fields) != 3 || cap(s.fields) != len(s.fields) {
		t.Errorf("a snapshot of 3 fields holds %d with room for %d", len(s.fields), cap(s.fields))
	}
}

func TestSnapshotWithAddsAComparedField(t *testing.T) {
	base := MustSnapshot(map[string]any{"id": "c1", "username": "alice"})
	for _, tt := range []struct {
		name          string
		written, seen Snapshot
		want          []string
	}{
		{"same groups", base.With("consumer_groups", []string{"g1", "g2"}), base.With("consumer_groups", []string{"g1", "g2"}), nil},
		{"a group removed", base.With("consumer_groups", []string{"g1", "g2"}), base.With("consumer_groups", []string{"g1"}), []string{"consumer_groups"}},
		{"the last group removed", base.With("consumer_groups", []string{"g1"}), base.With("consumer_groups", []string{}), []string{"consumer_groups"}},
		{"no groups is no field", base.With("consumer_groups", nil), base.With("consumer_groups", []string{}), nil},
		{"no groups equals the plain snapshot", base, base.With("consumer_groups", nil), nil},
		{"replaced, not added twice", base.With("consumer_groups", []string{"g1"}).With("consumer_groups", []string{"g2"}), base.With("consumer_groups", []string{"g2"}), nil},
		{"a field sorted before others", base.With("a", 1), base, []string{"a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.written.Differences(tt.seen); !slices.Equal(got, tt.want) {
				t.Errorf("Differences = %v, want %v", got, tt.want)
			}
		})
	}
	if (Snapshot{}).With("consumer_groups", []string{"g1"}).Known() {
		t.Error("With made a snapshot out of none")
	}
	if len(base.With("consumer_groups", []string{"g1"}).fields) != len(base.fields)+1 || len(base.fields) != 2 {
		t.Error("With changed the snapshot it was called on")
	}
}

// TestSnapshotIgnoresTheOrderOfKeys compares an answer decoded into a
// struct (keys in declaration order) with the same entity as a map (keys
// sorted), escapes and all.
func TestSnapshotIgnoresTheOrderOfKeys(t *testing.T) {
	type certificate struct {
		Zone string `json:"zone"`
		ID   string `json:"id"`
	}
	type service struct {
		Name        string      `json:"name"`
		Certificate certificate `json:"client_certificate"`
		Tags        []string    `json:"tags"`
	}
	a, err := SnapshotOf(service{Name: "<a&b>", Certificate: certificate{Zone: "eu", ID: "c1"}, Tags: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := SnapshotOf(map[string]any{"tags": []string{"x"}, "client_certificate": map[string]any{"id": "c1", "zone": "eu"}, "name": "<a&b>"})
	if err != nil {
		t.Fatal(err)
	}
	if d := a.Differences(b); d != nil {
		t.Errorf("Differences = %v, want none", d)
	}
}
