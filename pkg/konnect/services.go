package konnect

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// Service is a gateway service: the upstream API that routes lead to.
type Service struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	Host     string `json:"host"`
	Port     *int   `json:"port,omitempty"`
	Path     string `json:"path,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	// URL sets protocol, host, port and path at once. It is write-only in
	// Konnect; this package expands it into those fields before sending.
	URL            string   `json:"url,omitempty"`
	Retries        *int     `json:"retries,omitempty"`
	ConnectTimeout *int     `json:"connect_timeout,omitempty"`
	ReadTimeout    *int     `json:"read_timeout,omitempty"`
	WriteTimeout   *int     `json:"write_timeout,omitempty"`
	Enabled        *bool    `json:"enabled,omitempty"`
	TLSVerify      *bool    `json:"tls_verify,omitempty"`
	TLSVerifyDepth *int     `json:"tls_verify_depth,omitempty"`
	TLSSANs        *TLSSANs `json:"tls_sans,omitempty"`
	// CACertificates are the IDs of the CA certificates that verify the
	// upstream's certificate.
	CACertificates []string `json:"ca_certificates,omitempty"`
	// ClientCertificateID is the certificate presented to the upstream.
	ClientCertificateID string   `json:"-"`
	Tags                []string `json:"tags,omitempty"`
}

// TLSSANs are extra subject alternative names accepted on the upstream's
// certificate.
type TLSSANs struct {
	DNSNames []string `json:"dnsnames,omitempty"`
	URIs     []string `json:"uris,omitempty"`
}

type servicePlain Service

type serviceJSON struct {
	servicePlain
	ClientCertificate *ref `json:"client_certificate,omitempty"`
}

// MarshalJSON writes the Konnect wire form (client_certificate as a reference).
func (s Service) MarshalJSON() ([]byte, error) {
	return json.Marshal(serviceJSON{servicePlain(s), refTo(s.ClientCertificateID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (s *Service) UnmarshalJSON(data []byte) error {
	var w serviceJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*s = Service(w.servicePlain)
	s.ClientCertificateID = w.ClientCertificate.id()
	return nil
}

// expandURL replaces URL by the fields it stands for: the generated body
// always carries host, and Konnect would refuse an empty one next to url.
func (s Service) expandURL(op operation) (Service, error) {
	if s.URL == "" || s.Host != "" {
		return s, nil
	}
	raw := s.URL
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return s, invalidInput(op, "service url %q is not an absolute URL", raw)
	}
	s.Protocol, s.Host, s.URL = u.Scheme, u.Hostname(), ""
	if p := u.Port(); p != "" {
		port, err := strconv.Atoi(p)
		if err != nil {
			return s, invalidInput(op, "service url %q has an invalid port", raw)
		}
		s.Port = &port
	}
	if u.Path != "" {
		s.Path = u.Path
	}
	return s, nil
}

var serviceKind = kind[Service]{
	entity: "service",
	tags:   func(s Service) []string { return s.Tags },
	name:   func(s Service) string { return s.Name },
}

// CreateService creates a service in control plane cp.
func (c *Client) CreateService(ctx context.Context, cp string, s Service) (Service, error) {
	op := serviceKind.op("create")
	s, err := s.expandURL(op)
	if err != nil {
		return Service{}, err
	}
	return writeEntity[Service, konnectapi.Service, konnectapi.Service](ctx, c, op, cp, s,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Service) (*http.Response, error) {
			return c.api.CreateService(ctx, cpID, body)
		})
}

// UpsertService creates or replaces the service with ID id.
func (c *Client) UpsertService(ctx context.Context, cp, id string, s Service) (Service, error) {
	op := serviceKind.op("upsert")
	if err := requireIDs(op, "service ID", id); err != nil {
		return Service{}, err
	}
	s, err := s.expandURL(op)
	if err != nil {
		return Service{}, err
	}
	s.ID = ""
	return writeEntity[Service, konnectapi.Service, konnectapi.Service](ctx, c, op, cp, s,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Service) (*http.Response, error) {
			return c.api.UpsertService(ctx, cpID, id, body)
		})
}

// GetService returns the service with ID (or name) id.
func (c *Client) GetService(ctx context.Context, cp, id string) (Service, error) {
	op := serviceKind.op("get")
	if err := requireIDs(op, "service ID", id); err != nil {
		return Service{}, err
	}
	return getEntity[Service, konnectapi.Service](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetService(ctx, cpID, id)
		})
}

// DeleteService deletes the service with ID id. Konnect refuses while
// routes still use it.
func (c *Client) DeleteService(ctx context.Context, cp, id string) error {
	op := serviceKind.op("delete")
	if err := requireIDs(op, "service ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteService(ctx, cpID, id)
	})
}

// ListServices returns every service of cp that matches f.
func (c *Client) ListServices(ctx context.Context, cp string, f ListFilter) ([]Service, error) {
	return listEntities[Service, konnectapi.Service](ctx, c, serviceKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListService(ctx, cpID, &konnectapi.ListServiceParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(), FilterNameEq: p.nameParam(),
			})
		})
}
