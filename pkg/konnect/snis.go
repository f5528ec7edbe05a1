package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// SNI maps a server name to the certificate served for it.
type SNI struct {
	ID   string   `json:"id,omitempty"`
	Name string   `json:"name"`
	Tags []string `json:"tags,omitempty"`
	// CertificateID is the certificate the SNI belongs to; operations take
	// it as an argument and fill it in on the way back.
	CertificateID string `json:"-"`
}

type sniPlain SNI

type sniJSON struct {
	sniPlain
	Certificate *ref `json:"certificate,omitempty"`
}

// MarshalJSON writes the Konnect wire form (certificate as a reference).
func (s SNI) MarshalJSON() ([]byte, error) {
	return json.Marshal(sniJSON{sniPlain(s), refTo(s.CertificateID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (s *SNI) UnmarshalJSON(data []byte) error {
	var w sniJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*s = SNI(w.sniPlain)
	s.CertificateID = w.Certificate.id()
	return nil
}

var sniKind = kind[SNI]{
	entity: "sni",
	tags:   func(s SNI) []string { return s.Tags },
	name:   func(s SNI) string { return s.Name },
}

// CreateSNI creates an SNI of certificate certificateID.
func (c *Client) CreateSNI(ctx context.Context, cp, certificateID string, s SNI) (SNI, error) {
	op := sniKind.op("create")
	if err := requireIDs(op, "certificate ID", certificateID); err != nil {
		return SNI{}, err
	}
	s.CertificateID = ""
	return writeEntity[SNI, konnectapi.SNIWithoutParents, konnectapi.SNI](ctx, c, op, cp, s,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.SNIWithoutParents) (*http.Response, error) {
			return c.api.CreateSniWithCertificate(ctx, cpID, certificateID, body)
		})
}

// UpsertSNI creates or replaces the SNI with ID id of certificate
// certificateID.
func (c *Client) UpsertSNI(ctx context.Context, cp, certificateID, id string, s SNI) (SNI, error) {
	op := sniKind.op("upsert")
	if err := requireIDs(op, "certificate ID", certificateID, "SNI ID", id); err != nil {
		return SNI{}, err
	}
	s.ID, s.CertificateID = "", ""
	return writeEntity[SNI, konnectapi.SNIWithoutParents, konnectapi.SNI](ctx, c, op, cp, s,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.SNIWithoutParents) (*http.Response, error) {
			return c.api.UpsertSniWithCertificate(ctx, cpID, certificateID, id, body)
		})
}

// GetSNI returns the SNI with ID id of certificate certificateID.
func (c *Client) GetSNI(ctx context.Context, cp, certificateID, id string) (SNI, error) {
	op := sniKind.op("get")
	if err := requireIDs(op, "certificate ID", certificateID, "SNI ID", id); err != nil {
		return SNI{}, err
	}
	return getEntity[SNI, konnectapi.SNI](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetSniWithCertificate(ctx, cpID, certificateID, id)
		})
}

// DeleteSNI deletes the SNI with ID id of certificate certificateID.
func (c *Client) DeleteSNI(ctx context.Context, cp, certificateID, id string) error {
	op := sniKind.op("delete")
	if err := requireIDs(op, "certificate ID", certificateID, "SNI ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteSniWithCertificate(ctx, cpID, certificateID, id)
	})
}

// ListSNIs returns every SNI of cp (of any certificate) that matches f.
func (c *Client) ListSNIs(ctx context.Context, cp string, f ListFilter) ([]SNI, error) {
	return listEntities[SNI, konnectapi.SNI](ctx, c, sniKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListSni(ctx, cpID, &konnectapi.ListSniParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(),
			})
		})
}
