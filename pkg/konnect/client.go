package konnect

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/Kong/sdk-konnect-go/models/operations"
)

// Client talks to one Konnect server with one token. Get one from
// ClientFactory.Client; it is safe for concurrent use.
type Client struct {
	serverURL  string
	tokenHash  string
	factory    *ClientFactory
	httpClient *http.Client
	sdk        API
	// reg is the limiter the client's requests wait for: its token's, then
	// its organisation's.
	reg   atomic.Pointer[registration]
	orgID atomic.Pointer[string]
	// reach holds the organisation's requests while Konnect does not answer
	// them, auth the token's while Konnect rejects it (see hold.go).
	reach atomic.Pointer[hold]
	auth  *hold
	// lastUse is when the factory last handed the client out (its mu
	// guards it).
	lastUse uint64

	// retired is set when Forget drops the client: its token was replaced
	// or its configuration went, and a request that waited for its turn
	// meanwhile is not sent with it.
	retired atomic.Bool

	// mu guards closed, and the moves from one registration to another.
	mu     sync.Mutex
	closed bool
}

// API is Konnect through Kong's SDK, with this client's token, rate limiter
// and metrics.
func (c *Client) API() API { return c.sdk }

// ServerURL is the normalised server URL this client talks to.
func (c *Client) ServerURL() string { return c.serverURL }

// OrganizationID is the organisation Me found for this client's token, or ""
// before Me has succeeded.
func (c *Client) OrganizationID() string {
	if id := c.orgID.Load(); id != nil {
		return *id
	}
	return ""
}

// limiter is the rate limiter the client's requests wait for now.
func (c *Client) limiter() *limiter { return c.registration().limiter }

func (c *Client) registration() *registration { return c.reg.Load() }

// bind moves the client to r, which the caller acquired, and lets go of the
// registration it had. A client already forgotten lets go of r instead.
func (c *Client) bind(r *registration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		c.factory.limiters.release(r)
		return
	}
	c.factory.limiters.release(c.reg.Swap(r))
}

// close lets the client's registration go and closes its idle
// connections; requests in flight finish with the limiter they have.
func (c *Client) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.factory.holds.forgetToken(c.serverURL, c.tokenHash)
	c.factory.limiters.release(c.reg.Load())
	c.httpClient.CloseIdleConnections()
}

// refuseRetired fails a request of a client that Forget dropped while the
// request waited for its turn: the token it would send was replaced (or
// its configuration went). The caller tries again and reads the current
// token.
func (c *Client) refuseRetired(op operation) error {
	if !c.retired.Load() {
		return nil
	}
	return &TransientError{Operation: op.String(), Message: "not sent: the token was replaced while the request waited for its turn"}
}

// Organization is the Konnect organisation a token belongs to.
type Organization struct {
	ID   string
	Name string
}

// Me asks Konnect whose token this client sends (GET /v3/organizations/me),
// which also proves the token valid. From then on the client shares the rate
// limiter of that organisation with every other client of it. An answer
// whose ID is not a UUID (as Konnect's organisation IDs all are) is refused
// before it names a limiter or a metric series.
func (c *Client) Me(ctx context.Context) (Organization, error) {
	op := Operation{Verb: "get", Entity: "organization"}
	res, err := Call(ctx, op, func(ctx context.Context) (*operations.GetOrganizationsMeResponse, error) {
		return c.sdk.Me.GetOrganizationsMe(ctx)
	})
	if err != nil {
		return Organization{}, err
	}
	me := res.MeOrganization
	if me == nil || me.ID == nil || *me.ID == "" {
		return Organization{}, &TransientError{Operation: op.String(), StatusCode: res.StatusCode, Message: "answer has no organisation id"}
	}
	if !isUUID(*me.ID) {
		id, _ := truncateUTF8(*me.ID, 64)
		return Organization{}, &ServerFaultError{Operation: op.String(), Fault: FaultOrganizationID, Server: hostOf(c.serverURL),
			Message: fmt.Sprintf("answered the organisation ID %q, which is not a UUID as Konnect's are", id)}
	}
	org := Organization{ID: *me.ID}
	if me.Name != nil {
		org.Name = *me.Name
	}
	// Rate limits are counted per organisation on each regional server.
	c.bind(c.factory.limiters.organization(c.serverURL, org.ID))
	c.reach.Store(c.factory.holds.organization(c.serverURL, org.ID))
	c.auth.setOrganization(org.ID)
	c.orgID.Store(&org.ID)
	return org, nil
}
