package konnect

import (
	"context"
	"fmt"
	"sync"
)

// ListingLimits bound what one listing may cost: a server that answers
// pages without end, or pages that never get shorter, is stopped there
// with a *ServerFaultError (FaultListingTooLong), as is one that names a
// page it already answered (FaultRepeatedPage).
type ListingLimits struct {
	// Entities is the most entities one listing may return.
	Entities int
	// Pages is the most pages one listing may take.
	Pages int
	// Bytes is the most bytes of answers that the listings of one
	// organisation (on one server; or of one token, before its
	// organisation is known) may hold at once: what a hostile server can
	// make one organisation's listings cost the operator's memory,
	// however many run together.
	Bytes int64
}

// DefaultListingLimits are the limits of a client whose Options leave them
// unset: well above the largest control planes (tens of thousands of
// entities; 100,000 of one kind are 100 pages of core entities, 1,000
// pages of control planes), and what 100,000 entities of about 1 KiB take.
var DefaultListingLimits = ListingLimits{Entities: 100_000, Pages: 1_000, Bytes: 128 << 20}

// withDefaults fills the unset limits from DefaultListingLimits.
func (l ListingLimits) withDefaults() ListingLimits {
	if l.Entities <= 0 {
		l.Entities = DefaultListingLimits.Entities
	}
	if l.Pages <= 0 {
		l.Pages = DefaultListingLimits.Pages
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultListingLimits.Bytes
	}
	return l
}

// Listing follows one listing through its pages and stops it at its
// limits. Start one with StartListing, send every page's request with the
// context it returns, count each page's answer with Page, and call Done
// once the listing ends.
type Listing struct {
	op    Operation
	read  *listingRead
	pages int
	count int
	seen  map[string]struct{}
	// atMost, when above zero, is a lower entity limit than the client's,
	// for a collection Konnect keeps small (AtMost).
	atMost int
	// outer is the listing this one is part of, nil for one on its own
	// (see StartListing).
	outer *Listing
}

// StartListing begins a listing as op. Requests sent with the returned
// context read their answers as a listing's pages: up to the client's
// page limit each, counted against the organisation's listing budget until
// Done. A listing started with the context of another is part of it (the
// members of each of a control plane's groups): the entities of all its
// parts count against the entity limit of the whole.
func StartListing(ctx context.Context, op Operation) (context.Context, *Listing) {
	read := &listingRead{charged: map[*registration]int64{}}
	outer, _ := ctx.Value(outerListingKey{}).(*Listing)
	l := &Listing{op: op, read: read, seen: map[string]struct{}{}, outer: outer}
	ctx = context.WithValue(ctx, listingKey{}, read)
	return context.WithValue(ctx, outerListingKey{}, l), l
}

// AtMost lowers the listing's entity limit to entities, for a collection
// that Konnect itself keeps far below the client's limit (an
// organisation's control planes): a server listing more is not Konnect,
// and each entity the listing holds costs memory.
func (l *Listing) AtMost(entities int) { l.atMost = entities }

// Page counts one page of n entities, whose answer names next as the
// following page ("" on the last). It fails once the listing is past its
// limits, or when next is a page the listing already had.
func (l *Listing) Page(n int, next string) error {
	limits, server := l.read.source()
	if l.atMost > 0 {
		limits.Entities = min(limits.Entities, l.atMost)
	}
	l.pages++
	l.count += n
	for outer := l.outer; outer != nil; outer = outer.outer {
		outer.count += n
		if outer.count > limits.Entities {
			return l.fault(FaultListingTooLong, server, fmt.Sprintf("listed more than %d entities in all for %s, the most one listing may hold", limits.Entities, outer.op))
		}
	}
	switch {
	case l.count > limits.Entities:
		return l.fault(FaultListingTooLong, server, fmt.Sprintf("listed more than %d entities, the most one listing may hold", limits.Entities))
	case next == "":
		return nil
	case l.pages >= limits.Pages:
		return l.fault(FaultListingTooLong, server, fmt.Sprintf("had more pages to list after %d pages, the most one listing may take", limits.Pages))
	}
	if _, repeated := l.seen[next]; repeated {
		return l.fault(FaultRepeatedPage, server, fmt.Sprintf("named the page %q as the next one a second time: the listing would never end", next))
	}
	l.seen[next] = struct{}{}
	return nil
}

func (l *Listing) fault(fault Fault, server, message string) error {
	return &ServerFaultError{Operation: l.op.String(), Fault: fault, Server: server, Message: message}
}

// Done ends the listing: what its answers counted against the
// organisation's listing budget is given back.
func (l *Listing) Done() { l.read.release() }

type (
	listingKey      struct{}
	outerListingKey struct{}
)

// listingReadFrom returns the listing a request belongs to, nil for one
// outside a listing.
func listingReadFrom(ctx context.Context) *listingRead {
	read, _ := ctx.Value(listingKey{}).(*listingRead)
	return read
}

// listingRead is what one listing's answers read, counted against the
// budgets of the registrations (organisations) that sent them. The client
// that sends a page tells it its limits and server.
type listingRead struct {
	mu      sync.Mutex
	limits  ListingLimits
	server  string
	charged map[*registration]int64
}

// sentBy records the limits and server of the client that sends the
// listing's requests.
func (r *listingRead) sentBy(limits ListingLimits, server string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limits, r.server = limits, server
}

// source returns the limits and server of the listing's client; the
// defaults when no client told them (a fake).
func (r *listingRead) source() (ListingLimits, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.limits.withDefaults(), r.server
}

// charge counts n bytes read for the listing against owner's budget, and
// fails once the budget is spent.
func (r *listingRead) charge(owner *registration, n int64) error {
	if owner == nil || n == 0 {
		return nil
	}
	r.mu.Lock()
	r.charged[owner] += n
	limits, server := r.limits.withDefaults(), r.server
	r.mu.Unlock()
	if buffered := owner.listingBytes.Add(n); buffered > limits.Bytes {
		return &ServerFaultError{Fault: FaultListingTooLong, Server: server, Message: fmt.Sprintf(
			"answered listings with more than %s, the most the listings of one organisation may hold at once", formatBytes(limits.Bytes))}
	}
	return nil
}

// release gives back what the listing charged.
func (r *listingRead) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for owner, n := range r.charged {
		owner.listingBytes.Add(-n)
	}
	clear(r.charged)
}
