package apis

import (
	"fmt"
	"reflect"
)

// subsetDiff returns one line for every place where got does not contain
// want: maps must have every key of want (extra keys, such as defaults, are
// fine), lists must have the same length with each element a subset, and
// scalars must be equal (numbers compared by value).
func subsetDiff(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: sent an object, read back %s", orRoot(path), describe(got))}
		}
		var diffs []string
		for key, wantValue := range w {
			gotValue, ok := g[key]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: sent, not read back", join(path, key)))
				continue
			}
			diffs = append(diffs, subsetDiff(join(path, key), wantValue, gotValue)...)
		}
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: sent a list, read back %s", orRoot(path), describe(got))}
		}
		if len(w) != len(g) {
			return []string{fmt.Sprintf("%s: sent %d items, read back %d", orRoot(path), len(w), len(g))}
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, subsetDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return diffs
	default:
		if wn, ok := number(want); ok {
			if gn, ok := number(got); ok && wn == gn {
				return nil
			}
		} else if reflect.DeepEqual(want, got) {
			return nil
		}
		return []string{fmt.Sprintf("%s: sent %s, read back %s", orRoot(path), describe(want), describe(got))}
	}
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func describe(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%#v", v)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orRoot(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}
