package e2e

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// patience is how long the suite waits for what takes seconds on an idle
// machine: a Lease taken, a finalizer added or removed, an object
// Programmed, a CRD Established. It decides no verdict (a passing test
// never waits it out) and is long enough for a machine kept busy by other
// work.
const patience = 3 * time.Minute

// eventually polls check every 200ms until it returns nil or timeout
// passes; check's error says why it is not done yet, and the last one
// explains a timeout.
func eventually(ctx context.Context, timeout time.Duration, check func(ctx context.Context) error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		last = check(ctx)
		return last == nil, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("not done after %s: %w", timeout, last)
	}
	return err
}

// waitFor polls check every half second for up to limit and returns nil
// once it does, or its last answer that was not cut short by the deadline.
func waitFor(ctx context.Context, limit time.Duration, check func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("not done after %s: %w", limit, last)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("not done after %s: %w", limit, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
