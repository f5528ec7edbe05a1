package controller

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"unique"

	"github.com/konnect-operator/konnect-operator/pkg/jsonscan"
)

// Snapshot is what Konnect answered to the operator's last write of an
// entity, kept to find drift: a hash of each top-level field of the answer,
// by field name. Konnect's answer, not the body sent, because Konnect fills
// in defaults and hashes secrets (a basic-auth password comes back as a
// hash): a later listing of an unchanged entity then equals the snapshot
// exactly, and a changed one differs in the fields that changed.
//
// It is compact on purpose, as the operator keeps one per object (10,000
// objects and more): field names are interned and each value is 8 bytes,
// about 16 bytes per field, so a service costs some 300 bytes. The hashes
// name the fields that differ, for the Event, without keeping a value (a
// secret among them). The zero Snapshot is none: the entity is written
// again every sync period, as in the update mode of drift detection.
type Snapshot struct {
	fields []fieldSum
}

type fieldSum struct {
	name unique.Handle[string]
	sum  uint64
}

// unsnapshotted are fields that change without anyone changing the entity.
var unsnapshotted = map[string]bool{"created_at": true, "updated_at": true}

// SnapshotOf takes the snapshot of an entity as Konnect answered it (an
// SDK answer type, or anything that marshals to the entity's JSON object).
// Absent and null fields are the same; timestamps are left out.
func SnapshotOf(entity any) (Snapshot, error) {
	raw, err := json.Marshal(entity)
	if err != nil {
		return Snapshot{}, err
	}
	s := Snapshot{fields: make([]fieldSum, 0, 16)}
	// The fields of what json.Marshal wrote are split without decoding
	// them: a listing takes a snapshot of each changed entity, and decoding
	// each into a map cost more than the rest of the snapshot.
	split := jsonscan.Fields(raw, func(name, value []byte) bool {
		err = s.add(string(name), value)
		return err == nil
	})
	if err != nil {
		return Snapshot{}, err
	}
	if !split { // escaped or repeated keys
		var decoded map[string]json.RawMessage
		if err := json.Unmarshal(raw, &decoded); err != nil {
			return Snapshot{}, fmt.Errorf("an entity is a JSON object: %w", err)
		}
		s.fields = s.fields[:0]
		for name, value := range decoded {
			if err := s.add(name, value); err != nil {
				return Snapshot{}, err
			}
		}
	}
	slices.SortFunc(s.fields, func(a, b fieldSum) int { return strings.Compare(a.name.Value(), b.name.Value()) })
	// A record keeps its snapshot as long as the object lives: the room
	// left for up to 16 fields would stay with it.
	s.fields = slices.Clone(s.fields)
	return s, nil
}

// add hashes one top-level field into s, unless it is left out.
func (s *Snapshot) add(name string, value []byte) error {
	if unsnapshotted[name] || bytes.Equal(value, []byte("null")) {
		return nil
	}
	sum, err := canonicalSum(value)
	if err != nil {
		return err
	}
	s.fields = append(s.fields, fieldSum{name: unique.Make(name), sum: sum})
	return nil
}

// MustSnapshot is SnapshotOf for answers that are known to marshal (SDK
// types); a failure leaves no snapshot, so the entity is written every
// period instead of compared.
func MustSnapshot(entity any) Snapshot {
	s, err := SnapshotOf(entity)
	if err != nil {
		return Snapshot{}
	}
	return s
}

// SumOf is the Listed.Sum of an entity's bytes as listed.
func SumOf(raw []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(raw)
	return nonZero(h.Sum64())
}

// MixSum is sum with parts added: what a kind compares beside the listed
// entity's own bytes.
func MixSum(sum uint64, parts ...string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(binary.LittleEndian.AppendUint64(nil, sum))
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_, _ = h.Write([]byte{0})
	}
	return nonZero(h.Sum64())
}

// nonZero keeps 0 for "no sum".
func nonZero(sum uint64) uint64 { return max(sum, 1) }

// canonicalSum hashes a JSON value as encoding/json writes it, independently
// of the order of object keys (a struct's declaration order or a map's sorted
// one). A value without an object in it is hashed as it is: encoding/json
// writes scalars and arrays of them one way only, and most fields (IDs,
// names, tags) are such, which spares a decoding per field of each of the
// tens of thousands of entities a listing compares.
func canonicalSum(value json.RawMessage) (uint64, error) {
	if !bytes.ContainsAny(value, "{\\") {
		h := fnv.New64a()
		_, _ = h.Write(value)
		return h.Sum64(), nil
	}
	var v any
	if err := json.Unmarshal(value, &v); err != nil {
		return 0, err
	}
	canonical, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return 0, err
	}
	h := fnv.New64a()
	_, _ = h.Write(canonical)
	return h.Sum64(), nil
}

// Known reports whether there is a snapshot.
func (s Snapshot) Known() bool { return s.fields != nil }

// Differences names the fields, sorted, whose values differ between s and
// other, including those only one of them has.
func (s Snapshot) Differences(other Snapshot) []string {
	var out []string
	i, j := 0, 0
	for i < len(s.fields) || j < len(other.fields) {
		switch {
		case j == len(other.fields) || i < len(s.fields) && s.fields[i].name.Value() < other.fields[j].name.Value():
			out = append(out, s.fields[i].name.Value())
			i++
		case i == len(s.fields) || other.fields[j].name.Value() < s.fields[i].name.Value():
			out = append(out, other.fields[j].name.Value())
			j++
		default:
			if s.fields[i].sum != other.fields[j].sum {
				out = append(out, s.fields[i].name.Value())
			}
			i++
			j++
		}
	}
	return out
}

// With returns s with the field name holding value (replaced when s has
// it): how a snapshot covers what follows an entity without being part of
// Konnect's answer to its write, such as a consumer's groups. A null or
// empty value is no field, as absent and null fields are the same; with no
// snapshot there is still none.
func (s Snapshot) With(name string, value any) Snapshot {
	if !s.Known() {
		return s
	}
	fields := make([]fieldSum, 0, len(s.fields)+1)
	for _, f := range s.fields {
		if f.name.Value() != name {
			fields = append(fields, f)
		}
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return Snapshot{} // none: written every period rather than compared wrongly
	}
	switch string(raw) {
	case "null", "[]", "{}", `""`:
	default:
		sum, err := canonicalSum(raw)
		if err != nil {
			return Snapshot{}
		}
		fields = append(fields, fieldSum{name: unique.Make(name), sum: sum})
		slices.SortFunc(fields, func(a, b fieldSum) int { return strings.Compare(a.name.Value(), b.name.Value()) })
	}
	return Snapshot{fields: fields}
}
