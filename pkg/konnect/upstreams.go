package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// Upstream is a load-balanced virtual host whose targets serve a service.
type Upstream struct {
	ID                       string        `json:"id,omitempty"`
	Name                     string        `json:"name"`
	Algorithm                string        `json:"algorithm,omitempty"`
	HashOn                   string        `json:"hash_on,omitempty"`
	HashOnHeader             string        `json:"hash_on_header,omitempty"`
	HashOnCookie             string        `json:"hash_on_cookie,omitempty"`
	HashOnCookiePath         string        `json:"hash_on_cookie_path,omitempty"`
	HashOnQueryArg           string        `json:"hash_on_query_arg,omitempty"`
	HashOnURICapture         string        `json:"hash_on_uri_capture,omitempty"`
	HashFallback             string        `json:"hash_fallback,omitempty"`
	HashFallbackHeader       string        `json:"hash_fallback_header,omitempty"`
	HashFallbackQueryArg     string        `json:"hash_fallback_query_arg,omitempty"`
	HashFallbackURICapture   string        `json:"hash_fallback_uri_capture,omitempty"`
	HostHeader               string        `json:"host_header,omitempty"`
	Slots                    *int          `json:"slots,omitempty"`
	StickySessionsCookie     string        `json:"sticky_sessions_cookie,omitempty"`
	StickySessionsCookiePath string        `json:"sticky_sessions_cookie_path,omitempty"`
	UseSRVName               *bool         `json:"use_srv_name,omitempty"`
	Healthchecks             *Healthchecks `json:"healthchecks,omitempty"`
	Tags                     []string      `json:"tags,omitempty"`
	// ClientCertificateID is the certificate presented to the targets.
	ClientCertificateID string `json:"-"`
}

// Healthchecks configures active and passive health checks of an upstream.
type Healthchecks struct {
	Active    *ActiveHealthcheck  `json:"active,omitempty"`
	Passive   *PassiveHealthcheck `json:"passive,omitempty"`
	Threshold *float64            `json:"threshold,omitempty"`
}

// ActiveHealthcheck probes targets.
type ActiveHealthcheck struct {
	Type                   string              `json:"type,omitempty"`
	Concurrency            *int                `json:"concurrency,omitempty"`
	Headers                map[string][]string `json:"headers,omitempty"`
	HTTPPath               string              `json:"http_path,omitempty"`
	HTTPSSNI               string              `json:"https_sni,omitempty"`
	HTTPSVerifyCertificate *bool               `json:"https_verify_certificate,omitempty"`
	Timeout                *float64            `json:"timeout,omitempty"`
	Healthy                *ActiveHealthy      `json:"healthy,omitempty"`
	Unhealthy              *ActiveUnhealthy    `json:"unhealthy,omitempty"`
}

// ActiveHealthy says when a probed target counts as healthy.
type ActiveHealthy struct {
	HTTPStatuses []int    `json:"http_statuses,omitempty"`
	Interval     *float64 `json:"interval,omitempty"`
	Successes    *int     `json:"successes,omitempty"`
}

// ActiveUnhealthy says when a probed target counts as unhealthy.
type ActiveUnhealthy struct {
	HTTPFailures *int     `json:"http_failures,omitempty"`
	HTTPStatuses []int    `json:"http_statuses,omitempty"`
	Interval     *float64 `json:"interval,omitempty"`
	TCPFailures  *int     `json:"tcp_failures,omitempty"`
	Timeouts     *int     `json:"timeouts,omitempty"`
}

// PassiveHealthcheck judges targets by the traffic they serve.
type PassiveHealthcheck struct {
	Type      string            `json:"type,omitempty"`
	Healthy   *PassiveHealthy   `json:"healthy,omitempty"`
	Unhealthy *PassiveUnhealthy `json:"unhealthy,omitempty"`
}

// PassiveHealthy says when a serving target counts as healthy.
type PassiveHealthy struct {
	HTTPStatuses []int `json:"http_statuses,omitempty"`
	Successes    *int  `json:"successes,omitempty"`
}

// PassiveUnhealthy says when a serving target counts as unhealthy.
type PassiveUnhealthy struct {
	HTTPFailures *int  `json:"http_failures,omitempty"`
	HTTPStatuses []int `json:"http_statuses,omitempty"`
	TCPFailures  *int  `json:"tcp_failures,omitempty"`
	Timeouts     *int  `json:"timeouts,omitempty"`
}

type upstreamPlain Upstream

type upstreamJSON struct {
	upstreamPlain
	ClientCertificate *ref `json:"client_certificate,omitempty"`
}

// MarshalJSON writes the Konnect wire form (client_certificate as a reference).
func (u Upstream) MarshalJSON() ([]byte, error) {
	return json.Marshal(upstreamJSON{upstreamPlain(u), refTo(u.ClientCertificateID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (u *Upstream) UnmarshalJSON(data []byte) error {
	var w upstreamJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*u = Upstream(w.upstreamPlain)
	u.ClientCertificateID = w.ClientCertificate.id()
	return nil
}

var upstreamKind = kind[Upstream]{
	entity: "upstream",
	tags:   func(u Upstream) []string { return u.Tags },
	name:   func(u Upstream) string { return u.Name },
}

// CreateUpstream creates an upstream in control plane cp.
func (c *Client) CreateUpstream(ctx context.Context, cp string, u Upstream) (Upstream, error) {
	return writeEntity[Upstream, konnectapi.Upstream, konnectapi.Upstream](ctx, c, upstreamKind.op("create"), cp, u,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Upstream) (*http.Response, error) {
			return c.api.CreateUpstream(ctx, cpID, body)
		})
}

// UpsertUpstream creates or replaces the upstream with ID id.
func (c *Client) UpsertUpstream(ctx context.Context, cp, id string, u Upstream) (Upstream, error) {
	op := upstreamKind.op("upsert")
	if err := requireIDs(op, "upstream ID", id); err != nil {
		return Upstream{}, err
	}
	u.ID = ""
	return writeEntity[Upstream, konnectapi.Upstream, konnectapi.Upstream](ctx, c, op, cp, u,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Upstream) (*http.Response, error) {
			return c.api.UpsertUpstream(ctx, cpID, id, body)
		})
}

// GetUpstream returns the upstream with ID (or name) id.
func (c *Client) GetUpstream(ctx context.Context, cp, id string) (Upstream, error) {
	op := upstreamKind.op("get")
	if err := requireIDs(op, "upstream ID", id); err != nil {
		return Upstream{}, err
	}
	return getEntity[Upstream, konnectapi.Upstream](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetUpstream(ctx, cpID, id)
		})
}

// DeleteUpstream deletes the upstream with ID id.
func (c *Client) DeleteUpstream(ctx context.Context, cp, id string) error {
	op := upstreamKind.op("delete")
	if err := requireIDs(op, "upstream ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteUpstream(ctx, cpID, id)
	})
}

// ListUpstreams returns every upstream of cp that matches f.
func (c *Client) ListUpstreams(ctx context.Context, cp string, f ListFilter) ([]Upstream, error) {
	return listEntities[Upstream, konnectapi.Upstream](ctx, c, upstreamKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListUpstream(ctx, cpID, &konnectapi.ListUpstreamParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(),
			})
		})
}
