package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongCACertificate = *configurationv1alpha1.KongCACertificate

// CACertificateKind describes KongCACertificates: Konnect CA certificates
// of a control plane, from the spec or from a Secret's ca.crt.
func CACertificateKind(refs *Refs) controller.Kind[kongCACertificate, components.CACertificate] {
	gvk := configurationGVK(kindCACertificate)
	fromSecret := func(c kongCACertificate) bool { return c.Spec.Type == configurationv1alpha1.CertificateSourceSecretRef }
	placed := readingSecrets(underControlPlane(refs, gvk, func(c kongCACertificate) *cpRef { return c.Spec.ControlPlaneRef }),
		refs, gvk, []string{secretKeyCACert}, fromSecret,
		func(c kongCACertificate) []*commonv1alpha1.NamespacedRef {
			return []*commonv1alpha1.NamespacedRef{c.Spec.SecretRef}
		})
	return core[kongCACertificate, components.CACertificate, components.CACertificate]{
		gvk:    gvk,
		placed: placed,
		calls:  caCertificateCalls,
		desired: func(c kongCACertificate, p controller.Placement) (components.CACertificate, error) {
			body := components.CACertificate{Cert: c.Spec.Cert, Tags: controller.Tags(c, gvk, p.Cluster, c.Spec.Tags, c)}
			if ref := c.Spec.SecretRef; fromSecret(c) && ref != nil {
				data, err := refs.secretData(referrerOf(gvk, c), namespaceOr(ref.Namespace, c.Namespace), ref.Name, secretKeyCACert)
				if err != nil {
					return components.CACertificate{}, err
				}
				body.Cert = data[secretKeyCACert]
			}
			return body, nil
		},
		remove:  deleteCACertificate,
		adopt:   func(c kongCACertificate) *adoptOptions { return c.Spec.Adopt },
		matches: caCertificateMatches,
	}.kind()
}

// caCertificateMatches compares the certificate.
func caCertificateMatches(desired components.CACertificate, actual *components.CACertificate) []string {
	var d diff
	d.check("cert", samePEM(desired.Cert, actual.Cert))
	return d
}

var caCertificateCalls = coreCalls[components.CACertificate, components.CACertificate]{
	entity: "ca_certificate",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.CACertificate) (*components.CACertificate, error) {
		res, err := api.CACertificates.CreateCaCertificate(ctx, p.ControlPlaneID, body)
		return res.GetCACertificate(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.CACertificate) (*components.CACertificate, error) {
		res, err := api.CACertificates.UpsertCaCertificate(ctx, operations.UpsertCaCertificateRequest{ControlPlaneID: p.ControlPlaneID, CACertificateID: id, CACertificate: body})
		return res.GetCACertificate(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.CACertificate, error) {
		res, err := api.CACertificates.GetCaCertificate(ctx, id, p.ControlPlaneID)
		return res.GetCACertificate(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.CACertificates.DeleteCaCertificate(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.CACertificate, *string, error) {
		res, err := api.CACertificates.ListCaCertificate(ctx, operations.ListCaCertificateRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.CACertificate).GetID,
	tags: (*components.CACertificate).GetTags,
}
