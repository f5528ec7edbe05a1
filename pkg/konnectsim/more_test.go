package konnectsim

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMembershipBulkRemoval: a group can be emptied and a consumer taken
// out of every group; unknown parties are 404.
func TestMembershipBulkRemoval(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("bulk", nil)
	u1 := c.do("POST", coreURL(cp, "consumers"), map[string]any{"username": "u1"}).must(t, 201)["id"].(string)
	u2 := c.do("POST", coreURL(cp, "consumers"), map[string]any{"username": "u2"}).must(t, 201)["id"].(string)
	g1 := c.do("POST", coreURL(cp, "consumer_groups"), map[string]any{"name": "g1"}).must(t, 201)["id"].(string)
	g2 := c.do("POST", coreURL(cp, "consumer_groups"), map[string]any{"name": "g2"}).must(t, 201)["id"].(string)
	for _, g := range []string{g1, g2} {
		for _, u := range []string{u1, u2} {
			c.do("POST", coreURL(cp, "consumer_groups/"+g+"/consumers"), map[string]any{"consumer": u}).must(t, 201)
		}
	}
	c.do("DELETE", coreURL(cp, "consumer_groups/"+g1+"/consumers"), nil).must(t, 204)
	c.do("DELETE", coreURL(cp, "consumers/"+u1+"/consumer_groups"), nil).must(t, 204)
	if got := ts.ConsumerGroupMembers("org-a", cp, g1); len(got) != 0 {
		t.Errorf("g1 = %v after emptying it", got)
	}
	if got := ts.ConsumerGroupMembers("org-a", cp, g2); !slices.Equal(got, []string{u2}) {
		t.Errorf("g2 = %v, want only u2", got)
	}
	c.do("DELETE", coreURL(cp, "consumer_groups/nope/consumers"), nil).must(t, 404)
	c.do("DELETE", coreURL(cp, "consumers/nope/consumer_groups"), nil).must(t, 404)
}

// TestMoreControlPlaneFilters: the rest of the filter vocabulary, and
// unknown filters are 400.
func TestMoreControlPlaneFilters(t *testing.T) {
	_, c := startSim(t, Options{})
	plain := c.newCP("plain-one", nil)
	group := c.newCP("group-one", map[string]any{"cluster_type": clusterTypeGroup})
	cases := []struct {
		query string
		want  []string
	}{
		{"filter[cluster_type][eq]=" + clusterTypeGroup, []string{group}},
		{"filter[cluster_type][neq]=" + clusterTypeGroup, []string{plain}},
		{"filter[cluster_type][oeq]=" + clusterTypeGroup + "," + defaultClusterType, []string{plain, group}},
		{"filter[id][oeq]=" + plain + "," + group, []string{plain, group}},
		{"filter[name][contains]=group", []string{group}},
		{"filter[name][neq]=group-one", []string{plain}},
		{"filter[cloud_gateway]=false", []string{plain, group}},
		{"filter[cloud_gateway]=true", nil},
		{"sort=-created_at", []string{group, plain}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			c.t = t
			var got []string
			for _, e := range c.do("GET", "/v2/control-planes?"+tc.query, nil).must(t, 200)["data"].([]any) {
				got = append(got, e.(map[string]any)["id"].(string))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestUnknownPathsAndSimulatorEndpoints: paths outside the API are Kong's
// "no Route matched"; /_sim/orgs lists organisations without tokens.
func TestUnknownPathsAndSimulatorEndpoints(t *testing.T) {
	ts, c := startSim(t, Options{})
	if body := c.do("GET", "/v1/nothing", nil).must(t, 404); body["message"] != "no Route matched with those values" {
		t.Errorf("unknown path body = %v", body)
	}
	c.do("PATCH", "/v3/organizations/me", map[string]any{}).must(t, 404)
	orgs := ts.Organizations()
	if len(orgs) != 2 || orgs[0].Name != "org-a" || orgs[1].Name != "org-b" {
		t.Errorf("Organizations = %v", orgs)
	}
	anon := newClient(t, ts, "")
	raw := string(anon.do("GET", "/_sim/orgs", nil).raw)
	if !strings.Contains(raw, `"name":"org-a"`) || strings.Contains(raw, testToken) {
		t.Errorf("/_sim/orgs = %s", raw)
	}
	ts.Faults().Set("get-service", Fault{Status: 503, Times: 2})
	if body := anon.do("GET", "/_sim/faults", nil).must(t, 200); body["get-service"].(map[string]any)["status"] != 503.0 {
		t.Errorf("/_sim/faults = %v", body)
	}
	anon.do("DELETE", "/_sim/faults/get-service", nil).must(t, 204)
	if len(ts.Faults().List()) != 0 {
		t.Error("DELETE /_sim/faults/{op} left the fault")
	}
	anon.do("GET", "/_sim/nothing", nil).must(t, 404)
}

// TestExplicitSpecPathMustExist: a named document that is missing is an error,
// not a silent run without validation.
func TestExplicitSpecPathMustExist(t *testing.T) {
	if _, err := New(Options{SpecPath: filepath.Join(t.TempDir(), "missing.yaml")}); err == nil {
		t.Error("New accepted a missing SpecPath")
	}
	t.Setenv(SpecEnv, filepath.Join(t.TempDir(), "missing.yaml"))
	if _, err := New(Options{}); err == nil {
		t.Errorf("New accepted a missing $%s", SpecEnv)
	}
}

// TestGroupMemberListHonoursTags: listing a group's consumers by tag only
// returns members, even when a non-member carries the tag (and the tag is
// rarer than membership, so the tag index is the narrower one).
func TestGroupMemberListHonoursTags(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("member-tags", nil)
	g := c.do("POST", coreURL(cp, "consumer_groups"), map[string]any{"name": "g"}).must(t, 201)["id"].(string)
	member := c.do("POST", coreURL(cp, "consumers"), map[string]any{"username": "member", "tags": []any{"t"}}).must(t, 201)["id"].(string)
	c.do("POST", coreURL(cp, "consumer_groups/"+g+"/consumers"), map[string]any{"consumer": member}).must(t, 201)
	for i := range 3 {
		id := c.do("POST", coreURL(cp, "consumers"), map[string]any{"username": "plain-" + itoa(i)}).must(t, 201)["id"].(string)
		c.do("POST", coreURL(cp, "consumer_groups/"+g+"/consumers"), map[string]any{"consumer": id}).must(t, 201)
	}
	c.do("POST", coreURL(cp, "consumers"), map[string]any{"username": "outsider", "tags": []any{"t"}}).must(t, 201)
	data := c.do("GET", coreURL(cp, "consumer_groups/"+g+"/consumers?tags=t"), nil).must(t, 200)["data"].([]any)
	if len(data) != 1 || data[0].(map[string]any)["id"] != member {
		t.Errorf("members tagged t = %v, want only the member", data)
	}
}
