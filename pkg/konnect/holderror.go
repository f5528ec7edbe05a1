package konnect

import (
	"errors"
	"fmt"
	"time"
)

// HeldError is a request that was not sent because its organisation (or
// its token) is held: Konnect has not answered it, or rejected its token,
// and a probe asks Konnect at a modest pace whether it does again (see
// hold.go). Waiting for Released, rather than backing off, brings the
// caller back as soon as Konnect answers. It unwraps to the failure that
// started the hold (a *TransientError, or an *AuthError for a rejected
// token), so that callers that tell those apart still can; nothing of the
// request itself happened.
type HeldError struct {
	Operation string
	// ServerURL and Organization say whose requests are held; Organization
	// is "" when the token's organisation is not known yet.
	ServerURL    string
	Organization string
	// Reason is HoldUnreachable or HoldUnauthorized.
	Reason string
	// Since is when the hold began, by the client's clock.
	Since time.Time
	// Cause is the failure that began the hold.
	Cause error

	released <-chan struct{}
}

// Error is what Konnect answered the request that began the hold, as if
// it had answered this one: the same words for every request of the hold,
// so that a condition that quotes it is not written again at each try.
// Describe says the rest.
func (e *HeldError) Error() string {
	var auth *AuthError
	var transient *TransientError
	switch {
	case errors.As(e.Cause, &auth):
		copied := *auth
		copied.Operation = e.Operation
		return copied.Error()
	case errors.As(e.Cause, &transient):
		copied := *transient
		copied.Operation = e.Operation
		return copied.Error()
	}
	return e.Describe()
}

// Describe says what is held, why and since when, in words that stay the
// same for the whole hold (a condition's message).
func (e *HeldError) Describe() string {
	since := e.Since.UTC().Format(time.RFC3339)
	if e.Reason == HoldUnauthorized {
		whose := "a token"
		if e.Organization != "" {
			whose = "the token of organisation " + e.Organization
		}
		return fmt.Sprintf("Konnect at %s has rejected %s since %s (%s); the operator checks it every %s at most and resumes at once when it is valid again or replaced",
			e.ServerURL, whose, since, describeCause(e.Cause), maxProbeDelay)
	}
	whose := "a token's requests"
	if e.Organization != "" {
		whose = "the requests of organisation " + e.Organization
	}
	return fmt.Sprintf("Konnect at %s has not answered %s since %s (%s); the operator asks it every %s at most and resumes at once when it answers",
		e.ServerURL, whose, since, describeCause(e.Cause), maxProbeDelay)
}

// describeCause says what began a hold: Konnect's answer, or why none came.
func describeCause(err error) string {
	var transient *TransientError
	var auth *AuthError
	switch {
	case errors.As(err, &auth):
		return fmt.Sprintf("HTTP %d: %s", auth.StatusCode, auth.Message)
	case errors.As(err, &transient) && transient.StatusCode != 0:
		return fmt.Sprintf("HTTP %d: %s", transient.StatusCode, transient.Message)
	case errors.As(err, &transient):
		return transient.Message
	case err != nil:
		return err.Error()
	}
	return "no answer"
}

func (e *HeldError) Unwrap() error { return e.Cause }

// Released is closed when the hold ends: Konnect answered a probe, or the
// token was replaced.
func (e *HeldError) Released() <-chan struct{} { return e.released }

// IsHeld returns the *HeldError err is or wraps, if any.
func IsHeld(err error) (*HeldError, bool) {
	var held *HeldError
	if errors.As(err, &held) {
		return held, true
	}
	return nil, false
}
