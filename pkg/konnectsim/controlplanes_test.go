package konnectsim

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"
)

// TestControlPlaneLifecycle: create fills Konnect's defaults, PATCH changes
// the updatable fields, delete takes every entity with it, and absent
// control planes are 404 problems.
func TestControlPlaneLifecycle(t *testing.T) {
	ts, c := startSim(t, Options{})
	created := c.do("POST", "/v2/control-planes", map[string]any{"name": "cp", "labels": map[string]any{"k8s-uid": "abc"}}).must(t, 201)
	id := created["id"].(string)
	cfg := created["config"].(map[string]any)
	if created["description"] != "" || cfg["cluster_type"] != defaultClusterType || cfg["auth_type"] != "pinned_client_certs" ||
		cfg["cloud_gateway"] != false || created["created_at"] == nil {
		t.Errorf("created = %v", created)
	}
	patched := c.do("PATCH", "/v2/control-planes/"+id, map[string]any{
		"name": "cp-renamed", "description": "d", "labels": map[string]any{"k8s-uid": "def"},
	}).must(t, 200)
	if patched["name"] != "cp-renamed" || patched["description"] != "d" || patched["labels"].(map[string]any)["k8s-uid"] != "def" {
		t.Errorf("patched = %v", patched)
	}
	c.newCP("taken", nil)
	c.do("PATCH", "/v2/control-planes/"+id, map[string]any{"name": "taken"}).must(t, http.StatusConflict)

	svc := c.do("POST", coreURL(id, "services"), map[string]any{"name": "s", "host": "x"}).must(t, 201)["id"].(string)
	c.do("POST", coreURL(id, "services/"+svc+"/routes"), map[string]any{"paths": []any{"/"}}).must(t, 201)
	cert, _ := testCertPEM(t, "dp", false)
	c.do("POST", "/v2/control-planes/"+id+"/dp-client-certificates", map[string]any{"cert": cert}).must(t, 201)
	if n := ts.Count("org-a"); n != 5 {
		t.Fatalf("Count = %d, want 2 control planes + service + route + DP certificate", n)
	}
	c.do("DELETE", "/v2/control-planes/"+id, nil).must(t, 204)
	if n := ts.Count("org-a"); n != 1 {
		t.Errorf("Count after delete = %d, want only the other control plane", n)
	}
	nf := c.do("GET", "/v2/control-planes/"+id, nil).must(t, 404)
	if nf["status"] != 404.0 || nf["instance"] == nil {
		t.Errorf("404 body = %v", nf)
	}
	c.do("DELETE", "/v2/control-planes/"+id, nil).must(t, 404)
	c.do("GET", coreURL(id, "services/"+svc), nil).must(t, 404)
}

// TestControlPlaneInvalidBodies: problem bodies list invalid_parameters.
func TestControlPlaneInvalidBodies(t *testing.T) {
	ts, c := startSim(t, Options{})
	id := c.newCP("cp", nil)
	cases := []struct {
		name, method, path string
		body               map[string]any
		field              string
	}{
		{"missing name", "POST", "/v2/control-planes", map[string]any{"description": "x"}, "name"},
		{"unknown field", "POST", "/v2/control-planes", map[string]any{"name": "ok", "colour": "red"}, "colour"},
		{"reserved label prefix", "POST", "/v2/control-planes", map[string]any{"name": "ok", "labels": map[string]any{"konnect-x": "y"}}, "labels.konnect-x"},
		{"cluster type is immutable", "PATCH", "/v2/control-planes/" + id, map[string]any{"cluster_type": clusterTypeGroup}, "cluster_type"},
		{"name too short", "PATCH", "/v2/control-planes/" + id, map[string]any{"name": "x"}, "name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			r := c.do(tc.method, tc.path, tc.body)
			body := r.must(t, 400)
			if r.header.Get("Content-Type") != contentProblem {
				t.Errorf("Content-Type = %q", r.header.Get("Content-Type"))
			}
			params, _ := body["invalid_parameters"].([]any)
			if !slices.ContainsFunc(params, func(p any) bool { return p.(map[string]any)["field"] == tc.field }) {
				t.Errorf("invalid_parameters %v do not name %s", params, tc.field)
			}
		})
	}
	_ = ts.TakeViolations()
}

