package konnect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTransportErrorsGetStableMessages(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 54321}
	wrap := func(err error) error {
		return &url.Error{Op: "Get", URL: "https://eu.api.konghq.com/v2/x", Err: err}
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "deadline", err: wrap(context.DeadlineExceeded), want: "request timed out"},
		{name: "refused", err: wrap(&net.OpError{Op: "dial", Net: "tcp", Addr: addr, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), want: "connection refused"},
		{name: "reset", err: wrap(&net.OpError{Op: "read", Net: "tcp", Source: addr, Addr: addr, Err: os.NewSyscallError("read", syscall.ECONNRESET)}), want: "connection reset"},
		{name: "cut off", err: wrap(io.ErrUnexpectedEOF), want: "connection closed before the answer was complete"},
		{name: "unknown host", err: wrap(&net.DNSError{Name: "xx.api.konghq.com", Err: "no such host"}), want: "cannot resolve host xx.api.konghq.com"},
		{name: "anything else loses its addresses", err: errors.New("read tcp 127.0.0.1:5555->10.0.0.1:443: something odd"), want: "request failed: read tcp something odd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := transportError(operation{verb: "get", entity: "service"}, tt.err)
			var transient *TransientError
			if !errors.As(err, &transient) {
				t.Fatalf("%v is not transient", err)
			}
			if transient.Message != tt.want {
				t.Fatalf("message = %q, want %q", transient.Message, tt.want)
			}
			if !errors.Is(err, tt.err) {
				t.Fatal("the transport error is not wrapped")
			}
		})
	}
}

func TestLongMessagesAreCutAtACharacter(t *testing.T) {
	long := strings.Repeat("ü", maxMessageLen)
	err := classifyResponse(opCreateService, 400, http.Header{}, []byte(fmt.Sprintf(`{"message":%q}`, long)))
	var invalid *InvalidInputError
	if !errors.As(err, &invalid) {
		t.Fatal(err)
	}
	if len(invalid.Message) > maxMessageLen+len("…") || !strings.HasSuffix(invalid.Message, "…") {
		t.Fatalf("message of %d bytes not cut to %d", len(invalid.Message), maxMessageLen)
	}
	if !utf8.ValidString(invalid.Message) {
		t.Fatal("cut message is not valid UTF-8")
	}
}

func TestRetryAfterAsHTTPDate(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 400_000_000, time.UTC)
	at := now.Add(90 * time.Second).Format(http.TimeFormat) // whole seconds: 10:01:30
	got, named := retryAfter(http.Header{"Retry-After": {at}, "Ratelimit-Reset": {"5"}}, now)
	if !named || got != 89600*time.Millisecond {
		t.Fatalf("Retry-After %q read as %v, want 89.6s", at, got)
	}
}
