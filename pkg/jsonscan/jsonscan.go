// Package jsonscan splits compact JSON, as encoding/json and Konnect write
// it, into its parts without decoding them: the top-level fields of an
// object and the elements of an array. The drift lister reads tens of
// thousands of entities a period, almost all of them unchanged; splitting
// and hashing their bytes costs a fraction of decoding them.
//
// Only compact JSON is split: anything else (whitespace between tokens,
// escaped keys, repeated keys, a value cut short) makes a function report
// false, and the caller decodes instead. A split is not a validation: the
// parts are as valid as the input was.
package jsonscan

import "bytes"

// Fields calls yield with the name and the raw value of each top-level
// field of the object raw, in order, until yield returns false. It reports
// whether raw is a compact object with plain keys (no escapes, none
// repeated); when it is not, yield may have been called for the fields
// before the fault, and what it was given must be thrown away.
func Fields(raw []byte, yield func(name, value []byte) bool) bool {
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return false
	}
	if raw[1] == '}' {
		return len(raw) == 2
	}
	// Keys already seen, to refuse a repeated one: an entity has a dozen
	// fields, so a scan of those seen costs less than a map.
	var seen [24][]byte
	var more [][]byte
	count := 0
	for i := 1; ; {
		if raw[i] != '"' {
			return false
		}
		end := bytes.IndexByte(raw[i+1:], '"')
		if end < 0 {
			return false
		}
		name := raw[i+1 : i+1+end]
		if bytes.IndexByte(name, '\\') >= 0 {
			return false
		}
		for j := range min(count, len(seen)) {
			if bytes.Equal(seen[j], name) {
				return false
			}
		}
		for _, s := range more {
			if bytes.Equal(s, name) {
				return false
			}
		}
		if count < len(seen) {
			seen[count] = name
		} else {
			more = append(more, name)
		}
		count++
		i += end + 2
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i++
		n := ValueLength(raw[i:])
		if n <= 0 {
			return false
		}
		if !yield(name, raw[i:i+n]) {
			return true
		}
		next, more, ok := after(raw, i+n, '}')
		if !more {
			return ok
		}
		i = next
	}
}

// Elements calls yield with each element of the array raw, in order,
// until yield returns false. It reports whether raw is a compact array.
func Elements(raw []byte, yield func(element []byte) bool) bool {
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
		return false
	}
	if raw[1] == ']' {
		return len(raw) == 2
	}
	for i := 1; ; {
		n := ValueLength(raw[i:])
		if n <= 0 {
			return false
		}
		if !yield(raw[i : i+n]) {
			return true
		}
		next, more, ok := after(raw, i+n, ']')
		if !more {
			return ok
		}
		i = next
	}
}

// after reads what follows a member of an object or array that ends at i:
// a comma (more members from next on), or closer as the last byte of raw
// (ok, the end); anything else is not ok.
func after(raw []byte, i int, closer byte) (next int, more, ok bool) {
	switch {
	case i >= len(raw):
		return 0, false, false
	case raw[i] == ',':
		return i + 1, true, true
	case raw[i] == closer:
		return 0, false, i == len(raw)-1
	}
	return 0, false, false
}

// String returns the contents of the JSON string value, when it is one
// without escapes.
func String(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
		return "", false
	}
	s := value[1 : len(value)-1]
	if bytes.IndexByte(s, '\\') >= 0 || bytes.IndexByte(s, '"') >= 0 {
		return "", false
	}
	return string(s), true
}

// ValueLength is the length of the compact JSON value at the start of b
// (followed by the end of b, a comma or the end of an enclosing object or
// array), or 0 when it does not end within b or has whitespace outside
// its strings.
func ValueLength(b []byte) int {
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
				return i // the end of the enclosing object or array
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		case ' ', '\t', '\n', '\r':
			return 0 // not compact
		}
		if depth == 0 && i+1 < len(b) && (b[i+1] == ',' || b[i+1] == '}' || b[i+1] == ']') {
			return i + 1
		}
	}
	if depth == 0 {
		return len(b)
	}
	return 0
}
