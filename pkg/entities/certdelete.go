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
		if err := detachService(ctx, c, cp, s, withoutClientCertificate(id)); err != nil {
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
		if err := detachService(ctx, c, cp, s, withoutCACertificate(id)); err != nil {
			return err
		}
	}
	return c.DeleteCACertificate(ctx, cp, id)
}

// withoutClientCertificate drops client certificate id from a service.
func withoutClientCertificate(id string) func(*konnect.Service) bool {
	return func(s *konnect.Service) bool {
		if s.ClientCertificateID != id {
			return false
		}
		s.ClientCertificateID = ""
		return true
	}
}

// withoutCACertificate drops CA certificate id from a service.
func withoutCACertificate(id string) func(*konnect.Service) bool {
	return func(s *konnect.Service) bool {
		if !slices.Contains(s.CACertificates, id) {
			return false
		}
		s.CACertificates = slices.DeleteFunc(s.CACertificates, func(ca string) bool { return ca == id })
		return true
	}
}

// detachAttempts bounds how often a detach is tried on a fresh read.
const detachAttempts = 3

// detachService writes service s back as read, less a certificate: drop
// removes it and reports whether s used it. Another detach may rewrite the
// same service meanwhile (a certificate and a CA certificate deleted
// together, each writing back what it read): Konnect then refuses the write
// that names the certificate already gone, and the detach is tried again on
// a fresh read.
func detachService(ctx context.Context, c *konnect.Client, cp string, s konnect.Service, drop func(*konnect.Service) bool) error {
	for attempt := 1; ; attempt++ {
		if !drop(&s) {
			return nil
		}
		_, err := c.UpsertService(ctx, cp, s.ID, s)
		switch {
		case err == nil || konnect.IsNotFound(err):
			return nil
		case !konnect.IsInvalidInput(err) || attempt == detachAttempts:
			return err
		}
		if s, err = c.GetService(ctx, cp, s.ID); err != nil {
			if konnect.IsNotFound(err) {
				return nil
			}
			return err
		}
	}
}
