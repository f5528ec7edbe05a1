// Package metricsauth protects an HTTP endpoint (the operator's /metrics)
// the way Kubernetes components protect theirs: the caller's bearer token
// is checked with a TokenReview, and what it may do with a
// SubjectAccessReview for the request's path as a non-resource URL, both
// answered by the API server. Decisions are cached briefly, so that a
// scrape every few seconds costs the API server nothing most of the time.
package metricsauth
