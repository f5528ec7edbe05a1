package konnect

import (
	"sync"
	"sync/atomic"

	"k8s.io/utils/clock"
)

// unknownOrganization labels what a token's limiter reports before Konnect
// has said whose token it is.
const unknownOrganization = "unknown"

// The limiters live as long as a client uses them. Every client has
// acquired one registration: its token's until Me tells its organisation, then its
// organisation's, which every client of the organisation (on the same
// server) shares. A registration whose last client is forgotten goes, with
// its organisation's metric series. So the limiters never outnumber the
// clients, which Options.MaxClients bounds; what a server claims (any
// number of organisation IDs, one after the other) costs nothing once no
// client uses it.

// registration is one limiter of the registry and what counts against it.
type registration struct {
	key     string
	limiter *limiter
	// organization is the organisation ID, "" for a token's limiter.
	organization string
	// clients counts the clients that acquired it and have not released it
	// yet; the registry's mu guards it.
	clients int
	// listingBytes is what the listings of its clients read and still keep
	// in memory (see listingRead).
	listingBytes atomic.Int64
}

// limiters hands out the shared limiter of each organisation (on each
// regional server), and of each token before its organisation is known,
// and drops each once no client uses it.
type limiters struct {
	clock             clock.Clock
	requestsPerSecond float64
	burst             int
	metrics           *Metrics
	// dropped, when set, is told the key of each registration that goes,
	// after the registry's lock is let go.
	dropped func(key string)

	mu    sync.Mutex
	byKey map[string]*registration
}

// organization returns the registration of an organisation on a server,
// acquired once more: the caller releases it.
func (ls *limiters) organization(serverURL, orgID string) *registration {
	return ls.acquire("org:"+serverURL+"/"+orgID, orgID)
}

// token returns the registration of a token (by its hash) whose
// organisation is not known yet, acquired once more: the caller releases
// it.
func (ls *limiters) token(serverURL, tokenHash string) *registration {
	return ls.acquire("token:"+serverURL+"/"+tokenHash, "")
}

// acquire counts one more client of the registration under key, made (with
// its limiter and, of an organisation, its metric series) for the first.
func (ls *limiters) acquire(key, organization string) *registration {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if r, ok := ls.byKey[key]; ok {
		r.clients++
		return r
	}
	if ls.byKey == nil {
		ls.byKey = map[string]*registration{}
	}
	label, report := organization, organization != ""
	if !report {
		label = unknownOrganization
	}
	l := newLimiter(ls.clock, ls.requestsPerSecond, ls.burst)
	l.metrics, l.organization, l.report = ls.metrics, label, report
	if report {
		ls.metrics.retainOrganization(organization)
		ls.metrics.setLimiterRate(organization, l.currentRate())
		ls.metrics.initDeferrals(organization)
	}
	ls.metrics.track(l)
	r := &registration{key: key, limiter: l, organization: organization, clients: 1}
	ls.byKey[key] = r
	return r
}

// release lets go of one acquisition of r; the last one drops its limiter and, of
// an organisation, its metric series (when no other server's limiter of
// the same organisation keeps them).
func (ls *limiters) release(r *registration) {
	if r == nil {
		return
	}
	if ls.releaseLocked(r) && ls.dropped != nil {
		ls.dropped(r.key)
	}
}

// releaseLocked is release under the registry's lock; it reports whether
// r went.
func (ls *limiters) releaseLocked(r *registration) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	r.clients--
	if r.clients > 0 || ls.byKey[r.key] != r {
		return false
	}
	delete(ls.byKey, r.key)
	ls.metrics.untrack(r.limiter)
	if r.organization != "" {
		ls.metrics.releaseOrganization(r.organization)
	}
	return true
}

// count is how many limiters the registry has.
func (ls *limiters) count() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.byKey)
}
