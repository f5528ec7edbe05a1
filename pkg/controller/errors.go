package controller

import (
	"errors"
	"fmt"
	"time"
)

// RateLimitedError asks the loop to retry after a delay without counting a
// failure: Konnect answered 429. A Delay of zero (Konnect named none) backs
// the object off instead: about a second, growing with each 429 in a row.
type RateLimitedError struct {
	Delay time.Duration
	Err   error
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("rate limited, retrying in %s: %v", e.Delay, e.Err)
}

func (e *RateLimitedError) Unwrap() error { return e.Err }

// PermanentError is a failure that retrying will not fix until something
// changes (a spec, a token, a referenced object). The loop does not retry it
// with backoff; it retries once after RetryAfter as a safety net (zero: only
// when an event arrives).
type PermanentError struct {
	RetryAfter time.Duration
	Err        error
}

func (e *PermanentError) Error() string { return e.Err.Error() }

func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as permanent.
func Permanent(err error, retryAfter time.Duration) error {
	if err == nil {
		return nil
	}
	return &PermanentError{RetryAfter: retryAfter, Err: err}
}

// IsPermanent reports whether err is a PermanentError.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

// ReasonError carries the condition reason a kind wants a failure
// reported with.
type ReasonError struct {
	Reason string
	Err    error
}

func (e *ReasonError) Error() string { return e.Err.Error() }

func (e *ReasonError) Unwrap() error { return e.Err }

// WithReason wraps err so that it is reported with reason.
func WithReason(reason string, err error) error {
	if err == nil {
		return nil
	}
	return &ReasonError{Reason: reason, Err: err}
}

// PanicError is a reconcile that panicked, recovered by the loop: Value is
// what was passed to panic and Stack where it happened. It is retried with
// backoff like any failure.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("reconcile panicked: %v", e.Value) }
