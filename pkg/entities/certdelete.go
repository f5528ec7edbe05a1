package entities

import (
	"context"
	"errors"
	"slices"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Konnect refuses to delete a certificate that is still in use. The
// operator must let a KongCertificate or KongCACertificate go in any order
// relative to what uses it, so these deletes clear the way first, only once
// Konnect has refused:
//
//   - SNIs belong to their certificate and cannot exist without it: they
//     are deleted (their KongSNI objects then report the certificate gone).
//   - Services and upstreams only present a certificate and can exist
//     without it: they are detached from it, keeping everything else. Their
//     objects, which refer to a certificate that is being deleted or gone,
//     report KongCertificateRefValid=False (or KongCACertificateRefsValid)
//     and make no Konnect call until the reference is fixed, so they do not
//     attach it again.

// deleteCertificate deletes certificate id of control plane cp.
func deleteCertificate(ctx context.Context, c *konnect.Client, cp, id string) error {
	err := c.DeleteCertificate(ctx, cp, id)
	if !refusedForChildren(err) {
		return err
	}
	if clearErr := clearCertificateUses(ctx, c, cp, id); clearErr != nil {
		return errors.Join(err, clearErr)
	}
	return c.DeleteCertificate(ctx, cp, id)
}

func clearCertificateUses(ctx context.Context, c *konnect.Client, cp, id string) error {
	snis, err := c.ListSNIs(ctx, cp, konnect.ListFilter{})
	if err != nil {
		return err
	}
	for _, s := range snis {
		if s.CertificateID != id {
			continue
		}
		if err := c.DeleteSNI(ctx, cp, id, s.ID); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	services, err := c.ListServices(ctx, cp, konnect.ListFilter{})
	if err != nil {
		return err
	}
	for _, s := range services {
		if s.ClientCertificateID != id {
			continue
		}
		s.ClientCertificateID = ""
		if err := detachService(ctx, c, cp, s); err != nil {
			return err
		}
	}
	upstreams, err := c.ListUpstreams(ctx, cp, konnect.ListFilter{})
	if err != nil {
		return err
	}
	for _, u := range upstreams {
		if u.ClientCertificateID != id {
			continue
		}
		u.ClientCertificateID = ""
		if _, err := c.UpsertUpstream(ctx, cp, u.ID, u); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// deleteCACertificate deletes CA certificate id of control plane cp.
func deleteCACertificate(ctx context.Context, c *konnect.Client, cp, id string) error {
	err := c.DeleteCACertificate(ctx, cp, id)
	if !refusedForChildren(err) {
		return err
	}
	services, listErr := c.ListServices(ctx, cp, konnect.ListFilter{})
	if listErr != nil {
		return errors.Join(err, listErr)
	}
	for _, s := range services {
		if !slices.Contains(s.CACertificates, id) {
			continue
		}
		s.CACertificates = slices.DeleteFunc(s.CACertificates, func(ca string) bool { return ca == id })
		if err := detachService(ctx, c, cp, s); err != nil {
			return err
		}
	}
	return c.DeleteCACertificate(ctx, cp, id)
}

// detachService writes a service back as read, less a certificate.
func detachService(ctx context.Context, c *konnect.Client, cp string, s konnect.Service) error {
	_, err := c.UpsertService(ctx, cp, s.ID, s)
	if konnect.IsNotFound(err) {
		return nil
	}
	return err
}
