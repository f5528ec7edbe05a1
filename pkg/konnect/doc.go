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
package konnect
