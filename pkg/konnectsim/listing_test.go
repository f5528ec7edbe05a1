package konnectsim

import (
	"fmt"
	"net/url"
	"slices"
	"testing"
)

// TestPagination: 250 services page through size=100 into 100+100+50 with
// opaque offsets; every id appears once; the last page has neither next
// nor offset; the default size is 100 and out-of-range sizes are 400.
func TestPagination(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("pages", nil)
	for i := range 250 {
		c.do("POST", coreURL(cp, "services"), map[string]any{"name": fmt.Sprintf("svc-%03d", i), "host": "x"}).must(t, 201)
	}
	seen := map[string]bool{}
	var sizes []int
	path := coreURL(cp, "services?size=100")
	for path != "" {
		page := c.do("GET", path, nil).must(t, 200)
		data := page["data"].([]any)
		sizes = append(sizes, len(data))
		for _, e := range data {
			id := e.(map[string]any)["id"].(string)
			if seen[id] {
				t.Fatalf("id %s returned twice", id)
			}
			seen[id] = true
		}
		next, hasNext := page["next"].(string)
		offset, hasOffset := page["offset"].(string)
		if hasNext != hasOffset {
			t.Fatalf("next and offset must come together: %v / %v", page["next"], page["offset"])
		}
		if !hasNext {
			break
		}
		u, err := url.Parse(next)
		if err != nil || u.Query().Get("offset") != offset {
			t.Fatalf("next %q does not carry the offset %q", next, offset)
		}
		path = next
	}
	if !slices.Equal(sizes, []int{100, 100, 50}) || len(seen) != 250 {
		t.Errorf("page sizes %v, %d distinct ids; want [100 100 50] and 250", sizes, len(seen))
	}
	if n := len(c.do("GET", coreURL(cp, "services"), nil).must(t, 200)["data"].([]any)); n != defaultPageSize {
		t.Errorf("default page has %d entities, want %d", n, defaultPageSize)
	}
	for _, bad := range []string{"size=0", "size=1001", "size=abc", "offset=%21%21notbase64"} {
		c.do("GET", coreURL(cp, "services?"+bad), nil).must(t, 400)
	}
	if len(ts.TakeViolations()) == 0 {
		t.Error("out-of-range sizes were not reported as OpenAPI violations")
	}
}

// TestListFilters: tags "a,b" need both, "a/b" either, mixing is 400;
// filter[name][eq] and custom_id select by value.
func TestListFilters(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("filters", nil)
	for name, tags := range map[string][]any{"ab": {"a", "b"}, "a": {"a"}, "b": {"b"}, "c": {"c"}, "none": nil} {
		body := map[string]any{"username": name, "custom_id": "cid-" + name}
		if tags != nil {
			body["tags"] = tags
		}
		c.do("POST", coreURL(cp, "consumers"), body).must(t, 201)
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"tags=a,b", []string{"ab"}},
		{"tags=a", []string{"a", "ab"}},
		{"tags=a/b", []string{"a", "ab", "b"}},
		{"tags=a/c", []string{"a", "ab", "c"}},
		{"tags=a,c", nil},
		{"tags=missing", nil},
		{"filter[name][eq]=ab", []string{"ab"}},
		{"filter[name][contains]=b", []string{"ab", "b"}},
		{"custom_id=cid-c", []string{"c"}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			c.t = t
			var got []string
			for _, e := range c.do("GET", coreURL(cp, "consumers?"+tc.query), nil).must(t, 200)["data"].([]any) {
				got = append(got, e.(map[string]any)["username"].(string))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	c.t = t
	c.do("GET", coreURL(cp, "consumers?tags=a,b/c"), nil).must(t, 400)
	_ = ts.TakeViolations()
}

// TestTagIndexFollowsUpdates: replacing or deleting an entity updates the
// tag index.
func TestTagIndexFollowsUpdates(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("tags", nil)
	id := c.do("POST", coreURL(cp, "consumer_groups"), map[string]any{"name": "g", "tags": []any{"old"}}).must(t, 201)["id"].(string)
	count := func(tag string) int {
		return len(c.do("GET", coreURL(cp, "consumer_groups?tags="+tag), nil).must(t, 200)["data"].([]any))
	}
	c.do("PUT", coreURL(cp, "consumer_groups/"+id), map[string]any{"name": "g", "tags": []any{"new"}}).must(t, 200)
	if count("old") != 0 || count("new") != 1 {
		t.Errorf("after retagging: old=%d new=%d, want 0 and 1", count("old"), count("new"))
	}
	c.do("DELETE", coreURL(cp, "consumer_groups/"+id), nil).must(t, 204)
	if count("new") != 0 {
		t.Error("deleted entity still found by tag")
	}
}

// TestControlPlaneListFilters: filter[name][eq], filter[id][eq], labels and
// page[size]/page[number] with meta.page.
func TestControlPlaneListFilters(t *testing.T) {
	_, c := startSim(t, Options{})
	ids := map[string]string{}
	for i := range 12 {
		name := fmt.Sprintf("cp-%02d", i)
		labels := map[string]any{"team": "blue"}
		if i%3 == 0 {
			labels["team"] = "red"
		}
		ids[name] = c.newCP(name, map[string]any{"labels": labels})
	}
	list := func(query string) (names []string, meta map[string]any) {
		body := c.do("GET", "/v2/control-planes?"+query, nil).must(t, 200)
		for _, e := range body["data"].([]any) {
			names = append(names, e.(map[string]any)["name"].(string))
		}
		return names, body["meta"].(map[string]any)["page"].(map[string]any)
	}
	if names, _ := list("filter[name][eq]=cp-03"); !slices.Equal(names, []string{"cp-03"}) {
		t.Errorf("by name: %v", names)
	}
	if names, _ := list("filter[id][eq]=" + ids["cp-05"]); !slices.Equal(names, []string{"cp-05"}) {
		t.Errorf("by id: %v", names)
	}
	if names, meta := list("labels=team:red&page[size]=100"); len(names) != 4 || meta["total"] != 4.0 {
		t.Errorf("by label: %v (meta %v), want the 4 red ones", names, meta)
	}
	names, meta := list("page[size]=5&page[number]=3")
	if !slices.Equal(names, []string{"cp-10", "cp-11"}) || meta["total"] != 12.0 || meta["number"] != 3.0 || meta["size"] != 5.0 {
		t.Errorf("page 3 of 5: %v, meta %v", names, meta)
	}
	if names, _ := list(""); len(names) != defaultCPPageSize {
		t.Errorf("default page: %d control planes, want %d", len(names), defaultCPPageSize)
	}
}
