package konnectsim

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestEntityLifecycle: every kind is created (201, server id and times,
// declared defaults), read back by id (flat and nested), upserted by id
// (200, created_at kept), listed, deleted (204) and then 404; deleting again
// is still 204.
func TestEntityLifecycle(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("lifecycle", nil)
	for i, kc := range kindCases {
		t.Run(kc.collection, func(t *testing.T) {
			c.t = t
			path, parentID := c.createPath(cp, kc, i)
			created := c.do("POST", path, kc.body(t, i)).must(t, 201)
			id, _ := created["id"].(string)
			if !isUUID(id) {
				t.Fatalf("id = %v, want a server-generated UUID", created["id"])
			}
			if _, ok := created["created_at"].(float64); !ok {
				t.Errorf("created_at = %v, want a number", created["created_at"])
			}
			for field, want := range kc.defaults {
				if got := created[field]; got != want {
					t.Errorf("default %s = %v, want %v", field, got, want)
				}
			}
			if kc.parentField != "" && refID(created, kc.parentField) != parentID {
				t.Errorf("%s = %v, want id %s", kc.parentField, created[kc.parentField], parentID)
			}
			// Targets have no flat read; everything else has both.
			get := coreURL(cp, kc.collection+"/"+id)
			if kc.collection == "targets" {
				get = path + "/" + id
			}
			got := c.do("GET", get, nil).must(t, 200)
			if kc.collection == "consumer_groups" {
				got = got["consumer_group"].(map[string]any)
			}
			if got["id"] != id {
				t.Errorf("GET id = %v, want %s", got["id"], id)
			}
			if kc.parent != "" {
				c.do("GET", path+"/"+id, nil).must(t, 200)
			}

			body := kc.body(t, i)
			body["tags"] = []any{"updated"}
			upserted := c.do("PUT", path+"/"+id, body).must(t, 200)
			if upserted["created_at"] != created["created_at"] || upserted["id"] != id {
				t.Errorf("upsert changed id or created_at: %v", upserted)
			}
			if tags := stringsOf(upserted["tags"]); len(tags) != 1 || tags[0] != "updated" {
				t.Errorf("upsert tags = %v", upserted["tags"])
			}
			list := c.do("GET", coreURL(cp, kc.collection+"?tags=updated"), nil).must(t, 200)
			if data := list["data"].([]any); len(data) != 1 {
				t.Errorf("list by tag: %d entities, want 1", len(data))
			}

			del := coreURL(cp, kc.collection+"/"+id)
			if kc.parent != "" {
				del = path + "/" + id
			}
			c.do("DELETE", del, nil).must(t, 204)
			nf := c.do("GET", get, nil).must(t, 404)
			if nf["code"] != 5.0 || nf["message"] != "not found" {
				t.Errorf("404 body = %v, want Kong-admin not found", nf)
			}
			c.do("DELETE", del, nil).must(t, 204)
		})
	}
}

// TestUpsertCreatesAndFindsByName: PUT to an unknown UUID creates with that
// id; PUT to a name creates or updates the entity of that name.
func TestUpsertCreatesAndFindsByName(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("upsert", nil)
	id := uuid.NewString()
	got := c.do("PUT", coreURL(cp, "services/"+id), map[string]any{"name": "by-id", "host": "a.example"}).must(t, 200)
	if got["id"] != id {
		t.Fatalf("PUT to a new UUID: id = %v, want %s", got["id"], id)
	}
	byName := c.do("PUT", coreURL(cp, "services/by-name"), map[string]any{"host": "b.example"}).must(t, 200)
	if byName["name"] != "by-name" || !isUUID(byName["id"].(string)) {
		t.Fatalf("PUT by name created %v", byName)
	}
	again := c.do("PUT", coreURL(cp, "services/by-name"), map[string]any{"host": "c.example"}).must(t, 200)
	if again["id"] != byName["id"] || again["host"] != "c.example" {
		t.Fatalf("PUT by name again: %v, want the same entity updated", again)
	}
	if got := c.do("GET", coreURL(cp, "services/by-name"), nil).must(t, 200); got["host"] != "c.example" {
		t.Errorf("GET by name: host = %v", got["host"])
	}
	// A PUT is a replacement: a field left out returns to its default.
	c.do("PUT", coreURL(cp, "services/"+id), map[string]any{"name": "by-id", "host": "a.example", "port": 8080}).must(t, 200)
	reset := c.do("PUT", coreURL(cp, "services/"+id), map[string]any{"name": "by-id", "host": "a.example"}).must(t, 200)
	if reset["port"] != 80.0 {
		t.Errorf("port after replacing PUT = %v, want default 80", reset["port"])
	}
	// Certificates have no name: a non-UUID key is refused.
	c.do("PUT", coreURL(cp, "certificates/not-a-uuid"), kindCases[7].body(t, 0)).must(t, 400)
}

// TestUniqueness: a second entity clashing on a unique field is HTTP 400
// "data constraint error" naming the field (not 409), within one control
// plane only.
func TestUniqueness(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("unique", nil)
	other := c.newCP("unique-other", nil)
	for i, kc := range kindCases {
		if kc.uniqueField == "" {
			continue
		}
		t.Run(kc.collection, func(t *testing.T) {
			c.t = t
			path, _ := c.createPath(cp, kc, i)
			c.do("POST", path, kc.body(t, i)).must(t, 201)
			clash := c.do("POST", path, kc.body(t, i)).must(t, 400)
			if clash["message"] != "data constraint error" {
				t.Fatalf("message = %v, want data constraint error", clash["message"])
			}
			detail := clash["details"].([]any)[0].(map[string]any)
			if !strings.Contains(detail["field"].(string), kc.uniqueField) {
				t.Errorf("field = %v, want it to name %s", detail["field"], kc.uniqueField)
			}
			msgs := detail["messages"].([]any)
			if !strings.Contains(msgs[0].(string), "(type: unique) constraint failed") {
				t.Errorf("messages = %v", msgs)
			}
			otherPath, _ := c.createPath(other, kc, i)
			c.do("POST", otherPath, kc.body(t, i)).must(t, 201)
		})
	}
	t.Run("plugin per scope", func(t *testing.T) {
		c.t = t
		svc := c.do("POST", coreURL(cp, "services"), map[string]any{"name": "scoped", "host": "x"}).must(t, 201)["id"].(string)
		body := map[string]any{"name": "cors", "service": map[string]any{"id": svc}}
		c.do("POST", coreURL(cp, "plugins"), body).must(t, 201)
		c.do("POST", coreURL(cp, "plugins"), body).must(t, 400)
		c.do("POST", coreURL(cp, "plugins"), map[string]any{"name": "cors"}).must(t, 201)
	})
	t.Run("control plane name is 409", func(t *testing.T) {
		c.t = t
		r := c.do("POST", "/v2/control-planes", map[string]any{"name": "unique"})
		body := r.must(t, 409)
		if r.header.Get("Content-Type") != contentProblem || !strings.HasPrefix(body["instance"].(string), "kong:trace:") {
			t.Errorf("409: content type %q, body %v", r.header.Get("Content-Type"), body)
		}
	})
}

// TestParentDeleteRefused: a parent that still has children cannot be
// deleted; once the children are gone it can. Plugins go with their parent.
func TestParentDeleteRefused(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("parents", nil)
	for i, kc := range kindCases {
		if kc.parent == "" {
			continue
		}
		t.Run(kc.parent+" with "+kc.collection, func(t *testing.T) {
			c.t = t
			path, parentID := c.createPath(cp, kc, i)
			child := c.do("POST", path, kc.body(t, i)).must(t, 201)["id"].(string)
			refused := c.do("DELETE", coreURL(cp, kc.parent+"/"+parentID), nil).must(t, 400)
			want := "an existing '" + kc.collection + "' entity references this '" + kc.parent + "' entity"
			if refused["message"] != want {
				t.Errorf("message = %v, want %q", refused["message"], want)
			}
			c.do("GET", coreURL(cp, kc.parent+"/"+parentID), nil).must(t, 200)
			c.do("DELETE", path+"/"+child, nil).must(t, 204)
			c.do("DELETE", coreURL(cp, kc.parent+"/"+parentID), nil).must(t, 204)
		})
	}
	t.Run("plugins cascade with their service", func(t *testing.T) {
		c.t = t
		svc := c.do("POST", coreURL(cp, "services"), map[string]any{"name": "with-plugin", "host": "x"}).must(t, 201)["id"].(string)
		plugin := c.do("POST", coreURL(cp, "services/"+svc+"/plugins"), map[string]any{"name": "cors"}).must(t, 201)["id"].(string)
		c.do("DELETE", coreURL(cp, "services/"+svc), nil).must(t, 204)
		c.do("GET", coreURL(cp, "plugins/"+plugin), nil).must(t, 404)
	})
}

// TestInvalidBodies: missing required fields, wrong types, unknown fields,
// malformed JSON and dangling references are 400 "validation error" (or
// "data constraint error") in Kong-admin form. The OpenAPI violations they
// cause are expected and claimed.
func TestInvalidBodies(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("invalid", nil)
	cases := []struct {
		name, path string
		body       any
		message    string
		field      string
	}{
		{"service without host", "services", map[string]any{"name": "x"}, "validation error", "host"},
		{"port of the wrong type", "services", map[string]any{"host": "x", "port": "eighty"}, "validation error", "port"},
		{"unknown field", "services", map[string]any{"host": "x", "colour": "red"}, "validation error", "colour"},
		{"plugin without name", "plugins", map[string]any{"config": map[string]any{}}, "validation error", "name"},
		{"route without matcher", "routes", map[string]any{"name": "r"}, "validation error", ""},
		{"consumer without username or custom_id", "consumers", map[string]any{"tags": []any{"a"}}, "validation error", ""},
		{"tag with a comma", "consumer_groups", map[string]any{"name": "g", "tags": []any{"a,b"}}, "validation error", "tags"},
		{"malformed JSON", "services", "{not json", "validation error", ""},
		{"route to a missing service", "routes", map[string]any{"paths": []any{"/"}, "service": map[string]any{"id": uuid.NewString()}}, "data constraint error", "service.id"},
		{"SNI without certificate", "snis", map[string]any{"name": "a.example"}, "validation error", "certificate"},
		{"CA certificate that is not a CA", "ca_certificates", map[string]any{"cert": kindCases[7].body(t, 0)["cert"]}, "validation error", "cert"},
		{"vault of an unknown kind", "vaults", map[string]any{"name": "nope", "prefix": "p1"}, "validation error", "name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			body := c.do("POST", coreURL(cp, tc.path), tc.body).must(t, 400)
			if body["code"] != 3.0 || body["message"] != tc.message {
				t.Fatalf("body = %v, want code 3 %q", body, tc.message)
			}
			if tc.field != "" {
				// The field is named in the detail's field, or (for
				// entity-level details) in its message.
				found := false
				for _, d := range body["details"].([]any) {
					detail := d.(map[string]any)
					if strings.Contains(toJSONString(detail["field"])+toJSONString(detail["messages"]), tc.field) {
						found = true
					}
				}
				if !found {
					t.Errorf("details %v do not name %s", body["details"], tc.field)
				}
			}
		})
	}
	_ = ts.TakeViolations()
	if got := ts.Count("org-a"); got != 1 {
		t.Errorf("org holds %d objects after invalid creates, want only the control plane", got)
	}
}

