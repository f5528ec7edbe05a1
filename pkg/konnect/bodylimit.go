package konnect

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// What one answer may cost. Every body the client reads (through Kong's
// SDK or the PageReader) goes through limitedBody, so that a server that
// answers without end, or slowly, costs at most these bytes per request,
// and fails the request with a *ServerFaultError instead of growing the
// operator's memory.
const (
	// DefaultMaxPageBytes bounds one page of a listing. Konnect's largest
	// page holds 1,000 core entities; the largest of those are
	// certificates (a chain and its key, PEM: a few KiB; twice that with
	// the alternative pair) and plugins with large configurations (an
	// OpenID Connect plugin with every default written out is about
	// 8 KiB). 8 MiB holds 1,000 entities of 8 KiB each; a page that is
	// larger still is asked again at a tenth of the size (see ListAll),
	// so that 80 KiB entities are listed too.
	DefaultMaxPageBytes = 8 << 20
	// DefaultMaxAnswerBytes bounds every other answer: one entity, or an
	// error. The largest entity is a certificate with a long chain or a
	// plugin with a long configuration, tens of KiB.
	DefaultMaxAnswerBytes = 1 << 20
)

// limitedBody is an answer's body read through a limit: once more than
// limit bytes have come, Read fails with a *ServerFaultError and the
// connection is closed without reading the rest. Bytes read for a listing
// are counted against its organisation's budget (listingRead). The body's
// end (read to its end, failed or closed) ends the request's time in
// flight; so does the request's timeout, should the body's reader never
// close it.
type limitedBody struct {
	body      io.ReadCloser
	remaining int64
	limit     int64
	server    string
	listing   *listingRead
	owner     *registration
	finished  func()
	backstop  *time.Timer

	mu  sync.Mutex
	err error
}

// limitBody wraps resp's body in the limit that applies to it: a page's,
// when the request belongs to a listing, else an answer's. An answer whose
// Content-Length says it is too large is refused without reading it.
// finished is called once the body has been read, failed or closed.
func (d *doer) limitBody(resp *http.Response, listing *listingRead, finished func()) error {
	limit := d.limits.answerBytes
	if listing != nil {
		limit = d.limits.pageBytes
	}
	if resp.ContentLength > limit {
		_ = resp.Body.Close()
		return bodyTooLarge(d.server.Host, limit)
	}
	b := &limitedBody{body: resp.Body, remaining: limit, limit: limit, server: d.server.Host, listing: listing, owner: d.client.registration(), finished: finished}
	b.backstop = time.AfterFunc(d.client.httpClient.Timeout, finished)
	resp.Body = b
	return nil
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if err := b.failed(); err != nil {
		return 0, err
	}
	// One byte more than allowed tells a body that is too long from one
	// that ends at the limit.
	if int64(len(p)) > b.remaining+1 {
		p = p[:b.remaining+1]
	}
	n, err := b.body.Read(p)
	if int64(n) > b.remaining {
		return int(b.remaining), b.fail(bodyTooLarge(b.server, b.limit))
	}
	b.remaining -= int64(n)
	if b.listing != nil {
		if cerr := b.listing.charge(b.owner, int64(n)); cerr != nil {
			return n, b.fail(cerr)
		}
	}
	if err != nil {
		b.finish() // the end, or a broken connection
	}
	return n, err
}

func (b *limitedBody) failed() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// fail ends the body with err and drops the connection: the rest of the
// answer is never read.
func (b *limitedBody) fail(err error) error {
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
	_ = b.body.Close()
	b.finish()
	return err
}

func (b *limitedBody) Close() error {
	b.mu.Lock()
	failed := b.err != nil
	if !failed {
		b.err = http.ErrBodyReadAfterClose
	}
	b.mu.Unlock()
	if failed {
		return nil // closed already
	}
	defer b.finish()
	return b.body.Close()
}

// finish ends the request's time in flight (once: finished is
// idempotent).
func (b *limitedBody) finish() {
	b.backstop.Stop()
	b.finished()
}

func bodyTooLarge(server string, limit int64) error {
	return &ServerFaultError{Fault: FaultBodyTooLarge, Server: server,
		Message: fmt.Sprintf("answered with a body larger than %s, more than any answer of Konnect's; the rest was not read", formatBytes(limit))}
}

// formatBytes writes a limit as people read it ("8 MiB").
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
