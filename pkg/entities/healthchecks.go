package entities

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/Kong/sdk-konnect-go/models/components"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// healthchecks converts an upstream's health-check settings. The CRD makes
// every scalar of a given block required, so they are all sent; only the
// probe type and path may be empty, and then Konnect's defaults go.
func healthchecks(in *configurationv1alpha1.Healthchecks) *components.Healthchecks {
	if in == nil {
		return nil
	}
	out := &components.Healthchecks{Threshold: &in.Threshold}
	if a := in.Active; a != nil {
		out.Active = &components.Active{
			Type:                   optional(components.UpstreamType(a.Type)),
			Concurrency:            &a.Concurrency,
			Headers:                a.Headers,
			HTTPPath:               optional(a.HTTPPath),
			HTTPSSni:               a.HTTPSSni,
			HTTPSVerifyCertificate: &a.HTTPSVerifyCertificate,
			Timeout:                &a.Timeout,
		}
		if h := a.Healthy; h != nil {
			out.Active.Healthy = &components.Healthy{HTTPStatuses: h.HTTPStatuses, Interval: &h.Interval, Successes: &h.Successes}
		}
		if u := a.Unhealthy; u != nil {
			out.Active.Unhealthy = &components.Unhealthy{
				HTTPFailures: &u.HTTPFailures, HTTPStatuses: u.HTTPStatuses, Interval: &u.Interval,
				TCPFailures: &u.TCPFailures, Timeouts: &u.Timeouts,
			}
		}
	}
	if p := in.Passive; p != nil {
		out.Passive = &components.Passive{Type: optional(components.UpstreamHealthchecksType(p.Type))}
		if h := p.Healthy; h != nil {
			out.Passive.Healthy = &components.UpstreamHealthy{HTTPStatuses: h.HTTPStatuses, Successes: &h.Successes}
		}
		if u := p.Unhealthy; u != nil {
			out.Passive.Unhealthy = &components.UpstreamUnhealthy{
				HTTPFailures: &u.HTTPFailures, HTTPStatuses: u.HTTPStatuses, TCPFailures: &u.TCPFailures, Timeouts: &u.Timeouts,
			}
		}
	}
	return out
}

// defaultHealthchecks is what Konnect fills in for health-check settings
// left unset, as JSON values.
func defaultHealthchecks() map[string]any {
	return map[string]any{
		"active": map[string]any{
			"concurrency": 10.0,
			"healthy":     map[string]any{"http_statuses": []any{200.0, 302.0}, "interval": 0.0, "successes": 0.0},
			"http_path":   "/", "https_verify_certificate": true, "timeout": 1.0, "type": "http",
			"unhealthy": map[string]any{
				"http_failures": 0.0, "http_statuses": []any{429.0, 404.0, 500.0, 501.0, 502.0, 503.0, 504.0, 505.0},
				"interval": 0.0, "tcp_failures": 0.0, "timeouts": 0.0,
			},
		},
		"passive": map[string]any{
			"healthy": map[string]any{
				"http_statuses": []any{
					200.0, 201.0, 202.0, 203.0, 204.0, 205.0, 206.0, 207.0, 208.0, 226.0,
					300.0, 301.0, 302.0, 303.0, 304.0, 305.0, 306.0, 307.0, 308.0,
				},
				"successes": 0.0,
			},
			"type": "http",
			"unhealthy": map[string]any{
				"http_failures": 0.0, "http_statuses": []any{429.0, 500.0, 503.0}, "tcp_failures": 0.0, "timeouts": 0.0,
			},
		},
		"threshold": 0.0,
	}
}

// sameHealthchecks compares two health-check settings with Konnect's
// defaults filled into what either leaves unset.
func sameHealthchecks(a, b *components.Healthchecks) bool {
	return reflect.DeepEqual(withHealthcheckDefaults(a), withHealthcheckDefaults(b))
}

// withHealthcheckDefaults is h as JSON values over Konnect's defaults. The
// SDK's encoding already fills the defaults of the blocks h has; the
// blocks it lacks come from defaultHealthchecks.
func withHealthcheckDefaults(h *components.Healthchecks) map[string]any {
	out := defaultHealthchecks()
	if h == nil {
		return out
	}
	var given map[string]any
	raw, err := json.Marshal(h)
	if err == nil {
		err = json.Unmarshal(raw, &given)
	}
	if err != nil {
		return nil
	}
	overlay(out, given)
	return out
}

// overlay writes src over dst, recursing into objects both have.
func overlay(dst, src map[string]any) {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if base, ok := dst[k].(map[string]any); ok {
				overlay(base, sub)
				continue
			}
		}
		dst[k] = v
	}
}

// HealthchecksSpec states an upstream's health checks as a KongUpstream
// spec does, with Konnect's defaults filled into what h leaves unset: the
// inverse of healthchecks, for kubectl konnect export. It is nil when h is
// nil or holds only Konnect's defaults, which an upstream without
// health checks in its spec gets anyway.
func HealthchecksSpec(h *components.Healthchecks) (*configurationv1alpha1.Healthchecks, error) {
	if h == nil || sameHealthchecks(h, nil) {
		return nil, nil
	}
	raw, err := json.Marshal(withHealthcheckDefaults(h))
	if err != nil {
		return nil, err
	}
	var spec configurationv1alpha1.Healthchecks
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("health checks: %w", err)
	}
	return &spec, nil
}
