// Package konnectsim is an in-memory Kong Konnect: the control-plane,
// group-membership, DP-certificate, organisation and core-entity APIs the
// operator uses, with Konnect's status codes, error bodies, uniqueness
// rules, parent/child delete refusals, tag filters, pagination, upserts,
// token checks and per-organisation rate limits.
//
// Every request and response is validated against Konnect's OpenAPI
// document: the openapi.yaml that ships in Kong's SDK module (or one named
// by Options.SpecPath or $KONNECT_OPENAPI_SPEC), trimmed to the operations
// the simulator serves and read as OpenAPI 3.0. Violations are recorded
// (Server.Violations) and Start fails the test on any that the test did not
// claim with TakeViolations. Routing never depends on the document.
//
// Tests use Start, which serves the simulator over HTTPS on loopback:
//
//	ts := konnectsim.Start(t, konnectsim.Options{Tokens: map[string]string{"kpat_…": "org-a"}})
//	// ts.URL, ts.CAPool for the client; ts.Calls(), ts.Entities(…) to assert.
//
// Options.Latency makes every answer as late as Konnect's across a network,
// whatever the faults. Faults (Server.Faults) inject error statuses (429s among them, bare as
// from Konnect's connection-level limiter), latency, hangs and forced 429s
// per operation; Server.Served counts the 429s, 5xx and hangs served, so
// that tests can check their faults happened. Server.SetHostile makes it
// answer as a server that only pretends to be Konnect would (pages without
// end, bodies without end, requests never answered, organisation IDs of any
// shape), and Server.HostileServed counts what that did. Tokens are issued
// and revoked while clients run (Server.AddToken, Server.RevokeToken), and
// the request log tells the tokens of requests apart (Credential) and names
// the client (its User-Agent). Call counters, served faults, the request
// log, faults, hostility and tokens are also reachable over HTTP under
// /_sim/ (not part of Konnect's API, never validated nor rate limited).
// cmd/konnect-simulator serves the same
// handler as a standalone binary.
package konnectsim
