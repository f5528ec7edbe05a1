package konnect

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// Certificate is a TLS certificate with its private key (and optionally an
// alternate pair of another key type).
type Certificate struct {
	ID      string   `json:"id,omitempty"`
	Cert    string   `json:"cert"`
	Key     string   `json:"key"`
	CertAlt string   `json:"cert_alt,omitempty"`
	KeyAlt  string   `json:"key_alt,omitempty"`
	SNIs    []string `json:"snis,omitempty"`
	Tags    []string `json:"tags,omitempty"`
}

var certificateKind = kind[Certificate]{
	entity: "certificate",
	tags:   func(c Certificate) []string { return c.Tags },
}

// CreateCertificate creates a certificate in control plane cp.
func (c *Client) CreateCertificate(ctx context.Context, cp string, cert Certificate) (Certificate, error) {
	return writeEntity[Certificate, konnectapi.CertificateRequest, konnectapi.Certificate](ctx, c, certificateKind.op("create"), cp, cert,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.CertificateRequest) (*http.Response, error) {
			return c.api.CreateCertificate(ctx, cpID, body)
		})
}

// UpsertCertificate creates or replaces the certificate with ID id.
func (c *Client) UpsertCertificate(ctx context.Context, cp, id string, cert Certificate) (Certificate, error) {
	op := certificateKind.op("upsert")
	if err := requireIDs(op, "certificate ID", id); err != nil {
		return Certificate{}, err
	}
	cert.ID = ""
	return writeEntity[Certificate, konnectapi.CertificateRequest, konnectapi.Certificate](ctx, c, op, cp, cert,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.CertificateRequest) (*http.Response, error) {
			return c.api.UpsertCertificate(ctx, cpID, id, body)
		})
}

// GetCertificate returns the certificate with ID id.
func (c *Client) GetCertificate(ctx context.Context, cp, id string) (Certificate, error) {
	op := certificateKind.op("get")
	if err := requireIDs(op, "certificate ID", id); err != nil {
		return Certificate{}, err
	}
	return getEntity[Certificate, konnectapi.Certificate](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetCertificate(ctx, cpID, id)
		})
}

// DeleteCertificate deletes the certificate with ID id.
func (c *Client) DeleteCertificate(ctx context.Context, cp, id string) error {
	op := certificateKind.op("delete")
	if err := requireIDs(op, "certificate ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteCertificate(ctx, cpID, id)
	})
}

// ListCertificates returns every certificate of cp that matches f
// (certificates have no name).
func (c *Client) ListCertificates(ctx context.Context, cp string, f ListFilter) ([]Certificate, error) {
	return listEntities[Certificate, konnectapi.Certificate](ctx, c, certificateKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListCertificate(ctx, cpID, &konnectapi.ListCertificateParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(),
			})
		})
}

// CACertificate is a certificate authority trusted to verify upstream
// certificates.
type CACertificate struct {
	ID         string   `json:"id,omitempty"`
	Cert       string   `json:"cert"`
	CertDigest string   `json:"cert_digest,omitempty"`
	Tags       []string `json:"tags,omitempty"`
}

var caCertificateKind = kind[CACertificate]{
	entity: "ca_certificate",
	tags:   func(c CACertificate) []string { return c.Tags },
}

// CreateCACertificate creates a CA certificate in control plane cp.
func (c *Client) CreateCACertificate(ctx context.Context, cp string, cert CACertificate) (CACertificate, error) {
	return writeEntity[CACertificate, konnectapi.CACertificate, konnectapi.CACertificate](ctx, c, caCertificateKind.op("create"), cp, cert,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.CACertificate) (*http.Response, error) {
			return c.api.CreateCaCertificate(ctx, cpID, body)
		})
}

// UpsertCACertificate creates or replaces the CA certificate with ID id.
func (c *Client) UpsertCACertificate(ctx context.Context, cp, id string, cert CACertificate) (CACertificate, error) {
	op := caCertificateKind.op("upsert")
	if err := requireIDs(op, "CA certificate ID", id); err != nil {
		return CACertificate{}, err
	}
	cert.ID = ""
	return writeEntity[CACertificate, konnectapi.CACertificate, konnectapi.CACertificate](ctx, c, op, cp, cert,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.CACertificate) (*http.Response, error) {
			return c.api.UpsertCaCertificate(ctx, cpID, id, body)
		})
}

// GetCACertificate returns the CA certificate with ID id.
func (c *Client) GetCACertificate(ctx context.Context, cp, id string) (CACertificate, error) {
	op := caCertificateKind.op("get")
	if err := requireIDs(op, "CA certificate ID", id); err != nil {
		return CACertificate{}, err
	}
	return getEntity[CACertificate, konnectapi.CACertificate](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetCaCertificate(ctx, cpID, id)
		})
}

// DeleteCACertificate deletes the CA certificate with ID id.
func (c *Client) DeleteCACertificate(ctx context.Context, cp, id string) error {
	op := caCertificateKind.op("delete")
	if err := requireIDs(op, "CA certificate ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteCaCertificate(ctx, cpID, id)
	})
}

// ListCACertificates returns every CA certificate of cp that matches f
// (CA certificates have no name).
func (c *Client) ListCACertificates(ctx context.Context, cp string, f ListFilter) ([]CACertificate, error) {
	return listEntities[CACertificate, konnectapi.CACertificate](ctx, c, caCertificateKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListCaCertificate(ctx, cpID, &konnectapi.ListCaCertificateParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(),
			})
		})
}
