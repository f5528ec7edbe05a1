package controller

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"unique"
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
// again every sync period, as the seed algorithm does.
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
	fields, ok := topLevelFields(raw)
	if !ok {
		var decoded map[string]json.RawMessage
		if err := json.Unmarshal(raw, &decoded); err != nil {
			return Snapshot{}, fmt.Errorf("an entity is a JSON object: %w", err)
		}
		fields = fields[:0]
		for name, value := range decoded {
			fields = append(fields, field{name, value})
		}
	}
	s := Snapshot{fields: make([]fieldSum, 0, len(fields))}
	for _, f := range fields {
		if unsnapshotted[f.name] || bytes.Equal(f.value, []byte("null")) {
			continue
		}
		sum, err := canonicalSum(f.value)
		if err != nil {
			return Snapshot{}, err
		}
		s.fields = append(s.fields, fieldSum{name: unique.Make(f.name), sum: sum})
	}
	slices.SortFunc(s.fields, func(a, b fieldSum) int { return strings.Compare(a.name.Value(), b.name.Value()) })
	return s, nil
}

// field is one top-level field of a JSON object.
type field struct {
	name  string
	value []byte
}

// topLevelFields splits what json.Marshal wrote for an object into its
// top-level fields without decoding them: a listing takes tens of thousands
// of snapshots a period, and decoding each entity into a map cost more than
// the rest of the snapshot. ok is false for anything else than a compact
// object with plain keys (no escapes, no repeated names), which is then
// decoded.
func topLevelFields(raw []byte) (fields []field, ok bool) {
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return nil, false
	}
	i := 1
	if raw[i] == '}' {
		return nil, i == len(raw)-1
	}
	seen := make(map[string]bool, 16)
	for {
		// A key: a string without escapes.
		if raw[i] != '"' {
			return nil, false
		}
		end := bytes.IndexByte(raw[i+1:], '"')
		if end < 0 {
			return nil, false
		}
		name := raw[i+1 : i+1+end]
		if bytes.IndexByte(name, '\\') >= 0 || seen[string(name)] {
			return nil, false
		}
		i += end + 2
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i++
		n := valueLength(raw[i:])
		if n <= 0 {
			return nil, false
		}
		seen[string(name)] = true
		fields = append(fields, field{string(name), raw[i : i+n]})
		i += n
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i++
		case '}':
			return fields, i == len(raw)-1
		default:
			return nil, false
		}
	}
}

// valueLength is the length of the compact JSON value at the start of b, or
// 0 when it does not end within b.
func valueLength(b []byte) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			// Skip the string, escapes and all.
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return 0
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
		if depth == 0 && i+1 < len(b) && (b[i+1] == ',' || b[i+1] == '}') {
			return i + 1
		}
	}
	return 0
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
