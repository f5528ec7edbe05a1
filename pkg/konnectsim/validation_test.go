package konnectsim

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func requireSpec(t *testing.T) string {
	t.Helper()
	path, err := findSpec("")
	if err != nil || path == "" {
		t.Skipf("OpenAPI document not found (set %s): %v", SpecEnv, err)
	}
	return path
}

// TestRoutesMatchDocument: the simulator serves exactly the document's
// operations, under the document's path templates and operation ids.
func TestRoutesMatchDocument(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile(requireSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			want[method+" "+path] = op.OperationID
		}
	}
	s, err := New(Options{NoValidation: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, rt := range s.routes {
		if _, dup := got[rt.key()]; dup {
			t.Errorf("%s routed twice", rt.key())
		}
		got[rt.key()] = rt.operationID
	}
	for key, op := range want {
		if got[key] != op {
			t.Errorf("%s: simulator operation %q, document %q", key, got[key], op)
		}
	}
	for key := range got {
		if _, ok := want[key]; !ok {
			t.Errorf("%s is served but not in the document", key)
		}
	}
}

// TestViolationsAreRecorded: a request only the document forbids is refused
// and recorded; a response with a status the document does not allow is
// recorded too.
func TestViolationsAreRecorded(t *testing.T) {
	requireSpec(t)
	ts, c := startSim(t, Options{})
	cp := c.newCP("violations", nil)
	c.do("POST", coreURL(cp, "services"), map[string]any{"host": "x", "tls_verify_depth": 100}).must(t, 400)
	ts.Faults().Set("get-control-plane", Fault{Status: 418, Times: 1})
	c.do("GET", "/v2/control-planes/"+cp, nil).must(t, 418)
	got := ts.TakeViolations()
	if len(got) != 2 {
		t.Fatalf("violations = %v, want one request and one response violation", got)
	}
	var first, second *Violation
	if !errors.As(got[0], &first) || !errors.As(got[1], &second) {
		t.Fatalf("violations are not *Violation: %T %T", got[0], got[1])
	}
	if first.Response || first.Operation != "POST "+core+"/services" || !second.Response || second.Status != 418 {
		t.Errorf("violations = %+v, %+v", first, second)
	}
	if len(ts.Violations()) != 0 {
		t.Error("TakeViolations did not forget what it returned")
	}
}

// TestRunsWithoutDocument: routing and behaviour do not depend on the document.
func TestRunsWithoutDocument(t *testing.T) {
	ts, c := startSim(t, Options{NoValidation: true})
	if ok, _ := ts.Validating(); ok {
		t.Fatal("validating with NoValidation")
	}
	cp := c.newCP("plain", nil)
	c.do("POST", coreURL(cp, "services"), map[string]any{"name": "s", "host": "x"}).must(t, 201)
	c.do("POST", coreURL(cp, "services"), map[string]any{"name": "s", "host": "x"}).must(t, 400)
	c.do("POST", coreURL(cp, "services"), map[string]any{"host": 5}).must(t, 400)
	c.do("GET", coreURL(cp, "services/s"), nil).must(t, 200)
}

// fakeTB records what Start reports at cleanup.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) runCleanups() {
	for _, fn := range slices.Backward(f.cleanups) {
		fn()
	}
}

// TestStartFailsTestOnViolations: unclaimed violations fail the test at
// cleanup; valid traffic leaves none.
func TestStartFailsTestOnViolations(t *testing.T) {
	requireSpec(t)
	for _, tc := range []struct {
		name       string
		body       map[string]any
		wantErrors int
	}{
		{"valid traffic", map[string]any{"name": "ok-name"}, 0},
		{"invalid request", map[string]any{"name": "ok-name", "cluster_type": "NOPE"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ftb := &fakeTB{TB: t}
			ts := Start(ftb, Options{Tokens: map[string]string{testToken: "org"}})
			newClient(t, ts, testToken).do("POST", "/v2/control-planes", tc.body)
			ftb.runCleanups()
			if len(ftb.errors) != tc.wantErrors {
				t.Errorf("errors at cleanup = %v, want %d", ftb.errors, tc.wantErrors)
			}
		})
	}
}
