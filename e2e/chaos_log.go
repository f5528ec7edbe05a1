package e2e

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// waitWrites polls the simulator's log until it holds n writes since t.
func (w *chaosWorld) waitWrites(ctx context.Context, t time.Time, n int) {
	w.t.Helper()
	err := eventually(ctx, convergeLimit, func(ctx context.Context) error {
		if got := w.writesSince(ctx, t); got < n {
			return fmt.Errorf("%d writes to Konnect so far", got)
		}
		return nil
	})
	if err != nil {
		w.t.Fatalf("waiting for %d writes to Konnect: %v", n, err)
	}
}

// writesSince counts the Konnect writes (anything but GET) that started
// after t: work that was left when something happened at t.
func (w *chaosWorld) writesSince(ctx context.Context, t time.Time) int {
	w.t.Helper()
	log, err := w.requests(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	n := 0
	for _, r := range log {
		if r.Method != http.MethodGet && r.Time.After(t) {
			n++
		}
	}
	return n
}

// checkNoViolations fails the test for every OpenAPI violation the
// world's simulator saw.
func (w *chaosWorld) checkNoViolations(ctx context.Context) {
	violations, err := w.sim.violations(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, v := range violations {
		w.t.Error(v)
	}
}

// requests returns the simulator's request log.
func (w *chaosWorld) requests(ctx context.Context) ([]simRequest, error) {
	var out []simRequest
	err := w.sim.get(ctx, "/_sim/requests", false, &out)
	return out, err
}

// simRequest is one entry of the simulator's request log.
type simRequest struct {
	Method      string    `json:"method"`
	OperationID string    `json:"operationId"`
	Status      int       `json:"status"`
	Time        time.Time `json:"time"`
}
