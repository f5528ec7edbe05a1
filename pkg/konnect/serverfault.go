package konnect

import (
	"errors"
	"net/url"
)

// Fault names what was wrong with an answer the operator refused
// (ServerFaultError).
type Fault string

// The faults of an answer no Konnect gives.
const (
	// FaultBodyTooLarge: the answer's body was longer than the client's
	// MaxResponseBytes.
	FaultBodyTooLarge Fault = "BodyTooLarge"
	// FaultListingTooLong: a listing went on past the client's
	// ListingLimits (pages, entities or bytes).
	FaultListingTooLong Fault = "ListingTooLong"
	// FaultRepeatedPage: a listing named, as its next page, a page it had
	// already answered.
	FaultRepeatedPage Fault = "RepeatedPage"
	// FaultOrganizationID: /v3/organizations/me answered an organisation
	// ID that is not a UUID, as Konnect's all are.
	FaultOrganizationID Fault = "InvalidOrganizationID"
)

// ServerFaultError is an answer that no Konnect gives and that the client
// refuses to take in: a body larger than it reads, a listing that does not
// end within its limits or that goes round in circles, an organisation ID
// of the wrong shape. Any server an auth configuration names may be
// hostile, so these are bounds on what one server can cost the operator,
// not guesses at Konnect's bugs. The same request would be answered the
// same way: callers try again no sooner than a sync period, and report it
// on the objects it concerns.
type ServerFaultError struct {
	Operation string
	Fault     Fault
	// Server is the host that answered.
	Server  string
	Message string
}

func (e *ServerFaultError) Error() string {
	server := "the server"
	if e.Server != "" {
		server += " " + e.Server
	}
	return formatError(e.Operation, "answer refused", 0, server+" "+e.Message, nil)
}

// IsServerFault reports whether err is (or wraps) a *ServerFaultError.
func IsServerFault(err error) bool {
	var target *ServerFaultError
	return errors.As(err, &target)
}

// serverFault returns the *ServerFaultError err wraps, labelled as op, or
// nil.
func serverFault(op operation, err error) error {
	var fault *ServerFaultError
	if !errors.As(err, &fault) {
		return nil
	}
	copied := *fault
	copied.Operation = op.String()
	return &copied
}

// isUUID reports whether s is a UUID in its canonical form (36 characters,
// hex digits in groups of 8-4-4-4-12), as Konnect writes its IDs.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHexDigit(c) {
				return false
			}
		}
	}
	return true
}

func isHexDigit(c rune) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hostOf is the host of a normalised server URL.
func hostOf(serverURL string) string {
	if u, err := url.Parse(serverURL); err == nil {
		return u.Host
	}
	return serverURL
}
