package entities

import (
	"encoding/json"
	"reflect"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// healthchecks converts an upstream's health-check settings. The CRD makes
// every scalar of a given block required, so they are all sent.
func healthchecks(in *configurationv1alpha1.Healthchecks) *konnect.Healthchecks {
	if in == nil {
		return nil
	}
	threshold := in.Threshold
	out := &konnect.Healthchecks{Threshold: &threshold}
	if a := in.Active; a != nil {
		out.Active = &konnect.ActiveHealthcheck{
			Type:                   a.Type,
			Concurrency:            intOf(a.Concurrency),
			Headers:                a.Headers,
			HTTPPath:               a.HTTPPath,
			HTTPSSNI:               deref(a.HTTPSSni),
			HTTPSVerifyCertificate: &a.HTTPSVerifyCertificate,
			Timeout:                &a.Timeout,
		}
		if h := a.Healthy; h != nil {
			out.Active.Healthy = &konnect.ActiveHealthy{HTTPStatuses: ints(h.HTTPStatuses), Interval: &h.Interval, Successes: intOf(h.Successes)}
		}
		if u := a.Unhealthy; u != nil {
			out.Active.Unhealthy = &konnect.ActiveUnhealthy{
				HTTPFailures: intOf(u.HTTPFailures), HTTPStatuses: ints(u.HTTPStatuses), Interval: &u.Interval,
				TCPFailures: intOf(u.TCPFailures), Timeouts: intOf(u.Timeouts),
			}
		}
	}
	if p := in.Passive; p != nil {
		out.Passive = &konnect.PassiveHealthcheck{Type: p.Type}
		if h := p.Healthy; h != nil {
			out.Passive.Healthy = &konnect.PassiveHealthy{HTTPStatuses: ints(h.HTTPStatuses), Successes: intOf(h.Successes)}
		}
		if u := p.Unhealthy; u != nil {
			out.Passive.Unhealthy = &konnect.PassiveUnhealthy{
				HTTPFailures: intOf(u.HTTPFailures), HTTPStatuses: ints(u.HTTPStatuses),
				TCPFailures: intOf(u.TCPFailures), Timeouts: intOf(u.Timeouts),
			}
		}
	}
	return out
}

func intOf(v int64) *int {
	i := int(v)
	return &i
}

func ints(in []int64) []int {
	if in == nil {
		return nil
	}
	out := make([]int, len(in))
	for i, v := range in {
		out[i] = int(v)
	}
	return out
}

// defaultHealthchecks is what Konnect fills in for health-check settings
// left unset.
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
func sameHealthchecks(a, b *konnect.Healthchecks) bool {
	return reflect.DeepEqual(withHealthcheckDefaults(a), withHealthcheckDefaults(b))
}

func withHealthcheckDefaults(h *konnect.Healthchecks) map[string]any {
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
