package konnect

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
)

// operation names one call for errors ("create service") and metrics
// (operation="create", entity="service").
type operation struct {
	verb   string
	entity string
	// core marks the core-entity API, whose uniqueness violations are
	// answered with 400 instead of 409.
	core bool
}

func (o operation) String() string {
	return o.verb + " " + strings.ReplaceAll(o.entity, "_", " ")
}

type operationKey struct{}

func withOperation(ctx context.Context, op operation) context.Context {
	return context.WithValue(ctx, operationKey{}, op)
}

func operationFrom(ctx context.Context) operation {
	if op, ok := ctx.Value(operationKey{}).(operation); ok {
		return op
	}
	return operation{verb: "unknown", entity: "unknown"}
}

// transportError classifies a request that got no (complete) answer.
func transportError(op operation, err error) error {
	var limited *RateLimitedError
	if errors.As(err, &limited) {
		copied := *limited
		copied.Operation = op.String()
		return &copied
	}
	var held *HeldError
	if errors.As(err, &held) {
		copied := *held
		copied.Operation = op.String()
		return &copied
	}
	var refused *WriteRefusedError
	if errors.As(err, &refused) {
		return &WriteRefusedError{Operation: op.String(), Err: refused.Err}
	}
	if isCancellation(err) {
		// The caller gave up (shutdown); not Konnect's failure.
		return fmt.Errorf("%s: %w", op, context.Canceled)
	}
	if message, ok := tlsTrustMessage(err); ok {
		// A certificate nobody trusts does not heal by retrying; it needs
		// --konnect-ca-file or a different server URL.
		return fmt.Errorf("%s: %s: %w", op, message, err)
	}
	return &TransientError{Operation: op.String(), Message: transportMessage(err), Err: err}
}

// isCancellation reports whether err says that the caller gave up on the
// request, which tells nothing of Konnect.
func isCancellation(err error) bool { return errors.Is(err, context.Canceled) }

// transportMessage describes a transport failure in words that do not change
// between attempts (Go's own texts carry ephemeral local ports).
func transportMessage(err error) string {
	var netErr net.Error
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "request timed out"
	case errors.As(err, &dnsErr):
		return "cannot resolve host " + dnsErr.Name
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before the answer was complete"
	default:
		return "request failed: " + cleanMessage(stripAddresses(err.Error()))
	}
}

func tlsTrustMessage(err error) (string, bool) {
	var unknownAuthority x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var hostname x509.HostnameError
	var verification *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknownAuthority), errors.As(err, &verification):
		return "TLS certificate of the server is not trusted", true
	case errors.As(err, &invalid):
		return "TLS certificate of the server is invalid", true
	case errors.As(err, &hostname):
		return "TLS certificate of the server does not match its host name", true
	}
	return "", false
}

// stripAddresses removes "ip:port->ip:port" pairs from Go's network errors.
func stripAddresses(s string) string {
	fields := strings.Fields(s)
	kept := fields[:0]
	for _, f := range fields {
		if strings.Contains(f, "->") {
			continue
		}
		kept = append(kept, f)
	}
	return strings.Join(kept, " ")
}
