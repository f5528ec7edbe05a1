package jsonscan

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// values are what json.Marshal writes for the shapes an entity takes:
// scalars, strings holding JSON's own punctuation, nesting, empties.
var values = []any{
	map[string]any{},
	map[string]any{"a": 1},
	map[string]any{"name": `braces } ] , and "quotes" \ inside`, "n": -1.5e3, "t": true, "z": nil},
	map[string]any{"nested": map[string]any{"x": []any{1, "}", map[string]any{"y": "]"}}}, "list": []string{"a,b", ""}, "e": map[string]any{}},
	struct {
		B string            `json:"b"`
		A []int             `json:"a"`
		M map[string]string `json:"m"`
	}{"<&>", []int{3, 2}, map[string]string{"k": "v"}},
}

// TestFieldsSplitAsADecoderWould splits what json.Marshal writes and
// compares with encoding/json's own reading; what it cannot split plainly
// it leaves to encoding/json.
func TestFieldsSplitAsADecoderWould(t *testing.T) {
	for _, v := range values {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]json.RawMessage{}
		if !Fields(raw, func(name, value []byte) bool { got[string(name)] = value; return true }) {
			t.Errorf("%s was not split", raw)
			continue
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s split into %v, want %v", raw, got, want)
		}
	}
	many := map[string]int{}
	for i := range 40 {
		many[fmt.Sprint("f", i)] = i
	}
	raw, _ := json.Marshal(many)
	repeated := strings.Replace(string(raw), `"f9":`, `"f38":`, 1) // a repeat beyond the first keys
	for _, raw := range []string{`{"a":1,"a":2}`, `{"a\"b":1}`, `[1]`, `{"a":}`, `{"a":1`, `{"a" :1}`, `{"a":1,}`, `{ "a":1}`, repeated} {
		if Fields([]byte(raw), func(_, _ []byte) bool { return true }) {
			t.Errorf("%s was split; it is for encoding/json", raw)
		}
	}
}

func TestFieldsStopsWhenAsked(t *testing.T) {
	var names []string
	ok := Fields([]byte(`{"id":"x","name":"y","tags":[]}`), func(name, _ []byte) bool {
		names = append(names, string(name))
		return string(name) != "name"
	})
	if !ok || !reflect.DeepEqual(names, []string{"id", "name"}) {
		t.Errorf("read %v (ok %v), want id and name, then a stop", names, ok)
	}
}

func TestElementsSplitAsADecoderWould(t *testing.T) {
	for _, list := range [][]any{{}, values, {1, "a", nil, []any{}, []any{[]any{"]"}}}} {
		raw, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		var got []json.RawMessage
		if !Elements(raw, func(e []byte) bool { got = append(got, e); return true }) {
			t.Errorf("%s was not split", raw)
			continue
		}
		var want []json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("%s split into %q, want %q", raw, got, want)
		}
	}
	for _, raw := range []string{`[1,]`, `[1`, `[1 ,2]`, `{"a":1}`, `[,1]`, `[1]]`} {
		if Elements([]byte(raw), func([]byte) bool { return true }) {
			t.Errorf("%s was split; it is for encoding/json", raw)
		}
	}
}

func TestString(t *testing.T) {
	for raw, want := range map[string]string{`"abc"`: "abc", `""`: ""} {
		if got, ok := String([]byte(raw)); !ok || got != want {
			t.Errorf("String(%s) = %q, %v", raw, got, ok)
		}
	}
	for _, raw := range []string{`"a\"b"`, `"a\u0041"`, `abc`, `"abc`, `1`, `null`} {
		if got, ok := String([]byte(raw)); ok {
			t.Errorf("String(%s) = %q; it has escapes or is no string", raw, got)
		}
	}
}
