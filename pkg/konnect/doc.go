// Package konnect is the operator's only way to Kong Konnect, on Kong's
// official Go SDK (github.com/Kong/sdk-konnect-go).
//
// It adds only what the SDK does not do: server-URL normalisation; one SDK
// per (server URL, token), reused, with the operator's http.Client (extra CA
// trust, timeouts, keep-alive) and the SDK's own retries off, since the work
// queues retry; bearer authentication; a client-side rate limiter per
// organisation that follows Konnect's RateLimit-* and Retry-After headers;
// Prometheus metrics; paging through whole collections (ListAll); bounds on
// what any server can make a client hold, since a server an auth
// configuration names may not be Konnect (answers read through a limit,
// listings stopped at theirs, organisation IDs checked, limiters and series
// released with their last client); and errors classified into types
// (NotFoundError, ConflictError, RateLimitedError, InvalidInputError,
// AuthError, TransientError, ServerFaultError) whose text does not change
// between attempts. API gathers the SDK's narrow per-entity interfaces, which
// are all that the kinds in pkg/entities depend on.
//
// Where things are: ClientFactory (clientfactory.go) hands out clients
// (client.go), whose requests go through doer.go (limiter, authentication,
// metrics, the answer's rate-limit headers, ratelimitheaders.go) and are
// classified in call.go, transport.go and errordecode.go. The limiter of an
// organisation (limiter.go, shared through limiterregistry.go) paces
// requests in one bucket, gives a call that may not wait a later turn
// instead (turns.go, admission.go), serves a user's change first
// (foreground.go), caps the requests in flight (inflight.go) and backs off
// on 429s that name no delay (congestion.go). An organisation or token
// Konnect stops answering or rejects is held (hold.go, holds.go,
// holdprobe.go, holderror.go): its requests are refused without being sent
// until a probe is answered. Listings page through collections (pages.go)
// within bounds on what they hold (listing.go, bodylimit.go), and writes
// pass the write fence of leader election (writefence.go).
package konnect
