package konnectsim

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Lists of the cloud-gateway API page by number, like control planes, and
// filter with filter[field][operator]=value.

const (
	defaultCloudPageSize = 10
	maxCloudPageSize     = 100
)

// cloudFilter is one filter[field][operator]=value of a list.
type cloudFilter struct {
	field, op, value string
}

var filterKey = regexp.MustCompile(`^filter\[([a-z_]+)\](?:\[([a-z]+)\])?$`)

// parseCloudList reads the paging and the filters of a list; fields maps
// each filterable field to the operators it accepts. It answers 400 itself.
func (rc *reqCtx) parseCloudList(fields map[string][]string) (filters []cloudFilter, number, size int, ok bool) {
	number, size = 1, defaultCloudPageSize
	bad := func(field, reason string) ([]cloudFilter, int, int, bool) {
		rc.problem(http.StatusBadRequest, "Invalid query parameters", invalidParam{Field: field, Rule: "invalid", Reason: reason, Source: "query"})
		return nil, 0, 0, false
	}
	for key, values := range rc.r.URL.Query() {
		v := values[0]
		switch key {
		case "page[number]", "page[size]":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || (key == "page[size]" && n > maxCloudPageSize) {
				return bad(key, "must be a positive integer (page[size] at most 100)")
			}
			if key == "page[number]" {
				number = n
			} else {
				size = n
			}
			continue
		}
		m := filterKey.FindStringSubmatch(key)
		if m == nil {
			return bad(key, "unknown query parameter")
		}
		op := m[2]
		if op == "" {
			op = "eq"
		}
		if !slices.Contains(fields[m[1]], op) {
			return bad(key, "unknown filter")
		}
		filters = append(filters, cloudFilter{field: m[1], op: op, value: v})
	}
	return filters, number, size, true
}

// matchAll reports whether every filter holds for the item, whose
// filterable fields value returns.
func matchAll(filters []cloudFilter, value func(field string) string) bool {
	for _, f := range filters {
		got := value(f.field)
		var ok bool
		switch f.op {
		case "eq":
			ok = got == f.value
		case "neq":
			ok = got != f.value
		case "contains":
			ok = strings.Contains(got, f.value)
		case "oeq":
			ok = slices.Contains(strings.Split(f.value, ","), got)
		case "ocontains":
			ok = slices.ContainsFunc(strings.Split(f.value, ","), func(part string) bool { return strings.Contains(got, part) })
		}
		if !ok {
			return false
		}
	}
	return true
}

// writeNumberedPage answers one page of items with meta.page.
func (rc *reqCtx) writeNumberedPage(items []any, number, size int) {
	data := []any{}
	for i := (number - 1) * size; i < len(items) && i < number*size; i++ {
		data = append(data, items[i])
	}
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{
		"data": data,
		"meta": map[string]any{"page": map[string]any{"number": number, "size": size, "total": len(items)}},
	})
}

// stringItems converts a JSON array of strings; anything else is nil.
func stringItems(v any) []string {
	items, isArray := v.([]any)
	if !isArray {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		s, isString := item.(string)
		if !isString {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// anyStrings converts strings for a JSON answer.
func anyStrings(ss []string) []any {
	out := make([]any, 0, len(ss))
	for _, s := range ss {
		out = append(out, s)
	}
	return out
}
