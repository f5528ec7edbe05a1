// Package konnect is the operator's only way to Kong Konnect.
//
// It wraps the client generated from Konnect's OpenAPI document
// (generated/konnectapi) behind narrow per-entity operations that take and
// return this package's own entity types, so that the generated client can be
// replaced (for example by Kong's official SDK) without touching the
// controllers. Around every request it adds what the controllers rely on:
// server-URL normalisation, bearer authentication, one HTTP client per
// (server URL, token), a client-side rate limiter per organisation that adapts
// to Konnect's RateLimit-* and Retry-After headers, Prometheus metrics, and
// errors classified into types (NotFoundError, ConflictError,
// RateLimitedError, InvalidInputError, AuthError, TransientError) whose text
// does not change between attempts.
package konnect
