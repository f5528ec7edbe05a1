package controller

import "sync"

// A kind's listings run listersPerKind at a time, and one at a time per
// organisation. So an organisation whose server stalls (it takes the
// request and never answers, or answers a byte at a time) holds one of
// the kind's listers for as long as the request's timeout, never all of
// them: the other organisations' listings go on. An organisation gains
// nothing from listing more of its scopes at once: its limiter paces
// every request it sends.
const listersPerKind = 4

// listingOrganization names the organisation whose limiter a listing in
// placement p waits for: its server and organisation ID; "" while the
// organisation is not known yet (the listing scope then stands for it).
func listingOrganization(p Placement) string {
	if p.Auth.OrgID == "" {
		return ""
	}
	return p.Auth.ServerURL + " " + p.Auth.OrgID
}

// listingOrgs are the organisations a kind lists now, and the scopes of
// each that wait for that listing to end.
type listingOrgs struct {
	mu      sync.Mutex
	waiting map[string][]string
}

// begin reports whether a listing of plane of org may start: none of
// org's runs. If one does, plane waits for it (see end).
func (o *listingOrgs) begin(org, plane string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.waiting == nil {
		o.waiting = map[string][]string{}
	}
	if waiting, busy := o.waiting[org]; busy {
		o.waiting[org] = append(waiting, plane)
		return false
	}
	o.waiting[org] = nil
	return true
}

// end records that org's listing ended, and returns the scopes that
// waited for it, to be listed now.
func (o *listingOrgs) end(org string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	waiting := o.waiting[org]
	delete(o.waiting, org)
	return waiting
}
