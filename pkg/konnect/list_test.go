package konnect

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func entityJSON(id, name string, tags ...string) string {
	quoted := make([]string, len(tags))
	for i, tag := range tags {
		quoted[i] = `"` + tag + `"`
	}
	return fmt.Sprintf(`{"id":%q,"name":%q,"host":"h","tags":[%s]}`, id, name, strings.Join(quoted, ","))
}

func serviceIDs(services []Service) []string {
	var ids []string
	for _, s := range services {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestCoreListFollowsEveryPage(t *testing.T) {
	pages := map[string]string{
		"":   `{"data":[` + entityJSON("a", "a") + `,` + entityJSON("b", "b") + `],"next":"/next","offset":"o1"}`,
		"o1": `{"data":[` + entityJSON("c", "c") + `,` + entityJSON("d", "d") + `],"next":"/next","offset":"o2"}`,
		"o2": `{"data":[` + entityJSON("e", "e") + `],"next":null,"offset":null}`,
	}
	fake := newFakeKonnect(t, func(r request) reply {
		offset := ""
		if v := r.Query["offset"]; len(v) == 1 {
			offset = v[0]
		}
		return reply{Status: 200, Body: pages[offset]}
	})
	c := fake.client(t, Options{})
	c.pageSize = 2
	got, err := c.ListServices(context.Background(), testCP, ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if ids := serviceIDs(got); !reflect.DeepEqual(ids, []string{"a", "b", "c", "d", "e"}) {
		t.Fatalf("listed %v, want a..e across three pages", ids)
	}
	var offsets []string
	for _, r := range fake.received() {
		offsets = append(offsets, strings.Join(r.Query["offset"], ""))
		if size := r.Query["size"]; len(size) != 1 || size[0] != "2" {
			t.Errorf("page size = %v, want 2", size)
		}
	}
	if !reflect.DeepEqual(offsets, []string{"", "o1", "o2"}) {
		t.Fatalf("offsets sent = %q, want each page's offset in turn", offsets)
	}
}

func TestCoreListRefusesARepeatedOffset(t *testing.T) {
	fake := newFakeKonnect(t, func(request) reply {
		return reply{Status: 200, Body: `{"data":[` + entityJSON("a", "a") + `],"offset":"same"}`}
	})
	_, err := fake.client(t, Options{}).ListServices(context.Background(), testCP, ListFilter{})
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("list with a looping offset = %v, want an error", err)
	}
	if n := len(fake.received()); n != 2 {
		t.Fatalf("%d requests, want 2 (stop at the first repeat)", n)
	}
}

func TestListFilters(t *testing.T) {
	all := `{"data":[` +
		entityJSON("1", "one", "a", "b") + `,` +
		entityJSON("2", "two", "a", "c") + `,` +
		entityJSON("3", "one", "c") + `,` +
		entityJSON("4", "four") + `]}`
	tests := []struct {
		name      string
		filter    ListFilter
		list      func(ctx context.Context, c *Client, f ListFilter) ([]string, error)
		wantQuery map[string]string
		wantIDs   []string
	}{
		{
			name: "tags are ANDed by Konnect and checked again here", filter: ListFilter{Tags: []string{"a", "b"}},
			wantQuery: map[string]string{"tags": "a,b"}, wantIDs: []string{"1"},
		},
		{
			name: "any-tags are ORed by Konnect", filter: ListFilter{AnyTags: []string{"b", "c"}},
			wantQuery: map[string]string{"tags": "b/c"}, wantIDs: []string{"1", "2", "3"},
		},
		{
			name: "tags and any-tags together: AND at Konnect, OR here", filter: ListFilter{Tags: []string{"a"}, AnyTags: []string{"b", "x"}},
			wantQuery: map[string]string{"tags": "a"}, wantIDs: []string{"1"},
		},
		{
			name: "name goes to Konnect where it filters names", filter: ListFilter{Name: "one"},
			wantQuery: map[string]string{"filter[name][eq]": "one", "tags": ""}, wantIDs: []string{"1", "3"},
		},
		{
			name: "name is filtered here where Konnect cannot", filter: ListFilter{Name: "one"},
			list: func(ctx context.Context, c *Client, f ListFilter) ([]string, error) {
				upstreams, err := c.ListUpstreams(ctx, testCP, f)
				var ids []string
				for _, u := range upstreams {
					ids = append(ids, u.ID)
				}
				return ids, err
			},
			wantQuery: map[string]string{"filter[name][eq]": ""}, wantIDs: []string{"1", "3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeKonnect(t, func(request) reply { return reply{Status: 200, Body: all} })
			c := fake.client(t, Options{})
			list := tt.list
			if list == nil {
				list = func(ctx context.Context, c *Client, f ListFilter) ([]string, error) {
					services, err := c.ListServices(ctx, testCP, f)
					return serviceIDs(services), err
				}
			}
			ids, err := list(context.Background(), c, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids, tt.wantIDs) {
				t.Errorf("listed %v, want %v", ids, tt.wantIDs)
			}
			query := fake.received()[0].Query
			for k, v := range tt.wantQuery {
				if got := strings.Join(query[k], ""); got != v {
					t.Errorf("query %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestListControlPlanesFollowsPageNumbers(t *testing.T) {
	const total = 130
	fake := newFakeKonnect(t, func(r request) reply {
		number, err := strconv.Atoi(strings.Join(r.Query["page[number]"], ""))
		if err != nil {
			return reply{Status: 400, Body: `{"status":400,"title":"Bad Request","detail":"page[number] missing"}`}
		}
		var items []string
		for i := (number - 1) * 100; i < min(number*100, total); i++ {
			items = append(items, fmt.Sprintf(`{"id":"00000000-0000-4000-8000-%012d","name":"cp-%d","description":"","labels":{},"config":{"proxy_urls":[]}}`, i, i))
		}
		return reply{Status: 200, Body: fmt.Sprintf(`{"data":[%s],"meta":{"page":{"number":%d,"size":100,"total":%d}}}`, strings.Join(items, ","), number, total)}
	})
	got, err := fake.client(t, Options{}).ListControlPlanes(context.Background(), ControlPlaneFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != total || got[total-1].Name != "cp-129" {
		t.Fatalf("listed %d control planes, want %d", len(got), total)
	}
	if n := len(fake.received()); n != 2 {
		t.Fatalf("%d requests, want 2 pages", n)
	}
}

func TestListControlPlaneGroupMembersFollowsTheCursor(t *testing.T) {
	member := func(i int) string {
		return fmt.Sprintf(`{"id":"00000000-0000-4000-8000-%012d","name":"m","description":"","labels":{},"config":{"proxy_urls":[]}}`, i)
	}
	fake := newFakeKonnect(t, func(r request) reply {
		if strings.Join(r.Query["page[after]"], "") == "cursor-1" {
			return reply{Status: 200, Body: `{"data":[` + member(2) + `],"meta":{"page":{"size":100,"next":null}}}`}
		}
		return reply{Status: 200, Body: `{"data":[` + member(1) + `],"meta":{"page":{"size":100,"next":"/v2/control-planes/x/group-memberships?page%5Bsize%5D=100&page%5Bafter%5D=cursor-1"}}}`}
	})
	got, err := fake.client(t, Options{}).ListControlPlaneGroupMembers(context.Background(), testCP)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("members = %v, want %v", got, want)
	}
}

func TestRequestsRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name string
		call func(ctx context.Context, c *Client) error
	}{
		{name: "control plane ID that is not a UUID", call: func(ctx context.Context, c *Client) error {
			_, err := c.CreateService(ctx, "not-a-uuid", Service{Host: "h"})
			return err
		}},
		{name: "empty entity ID", call: func(ctx context.Context, c *Client) error {
			_, err := c.GetService(ctx, testCP, "")
			return err
		}},
		{name: "empty entity ID on delete", call: func(ctx context.Context, c *Client) error {
			return c.DeletePlugin(ctx, testCP, "")
		}},
		{name: "empty parent ID", call: func(ctx context.Context, c *Client) error {
			_, err := c.CreateTarget(ctx, testCP, "", Target{Target: "a:1"})
			return err
		}},
		{name: "empty consumer ID of a credential", call: func(ctx context.Context, c *Client) error {
			_, err := c.UpsertACL(ctx, testCP, "", "id", ACL{Group: "g"})
			return err
		}},
		{name: "name filter on a kind without names", call: func(ctx context.Context, c *Client) error {
			_, err := c.ListCertificates(ctx, testCP, ListFilter{Name: "x"})
			return err
		}},
		{name: "service url that is not a URL", call: func(ctx context.Context, c *Client) error {
			_, err := c.CreateService(ctx, testCP, Service{URL: "::"})
			return err
		}},
		{name: "group ID that is not a UUID", call: func(ctx context.Context, c *Client) error {
			return c.SetControlPlaneGroupMembers(ctx, "grp", nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeKonnect(t, nil)
			err := tt.call(context.Background(), fake.client(t, Options{}))
			if !IsInvalidInput(err) {
				t.Fatalf("error = %v, want an InvalidInputError", err)
			}
			if n := len(fake.received()); n != 0 {
				t.Fatalf("%d requests sent, want none", n)
			}
		})
	}
}
