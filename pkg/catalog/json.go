package catalog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// fieldOf finds a field by its JSON name in v, or in one of v's objects
// (an entity wrapped with what else decides it, such as a consumer with its
// groups).
func fieldOf(v any, field string) any {
	object, ok := entities.AsJSON(v).(map[string]any)
	if !ok {
		return nil
	}
	if value, ok := object[field]; ok {
		return value
	}
	for _, nested := range object {
		if inner, ok := nested.(map[string]any); ok {
			if value, ok := inner[field]; ok {
				return value
			}
		}
	}
	return nil
}

// tagsIn reads the tags of an entity, wherever fieldOf finds them.
func tagsIn(v any) []string {
	list, _ := fieldOf(v, "tags").([]any)
	out := make([]string, 0, len(list))
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// compactJSON renders a value for a diff: "" for an unset one, long text
// cut short.
func compactJSON(v any) string {
	if v == nil {
		return ""
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if string(raw) == "null" {
		return ""
	}
	const limit = 200
	if s := string(raw); len(s) > limit {
		return s[:limit] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return strings.TrimSpace(string(raw))
}
