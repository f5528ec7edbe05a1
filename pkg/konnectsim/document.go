package konnectsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"sigs.k8s.io/yaml"
)

// SDKModule is the Go module whose openapi.yaml is Konnect's published API
// document: the one the operator's client is generated from.
const SDKModule = "github.com/Kong/sdk-konnect-go"

// SpecEnv names the environment variable that may point at another copy of
// the OpenAPI document.
const SpecEnv = "KONNECT_OPENAPI_SPEC"

// findSpec resolves Options.SpecPath: an explicit path, else
// $KONNECT_OPENAPI_SPEC, else the openapi.yaml of the SDK module that the
// project requires (found with `go list -m`, from the working directory).
// Not finding one is an error: the simulator never runs unvalidated by
// accident.
func findSpec(explicit string) (string, error) {
	for _, p := range []string{explicit, os.Getenv(SpecEnv)} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("konnectsim: OpenAPI document: %w", err)
		}
		return p, nil
	}
	return sdkSpec()
}

var sdkSpecOnce = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", SDKModule).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		var stderr string
		if exitErr := (*exec.ExitError)(nil); errors.As(err, &exitErr) {
			stderr = strings.TrimSpace(string(exitErr.Stderr))
		}
		if err == nil {
			err = errors.New("no directory")
		}
		return "", fmt.Errorf("konnectsim: cannot find the OpenAPI document of %s (go list -m: %s); run from the project or set %s or --openapi-spec: %w", SDKModule, stderr, SpecEnv, err)
	}
	path := filepath.Join(dir, "openapi.yaml")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("konnectsim: OpenAPI document of %s: %w", SDKModule, err)
	}
	return path, nil
})

// sdkSpec returns the path of the SDK module's openapi.yaml.
func sdkSpec() (string, error) { return sdkSpecOnce() }

// loadDocument reads the OpenAPI document at path and prepares it for
// kin-openapi: only the operations in served ("METHOD /template") are kept,
// with every component they reference, and a 3.1 document is written the 3.0
// way. Konnect's document says 3.1 but marks nullable fields the 3.0 way
// (nullable: true), which a 3.1 validator ignores, so the JSON nulls that
// Konnect really returns would be refused.
func loadDocument(path string, served map[string]bool) (*openapi3.T, error) {
	prepared, err := prepareDocument(path, served)
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(prepared)
	if err != nil {
		return nil, fmt.Errorf("konnectsim: loading %s: %w", path, err)
	}
	return doc, nil
}

func prepareDocument(path string, served map[string]bool) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("konnectsim: %w", err)
	}
	asJSON, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("konnectsim: %s: %w", path, err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(asJSON))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("konnectsim: %s: %w", path, err)
	}
	if err := trimDocument(doc, served); err != nil {
		return nil, fmt.Errorf("konnectsim: %s: %w", path, err)
	}
	if version, _ := doc["openapi"].(string); strings.HasPrefix(version, "3.1") {
		downTo30(doc)
	}
	return json.Marshal(doc)
}