// TestControlPlaneGroups: members are set, added, removed and listed; only
// groups have members, members must exist and cannot be groups; a deleted
// member leaves its groups; groups take no core entities.
func TestControlPlaneGroups(t *testing.T) {
	ts, c := startSim(t, Options{})
	group := c.newCP("group", map[string]any{"cluster_type": clusterTypeGroup})
	a, b := c.newCP("cp-a", nil), c.newCP("cp-b", nil)
	members := func() []string {
		var out []string
		for _, e := range c.do("GET", "/v2/control-planes/"+group+"/group-memberships", nil).must(t, 200)["data"].([]any) {
			out = append(out, e.(map[string]any)["id"].(string))
		}
		return out
	}
	c.do("PUT", "/v2/control-planes/"+group+"/group-memberships", map[string]any{"members": []any{map[string]any{"id": a}}}).must(t, 204)
	c.do("POST", "/v2/control-planes/"+group+"/group-memberships/add", map[string]any{"members": []any{map[string]any{"id": b}}}).must(t, 204)
	if got := members(); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("members = %v, want [a b]", got)
	}
	c.do("POST", "/v2/control-planes/"+group+"/group-memberships/remove", map[string]any{"members": []any{map[string]any{"id": a}}}).must(t, 204)
	if got := ts.GroupMembers("org-a", group); !slices.Equal(got, []string{b}) {
		t.Fatalf("members = %v, want [b]", got)
	}
	c.do("PUT", "/v2/control-planes/"+a+"/group-memberships", map[string]any{"members": []any{}}).must(t, 400)
	c.do("PUT", "/v2/control-planes/"+group+"/group-memberships", map[string]any{"members": []any{map[string]any{"id": uuid.NewString()}}}).must(t, 400)
	c.do("PUT", "/v2/control-planes/"+group+"/group-memberships", map[string]any{"members": []any{map[string]any{"id": group}}}).must(t, 400)
	c.do("GET", "/v2/control-planes/"+uuid.NewString()+"/group-memberships", nil).must(t, 404)
	status := c.do("GET", "/v2/control-planes/"+group+"/group-status", nil).must(t, 200)
	if status["item"].(map[string]any)["state"] != "OK" {
		t.Errorf("group status = %v", status)
	}
	c.do("POST", coreURL(group, "services"), map[string]any{"host": "x"}).must(t, 400)
	c.do("DELETE", "/v2/control-planes/"+b, nil).must(t, 204)
	if got := members(); len(got) != 0 {
		t.Errorf("members after deleting b = %v", got)
	}
}

// TestGroupMembershipPaging: page[size] and page[after] walk the members.
func TestGroupMembershipPaging(t *testing.T) {
	_, c := startSim(t, Options{})
	group := c.newCP("group", map[string]any{"cluster_type": clusterTypeGroup})
	var want []any
	for _, n := range []string{"m1", "m2", "m3"} {
		want = append(want, map[string]any{"id": c.newCP(n, nil)})
	}
	c.do("PUT", "/v2/control-planes/"+group+"/group-memberships", map[string]any{"members": want}).must(t, 204)
	first := c.do("GET", "/v2/control-planes/"+group+"/group-memberships?page[size]=2", nil).must(t, 200)
	meta := first["meta"].(map[string]any)["page"].(map[string]any)
	next, _ := meta["next"].(string)
	if len(first["data"].([]any)) != 2 || next == "" || meta["total"] != 3.0 {
		t.Fatalf("first page = %v", first)
	}
	second := c.do("GET", "/v2/control-planes/"+group+"/group-memberships?page[size]=2&page[after]="+next, nil).must(t, 200)
	if data := second["data"].([]any); len(data) != 1 || second["meta"].(map[string]any)["page"].(map[string]any)["next"] != nil {
		t.Errorf("second page = %v", second)
	}
}

