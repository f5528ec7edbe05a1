package konnectsim

import (
	"errors"
	"testing"
)

// TestDirectAccess: tests can read, write and delete behind the API's back,
// and the API sees it.
func TestDirectAccess(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("direct", nil)
	if cps := ts.ControlPlanes("org-a"); len(cps) != 1 || cps[0]["id"] != cp {
		t.Fatalf("ControlPlanes = %v", cps)
	}
	svc := c.do("POST", coreURL(cp, "services"), map[string]any{"name": "s", "host": "x", "tags": []any{"t"}}).must(t, 201)
	svcID := svc["id"].(string)

	// Drift made outside the operator: the API returns it.
	drifted := ts.Entities("org-a", cp, "services")[0]
	drifted["host"] = "drifted.example"
	if err := ts.PutEntity("org-a", cp, "services", drifted); err != nil {
		t.Fatal(err)
	}
	if got := c.do("GET", coreURL(cp, "services/"+svcID), nil).must(t, 200); got["host"] != "drifted.example" {
		t.Errorf("host after PutEntity = %v", got["host"])
	}
	// Changing a returned copy does not change the store.
	ts.Entities("org-a", cp, "services")[0]["host"] = "not stored"
	if got := ts.Entities("org-a", cp, "services")[0]["host"]; got != "drifted.example" {
		t.Errorf("Entities returned a live object: host = %v", got)
	}
	// A new entity put directly is listed by its tag and gets an id.
	if err := ts.PutEntity("org-a", cp, "key-auth", map[string]any{"key": "k", "consumer": map[string]any{"id": "c"}, "tags": []any{"t"}}); err != nil {
		t.Fatal(err)
	}
	if n := len(c.do("GET", coreURL(cp, "key-auths?tags=t"), nil).must(t, 200)["data"].([]any)); n != 1 {
		t.Errorf("key-auths with tag t = %d, want 1", n)
	}
	// Deleting out of band ignores the parent/child rule and takes children along.
	c.do("POST", coreURL(cp, "services/"+svcID+"/routes"), map[string]any{"paths": []any{"/"}}).must(t, 201)
	if err := ts.DeleteEntity("org-a", cp, "services", svcID); err != nil {
		t.Fatal(err)
	}
	if n := len(ts.Entities("org-a", cp, "routes")); n != 0 {
		t.Errorf("%d routes left after deleting their service out of band", n)
	}
	c.do("GET", coreURL(cp, "services/"+svcID), nil).must(t, 404)
	if err := ts.DeleteEntity("org-a", cp, "services", svcID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting twice: %v, want ErrNotFound", err)
	}
	if err := ts.PutEntity("org-a", cp, "gizmos", map[string]any{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown collection: %v, want ErrNotFound", err)
	}
	if n := ts.Count("org-a"); n != 2 {
		t.Errorf("Count = %d, want the control plane and the key-auth", n)
	}
	if ts.Count("no-such-org") != 0 || ts.ControlPlanes("no-such-org") != nil {
		t.Error("unknown organisation is not empty")
	}
}