// TestNestedScoping: a nested read only finds the parent's own children.
func TestNestedScoping(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("nested", nil)
	a := c.do("POST", coreURL(cp, "services"), map[string]any{"name": "a", "host": "a"}).must(t, 201)["id"].(string)
	b := c.do("POST", coreURL(cp, "services"), map[string]any{"name": "b", "host": "b"}).must(t, 201)["id"].(string)
	route := c.do("POST", coreURL(cp, "services/a/routes"), map[string]any{"name": "ra", "paths": []any{"/a"}}).must(t, 201)
	if refID(route, "service") != a {
		t.Fatalf("route created under service name a: service = %v", route["service"])
	}
	c.do("GET", coreURL(cp, "services/"+a+"/routes/ra"), nil).must(t, 200)
	c.do("GET", coreURL(cp, "services/"+b+"/routes/"+route["id"].(string)), nil).must(t, 404)
	if n := len(c.do("GET", coreURL(cp, "services/"+b+"/routes"), nil).must(t, 200)["data"].([]any)); n != 0 {
		t.Errorf("service b lists %d routes, want 0", n)
	}
	c.do("GET", coreURL(cp, "services/"+uuid.NewString()+"/routes"), nil).must(t, 404)
	c.do("GET", coreURL(uuid.NewString(), "services"), nil).must(t, 404)
	up := c.do("POST", coreURL(cp, "upstreams"), map[string]any{"name": "u"}).must(t, 201)["id"].(string)
	target := c.do("POST", coreURL(cp, "upstreams/"+up+"/targets"), map[string]any{"target": "10.0.0.1"}).must(t, 201)
	if target["target"] != "10.0.0.1:8000" {
		t.Errorf("target = %v, want the default port added", target["target"])
	}
	c.do("GET", coreURL(cp, "upstreams/u/targets/10.0.0.1:8000"), nil).must(t, 200)
}
