package konnectsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestRefusesWhatKonnectRefuses: what Konnect refuses beyond the OpenAPI
// document — a host name with spaces, a regex path that does not compile, a
// word where a plugin wants a number — is refused with Konnect's
// Kong-admin error (400, code 3, a field detail). The TestServer fails the
// test if an answer does not match the document.
func TestRefusesWhatKonnectRefuses(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("refusals", nil)
	svc := c.do("POST", coreURL(cp, "services"), map[string]any{"name": "echo", "host": "echo.example.com"}).must(t, 201)
	svcRef := map[string]any{"id": svc["id"]}
	for _, tc := range []struct {
		name, collection string
		body             map[string]any
		field, message   string
	}{
		{"a host with spaces", "services", map[string]any{"name": "bad", "host": "bad host!!"}, "host", "invalid value: bad host!!"},
		{"a host with a port", "services", map[string]any{"name": "ported", "host": "echo.example.com:8080"}, "host", "must not have a port"},
		{"a regex path that does not compile", "routes", map[string]any{"name": "bad", "paths": []any{"~/api/(unclosed"}, "service": svcRef},
			"paths", "invalid regex: '/api/(unclosed' (PCRE returned: missing closing parenthesis)"},
		{"a route host with a misplaced wildcard", "routes", map[string]any{"name": "wild", "hosts": []any{"api.*.example.com"}, "service": svcRef},
			"hosts", "invalid wildcard: must be placed at leftmost or rightmost label"},
		{"a word for a number", "plugins", map[string]any{"name": "rate-limiting", "config": map[string]any{"minute": "five"}},
			"config.minute", "expected a number"},
		{"a plugin Konnect does not know", "plugins", map[string]any{"name": "rate-limitting", "config": map[string]any{"minute": 5}},
			"name", "plugin 'rate-limitting' not enabled; add it to the 'plugins' configuration property"},
		{"an SNI that is an IP", "snis", map[string]any{"name": "10.0.0.1", "certificate": map[string]any{"id": "00000000-0000-0000-0000-000000000001"}},
			"name", "must not be an IP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			body := c.do("POST", coreURL(cp, tc.collection), tc.body).must(t, 400)
			if body["code"] != float64(codeInvalidArgument) || body["message"] != "validation error" {
				t.Fatalf("body %v, want code 3 and \"validation error\"", body)
			}
			details, _ := body["details"].([]any)
			if len(details) != 1 {
				t.Fatalf("details %v, want one", body["details"])
			}
			d := details[0].(map[string]any)
			messages, _ := d["messages"].([]any)
			if d["type"] != "ERROR_TYPE_FIELD" || d["field"] != tc.field || len(messages) != 1 || messages[0] != tc.message {
				t.Fatalf("detail %v, want ERROR_TYPE_FIELD on %q saying %q", d, tc.field, tc.message)
			}
		})
	}
	if n := len(c.do("GET", coreURL(cp, "services"), nil).must(t, 200)["data"].([]any)); n != 1 {
		t.Fatalf("%d services stored, want only the valid one", n)
	}
}

// TestSamplePluginsAreAccepted: every plugin the samples configure is one
// the simulator checks field by field, and is accepted as shipped, so that
// the checks cover what users start from.
func TestSamplePluginsAreAccepted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "manifests", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	_, c := startSim(t, Options{})
	cp := c.newCP("samples", nil)
	seen := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			var obj struct {
				Kind   string         `json:"kind"`
				Plugin string         `json:"plugin"`
				Config map[string]any `json:"config"`
			}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if obj.Kind != "KongPlugin" && obj.Kind != "KongClusterPlugin" {
				continue
			}
			seen++
			if _, checked := pluginSchemas[obj.Plugin]; !checked {
				t.Errorf("%s configures %s, whose configuration the simulator does not check", filepath.Base(file), obj.Plugin)
			}
			c.t = t
			created := c.do("POST", coreURL(cp, "plugins"), map[string]any{"name": obj.Plugin, "config": obj.Config}).must(t, 201)
			c.do("DELETE", coreURL(cp, "plugins/"+created["id"].(string)), nil).must(t, 204)
		}
	}
	if seen < 3 {
		t.Fatalf("found %d plugins in the samples; the test reads them wrongly", seen)
	}
}