// TestDataPlaneCertificates: pin, read, list, update and unpin; bad PEM is a
// legacy 400 and unknown ids are legacy 404s.
func TestDataPlaneCertificates(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("dp", nil)
	base := "/v2/control-planes/" + cp + "/dp-client-certificates"
	cert, _ := testCertPEM(t, "dp", false)
	item := c.do("POST", base, map[string]any{"cert": cert, "title": "t"}).must(t, 201)["item"].(map[string]any)
	id := item["id"].(string)
	if item["cert"] != cert || item["title"] != "t" {
		t.Errorf("item = %v", item)
	}
	c.do("GET", base+"/"+id, nil).must(t, 200)
	list := c.do("GET", base, nil).must(t, 200)
	if len(list["items"].([]any)) != 1 || list["page"].(map[string]any)["total_count"] != 1.0 {
		t.Errorf("list = %v", list)
	}
	other, _ := testCertPEM(t, "dp2", false)
	if got := c.do("PUT", base+"/"+id, map[string]any{"cert": other}).must(t, 200)["item"].(map[string]any); got["cert"] != other {
		t.Errorf("updated = %v", got)
	}
	bad := c.do("POST", base, map[string]any{"cert": "not a certificate"}).must(t, 400)
	if _, ok := bad["message"].(string); !ok {
		t.Errorf("400 body = %v, want {message}", bad)
	}
	c.do("DELETE", base+"/"+id, nil).must(t, 204)
	c.do("GET", base+"/"+id, nil).must(t, 404)
	c.do("GET", "/v2/control-planes/"+uuid.NewString()+"/dp-client-certificates", nil).must(t, 404)
}

// TestConsumerGroupMembership: membership from both sides, idempotent adds,
// 404 for unknown parties, removal, and cleanup when a consumer is deleted.
func TestConsumerGroupMembership(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("cg", nil)
	consumer := c.do("POST", coreURL(cp, "consumers"), map[string]any{"username": "u"}).must(t, 201)["id"].(string)
	g1 := c.do("POST", coreURL(cp, "consumer_groups"), map[string]any{"name": "g1"}).must(t, 201)["id"].(string)
	g2 := c.do("POST", coreURL(cp, "consumer_groups"), map[string]any{"name": "g2"}).must(t, 201)["id"].(string)
	added := c.do("POST", coreURL(cp, "consumer_groups/"+g1+"/consumers"), map[string]any{"consumer": consumer}).must(t, 201)
	if len(added["consumers"].([]any)) != 1 {
		t.Errorf("add response = %v", added)
	}
	c.do("POST", coreURL(cp, "consumer_groups/"+g1+"/consumers"), map[string]any{"consumer": consumer}).must(t, 201)
	c.do("POST", coreURL(cp, "consumers/"+consumer+"/consumer_groups"), map[string]any{"group": "g2"}).must(t, 201)
	groups := c.do("GET", coreURL(cp, "consumers/"+consumer+"/consumer_groups"), nil).must(t, 200)["data"].([]any)
	if len(groups) != 2 {
		t.Fatalf("groups of consumer = %v", groups)
	}
	if got := c.do("GET", coreURL(cp, "consumer_groups/"+g1+"?list_consumers=true"), nil).must(t, 200); len(got["consumers"].([]any)) != 1 {
		t.Errorf("group with list_consumers = %v", got)
	}
	c.do("POST", coreURL(cp, "consumer_groups/"+g1+"/consumers"), map[string]any{"consumer": uuid.NewString()}).must(t, 404)
	c.do("DELETE", coreURL(cp, "consumers/"+consumer+"/consumer_groups/"+g1), nil).must(t, 204)
	if got := ts.ConsumerGroupMembers("org-a", cp, g1); len(got) != 0 {
		t.Errorf("g1 members after removal = %v", got)
	}
	c.do("DELETE", coreURL(cp, "consumers/"+consumer), nil).must(t, 204)
	if got := c.do("GET", coreURL(cp, "consumer_groups/"+g2+"/consumers"), nil).must(t, 200)["data"].([]any); len(got) != 0 {
		t.Errorf("deleted consumer still in g2: %v", got)
	}
}
