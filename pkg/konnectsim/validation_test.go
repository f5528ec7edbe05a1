package konnectsim

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestRoutesMatchDocument: every operation the simulator serves is one of
// Konnect's document (Kong's SDK's openapi.yaml), under the document's path
// template and operation id.
func TestRoutesMatchDocument(t *testing.T) {
	path, err := findSpec("")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromFile(path)
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
	seen := map[string]bool{}
	for _, rt := range s.routes {
		if seen[rt.key()] {
			t.Errorf("%s routed twice", rt.key())
		}
		seen[rt.key()] = true
		switch op, ok := want[rt.key()]; {
		case !ok:
			t.Errorf("%s is served but not in the document", rt.key())
		case op != rt.operationID:
			t.Errorf("%s: simulator operation %q, document %q", rt.key(), rt.operationID, op)
		}
	}
	if len(seen) < 100 {
		t.Errorf("only %d operations are served", len(seen))
	}
}

// TestDocumentIsTrimmedToTheServedOperations: the validator's document
// holds exactly the served operations, relabelled 3.0.
func TestDocumentIsTrimmedToTheServedOperations(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	path, _ := findSpec("")
	doc, err := loadDocument(path, s.servedOperations())
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi %q, want the 3.0 relabel", doc.OpenAPI)
	}
	got := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			got[method+" "+path] = true
		}
	}
	if !maps.Equal(got, s.servedOperations()) {
		t.Errorf("the document has %d operations, the simulator serves %d", len(got), len(s.servedOperations()))
	}
	if _, err := loadDocument(path, map[string]bool{"GET /no/such/path": true}); err == nil {
		t.Error("an operation that is not in the document was accepted")
	}
}

// TestNoDocumentIsAnError: a simulator that cannot find the document does
// not start, rather than run unvalidated.
func TestNoDocumentIsAnError(t *testing.T) {
	if _, err := New(Options{SpecPath: "/no/such/openapi.yaml"}); err == nil {
		t.Error("New accepted a missing document")
	}
}

// TestViolationsAreRecorded: a request only the document forbids is refused
// and recorded; a response with a status the document does not allow is
// recorded too.
func TestViolationsAreRecorded(t *testing.T) {
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
