package konnect

import "context"

// A user's change to an object goes before everything else the operator
// has to send: the limiter serves calls marked with WithForeground at once
// (in the order they come), and lets every other call (creates of a
// backlog, periodic and drift work, listings) reserve its turn only a
// moment ahead, so that a foreground call never waits behind more than
// backgroundLead worth of them. Both lanes spend the same budget; the
// background uses all that the foreground leaves.

type foregroundKey struct{}

// WithForeground marks the Konnect calls made with ctx as a user's change,
// served before background work at the rate limiter.
func WithForeground(ctx context.Context) context.Context {
	return context.WithValue(ctx, foregroundKey{}, true)
}

// IsForeground reports whether ctx was marked by WithForeground.
func IsForeground(ctx context.Context) bool {
	fg, _ := ctx.Value(foregroundKey{}).(bool)
	return fg
}
