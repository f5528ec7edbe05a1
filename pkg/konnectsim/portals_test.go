package konnectsim

import (
	"testing"
)

// TestPortalKeysAreUnique: a portal's name is unique in the organisation,
// a team's name and a page's slug in their portal, an identity provider's
// type too; each clash is a 409, and the same key in another portal is
// fine.
func TestPortalKeysAreUnique(t *testing.T) {
	_, c := startSim(t, Options{})
	portal := c.do("POST", portals, map[string]any{"name": "dev"}).must(t, 201)["id"].(string)
	other := c.do("POST", portals, map[string]any{"name": "other"}).must(t, 201)["id"].(string)
	c.do("POST", portals, map[string]any{"name": "dev"}).must(t, 409)
	c.do("PATCH", portals+"/"+other, map[string]any{"name": "dev"}).must(t, 409)

	cases := []struct {
		collection string
		body       map[string]any
	}{
		{"teams", map[string]any{"name": "partners"}},
		{"pages", map[string]any{"slug": "start", "content": "# Start"}},
		{"identity-providers", map[string]any{"type": "oidc", "config": map[string]any{"issuer_url": "https://login.example.com/", "client_id": "dev"}}},
	}
	for _, tc := range cases {
		t.Run(tc.collection, func(t *testing.T) {
			c.do("POST", portals+"/"+portal+"/"+tc.collection, tc.body).must(t, 201)
			c.do("POST", portals+"/"+portal+"/"+tc.collection, tc.body).must(t, 409)
			c.do("POST", portals+"/"+other+"/"+tc.collection, tc.body).must(t, 201)
		})
	}
}

// TestPortalSingletons: a portal has at most one custom domain and one
// email configuration (a second create is a 409), and always one
// customization, which a replacement writes whole: what it leaves out is
// Konnect's default again.
func TestPortalSingletons(t *testing.T) {
	_, c := startSim(t, Options{})
	portal := portals + "/" + c.do("POST", portals, map[string]any{"name": "dev"}).must(t, 201)["id"].(string)
	domain := map[string]any{"hostname": "dev.example.com", "enabled": true, "ssl": map[string]any{"domain_verification_method": "http"}}
	got := c.do("POST", portal+"/custom-domain", domain).must(t, 201)
	if got["hostname"] != "dev.example.com" || got["cname_status"] != "pending" {
		t.Fatalf("custom domain %v", got)
	}
	c.do("POST", portal+"/custom-domain", domain).must(t, 409)
	c.do("PATCH", portal+"/custom-domain", map[string]any{"ssl": map[string]any{"custom_certificate": "x"}}).must(t, 400)
	c.do("DELETE", portal+"/custom-domain", nil).must(t, 204)
	c.do("GET", portal+"/custom-domain", nil).must(t, 404)

	c.do("POST", portal+"/email-config", map[string]any{"from_name": "Dev"}).must(t, 201)
	c.do("POST", portal+"/email-config", map[string]any{"from_name": "Again"}).must(t, 409)
	if got := c.do("GET", portal+"/email-config", nil).must(t, 200); got["from_name"] != "Dev" || got["reply_to_email"] != nil {
		t.Fatalf("email config %v", got)
	}

	custom := c.do("GET", portal+"/customization", nil).must(t, 200)
	if custom["layout"] != "Top navigation" || custom["robots"] != nil {
		t.Fatalf("a new portal's customization %v", custom)
	}
	c.do("PUT", portal+"/customization", map[string]any{"robots": "User-agent: *", "spec_renderer": map[string]any{"try_it_ui": false}}).must(t, 200)
	custom = c.do("PATCH", portal+"/customization", map[string]any{"css": "body {}"}).must(t, 200)
	renderer, _ := custom["spec_renderer"].(map[string]any)
	if custom["robots"] != "User-agent: *" || custom["css"] != "body {}" || renderer["try_it_ui"] != false || renderer["show_schemas"] != true {
		t.Fatalf("customization after a replacement and a patch: %v", custom)
	}
	custom = c.do("PUT", portal+"/customization", map[string]any{}).must(t, 200)
	if custom["robots"] != nil || custom["css"] != nil {
		t.Fatalf("an empty replacement leaves %v", custom)
	}
}

