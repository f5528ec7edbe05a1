package entities

import (
	"context"
	"errors"
	"slices"

	"github.com/Kong/sdk-konnect-go/models/components"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
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

// deleteCertificate deletes certificate id of p's control plane.
func deleteCertificate(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
	err := certificateCalls.doDelete(ctx, api, p, id)
	if !refusedForChildren(err) {
		return err
	}
	if clearErr := clearCertificateUses(ctx, api, p, id); clearErr != nil {
		return errors.Join(err, clearErr)
	}
	return certificateCalls.doDelete(ctx, api, p, id)
}

func clearCertificateUses(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
	under := p
	under.ParentID = id
	snis, err := sniCalls.doList(ctx, api, under)
	if err != nil {
		return err
	}
	for i := range snis {
		if err := sniCalls.doDelete(ctx, api, under, deref(snis[i].ID)); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	if err := detachServices(ctx, api, p, withoutClientCertificate(id)); err != nil {
		return err
	}
	upstreams, err := upstreamCalls.doList(ctx, api, p)
	if err != nil {
		return err
	}
	for _, u := range upstreams {
		if deref(u.ClientCertificate.GetID()) != id {
			continue
		}
		upstreamID := deref(u.ID)
		u.ClientCertificate, u.ID, u.CreatedAt, u.UpdatedAt = nil, nil, nil, nil
		if _, err := upstreamCalls.doUpsert(ctx, api, p, upstreamID, u); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// deleteCACertificate deletes CA certificate id of p's control plane.
func deleteCACertificate(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
	err := caCertificateCalls.doDelete(ctx, api, p, id)
	if !refusedForChildren(err) {
		return err
	}
	if detachErr := detachServices(ctx, api, p, withoutCACertificate(id)); detachErr != nil {
		return errors.Join(err, detachErr)
	}
	return caCertificateCalls.doDelete(ctx, api, p, id)
}

// withoutClientCertificate drops client certificate id from a service.
func withoutClientCertificate(id string) func(*components.Service) bool {
	return func(s *components.Service) bool {
		if deref(s.ClientCertificate.GetID()) != id {
			return false
		}
		s.ClientCertificate = nil
		return true
	}
}

// withoutCACertificate drops CA certificate id from a service.
func withoutCACertificate(id string) func(*components.Service) bool {
	return func(s *components.Service) bool {
		if !slices.Contains(s.CaCertificates, id) {
			return false
		}
		s.CaCertificates = slices.DeleteFunc(s.CaCertificates, func(ca string) bool { return ca == id })
		return true
	}
}

// detachServices detaches every service of p's control plane that drop
// changes.
func detachServices(ctx context.Context, api konnect.API, p controller.Placement, drop func(*components.Service) bool) error {
	services, err := serviceCalls.doList(ctx, api, p)
	if err != nil {
		return err
	}
	for _, s := range services {
		if err := detachService(ctx, api, p, s, drop); err != nil {
			return err
		}
	}
	return nil
}

// detachAttempts bounds how often a detach is tried on a fresh read.
const detachAttempts = 3

// detachService writes service s back as read, less a certificate: drop
// removes it and reports whether s used it. Another detach may rewrite the
// same service meanwhile (a certificate and a CA certificate deleted
// together, each writing back what it read): Konnect then refuses the write
// that names the certificate already gone, and the detach is tried again on
// a fresh read.
func detachService(ctx context.Context, api konnect.API, p controller.Placement, s components.ServiceOutput, drop func(*components.Service) bool) error {
	id := deref(s.ID)
	for attempt := 1; ; attempt++ {
		body := writtenBack(s)
		if !drop(&body) {
			return nil
		}
		_, err := serviceCalls.doUpsert(ctx, api, p, id, body)
		switch {
		case err == nil || konnect.IsNotFound(err):
			return nil
		case !konnect.IsInvalidInput(err) || attempt == detachAttempts:
			return err
		}
		read, err := serviceCalls.doGet(ctx, api, p, id)
		if err != nil {
			if konnect.IsNotFound(err) {
				return nil
			}
			return err
		}
		s = *read
	}
}

// writtenBack is the body that writes a service back as it was read.
func writtenBack(s components.ServiceOutput) components.Service {
	return components.Service{
		CaCertificates:    slices.Clone(s.CaCertificates),
		ClientCertificate: s.ClientCertificate,
		ConnectTimeout:    s.ConnectTimeout,
		Enabled:           s.Enabled,
		Host:              s.Host,
		Name:              s.Name,
		Path:              s.Path,
		Port:              s.Port,
		Protocol:          s.Protocol,
		ReadTimeout:       s.ReadTimeout,
		Retries:           s.Retries,
		Tags:              s.Tags,
		TLSSans:           s.TLSSans,
		TLSVerify:         s.TLSVerify,
		TLSVerifyDepth:    s.TLSVerifyDepth,
		WriteTimeout:      s.WriteTimeout,
	}
}
