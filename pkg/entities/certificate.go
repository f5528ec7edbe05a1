package entities

import (
	"context"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongCertificate = *configurationv1alpha1.KongCertificate

// CertificateKind describes KongCertificates: Konnect certificates of a
// control plane, whose key pairs come from the spec (inline, or vault
// references passed through as they are) or from kubernetes.io/tls Secrets
// (secretRef, and secretRefAlt for the alternative pair). Secret material
// is read on every sync, so a changed Secret reaches Konnect with the next
// one (and the Secret's change triggers one at once).
func CertificateKind(refs *Refs) controller.Kind[kongCertificate, components.CertificateRequest] {
	gvk := configurationGVK(kindCertificate)
	fromSecrets := func(c kongCertificate) bool { return c.Spec.Type == configurationv1alpha1.CertificateSourceSecretRef }
	placed := readingSecrets(underControlPlane(refs, gvk, func(c kongCertificate) *cpRef { return c.Spec.ControlPlaneRef }),
		refs, gvk, []string{secretKeyTLSCert, secretKeyTLSKey}, fromSecrets,
		func(c kongCertificate) []*commonv1alpha1.NamespacedRef {
			return []*commonv1alpha1.NamespacedRef{c.Spec.SecretRef, c.Spec.SecretRefAlt}
		})
	return core[kongCertificate, components.CertificateRequest, components.Certificate]{
		gvk:    gvk,
		placed: placed,
		calls:  certificateCalls,
		desired: func(c kongCertificate, p controller.Placement) (components.CertificateRequest, error) {
			spec := c.Spec.KongCertificateAPISpec
			body := components.CertificateRequest2{Cert: spec.Cert, Key: spec.Key, Tags: controller.Tags(c, gvk, p.Cluster, spec.Tags, c)}
			certAlt, keyAlt := spec.CertAlt, spec.KeyAlt
			if fromSecrets(c) {
				var err error
				from := referrerOf(gvk, c)
				if body.Cert, body.Key, err = refs.tlsPair(from, c.Spec.SecretRef); err != nil {
					return components.CertificateRequest{}, err
				}
				if certAlt, keyAlt, err = refs.tlsPair(from, c.Spec.SecretRefAlt); err != nil {
					return components.CertificateRequest{}, err
				}
			}
			body.CertAlt, body.KeyAlt = optional(certAlt), optional(keyAlt)
			return components.CreateCertificateRequestCertificateRequest2(body), nil
		},
		remove:  deleteCertificate,
		adopt:   func(c kongCertificate) *adoptOptions { return c.Spec.Adopt },
		matches: certificateMatches,
		// The KongSNIs of the certificate write its snis.
		othersFields: []string{"snis"},
	}.kind()
}

// tlsPair reads the certificate and key of a kubernetes.io/tls Secret; no
// reference reads nothing.
func (r *Refs) tlsPair(from referrer, ref *commonv1alpha1.NamespacedRef) (cert, key string, err error) {
	if ref == nil {
		return "", "", nil
	}
	data, err := r.secretData(from, namespaceOr(ref.Namespace, from.namespace), ref.Name, secretKeyTLSCert, secretKeyTLSKey)
	return data[secretKeyTLSCert], data[secretKeyTLSKey], err
}

// certificateMatches compares both key pairs, whichever way the spec gives
// them (so a Secret-sourced certificate can be matched too).
func certificateMatches(desired components.CertificateRequest, actual *components.Certificate) []string {
	var want components.CertificateRequest2
	if desired.CertificateRequest2 != nil {
		want = *desired.CertificateRequest2
	}
	var d diff
	d.check("cert", samePEM(want.Cert, actual.Cert))
	d.check("key", samePEM(want.Key, actual.Key))
	d.check("cert_alt", samePEM(deref(want.CertAlt), deref(actual.CertAlt)))
	d.check("key_alt", samePEM(deref(want.KeyAlt), deref(actual.KeyAlt)))
	return d
}

// samePEM compares PEM (or vault reference) values, ignoring the
// surrounding white space that YAML block scalars add or drop.
func samePEM(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }

var certificateCalls = coreCalls[components.CertificateRequest, components.Certificate]{
	entity: "certificate",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.CertificateRequest) (*components.Certificate, error) {
		res, err := api.Certificates.CreateCertificate(ctx, p.ControlPlaneID, body)
		return res.GetCertificate(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.CertificateRequest) (*components.Certificate, error) {
		res, err := api.Certificates.UpsertCertificate(ctx, operations.UpsertCertificateRequest{ControlPlaneID: p.ControlPlaneID, CertificateID: id, CertificateRequest: body})
		return res.GetCertificate(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Certificate, error) {
		res, err := api.Certificates.GetCertificate(ctx, id, p.ControlPlaneID)
		return res.GetCertificate(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.Certificates.DeleteCertificate(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Certificate, *string, error) {
		res, err := api.Certificates.ListCertificate(ctx, operations.ListCertificateRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.Certificate).GetID,
	tags: (*components.Certificate).GetTags,
}