// TestPortalGoesWithWhatItHolds: deleting a portal deletes its pages,
// teams, customization and the rest; deleting a control plane deletes its
// config stores.
func TestPortalGoesWithWhatItHolds(t *testing.T) {
	ts, c := startSim(t, Options{})
	portal := c.do("POST", portals, map[string]any{"name": "dev", "labels": map[string]any{"team": "a"}}).must(t, 201)["id"].(string)
	c.do("POST", portals+"/"+portal+"/pages", map[string]any{"slug": "start", "content": "# Start"}).must(t, 201)
	c.do("POST", portals+"/"+portal+"/teams", map[string]any{"name": "partners"}).must(t, 201)
	c.do("POST", portals+"/"+portal+"/ip-allow-list", map[string]any{"allowed_ips": []any{"10.0.0.1"}}).must(t, 201)
	cp := c.newCP("cp", nil)
	c.do("POST", "/v2/control-planes/"+cp+"/config-stores", map[string]any{"name": "secrets"}).must(t, 201)
	org, _ := ts.OrganizationID("org-a")
	if n := ts.Count(org); n != 7 { // a portal, its customization, a page, a team, a list, a control plane, a store
		t.Fatalf("%d entities, want 7", n)
	}
	c.do("DELETE", portals+"/"+portal, nil).must(t, 204)
	c.do("GET", portals+"/"+portal+"/pages", nil).must(t, 404)
	c.do("DELETE", "/v2/control-planes/"+cp, nil).must(t, 204)
	if n := ts.Count(org); n != 0 {
		t.Fatalf("%d entities left", n)
	}
}

// TestPortalLabelsMergeOnPatch: a patch of a portal's labels changes the
// labels it names and removes those it sets to null; the others stay.
func TestPortalLabelsMergeOnPatch(t *testing.T) {
	_, c := startSim(t, Options{})
	portal := portals + "/" + c.do("POST", portals, map[string]any{"name": "dev", "labels": map[string]any{"a": "1", "b": "2"}}).must(t, 201)["id"].(string)
	got := c.do("PATCH", portal, map[string]any{"labels": map[string]any{"a": nil, "c": "3"}}).must(t, 200)
	labels, _ := got["labels"].(map[string]any)
	if len(labels) != 2 || labels["b"] != "2" || labels["c"] != "3" {
		t.Fatalf("labels %v, want b and c", labels)
	}
	c.do("PATCH", portal, map[string]any{"rbac_enabled": true, "authentication_enabled": false}).must(t, 400)
}

// TestConfigStoresPageByCursor: a control plane's config stores come a
// page at a time, each naming the next.
func TestConfigStoresPageByCursor(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("cp", nil)
	base := "/v2/control-planes/" + cp + "/config-stores"
	for _, name := range []string{"a", "b", "c"} {
		c.do("POST", base, map[string]any{"name": name}).must(t, 201)
	}
	var names []any
	next := base + "?page[size]=2"
	for next != "" {
		page := c.do("GET", next, nil).must(t, 200)
		for _, item := range page["data"].([]any) {
			names = append(names, item.(map[string]any)["name"])
		}
		meta, _ := page["meta"].(map[string]any)["page"].(map[string]any)
		next, _ = meta["next"].(string)
	}
	if len(names) != 3 || names[0] != "a" || names[2] != "c" {
		t.Fatalf("listed %v", names)
	}
	c.do("GET", "/v2/control-planes/"+cp+"/config-stores/00000000-0000-0000-0000-000000000000", nil).must(t, 404)
}
