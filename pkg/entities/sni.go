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

type kongSNI = *configurationv1alpha1.KongSNI

// SNIKind describes KongSNIs: Konnect SNIs nested under the certificate of
// their KongCertificate, whose control plane and credentials they inherit.
func SNIKind(refs *Refs, certs *controller.Informer[kongCertificate]) controller.Kind[kongSNI, components.SNIWithoutParents] {
	gvk := configurationGVK("KongSNI")
	certificate := parentRef[kongSNI]{
		kind: kindCertificate, condition: commonv1alpha1.ConditionKongCertificateRefValid,
		name: func(s kongSNI) (string, string, bool) {
			ref := s.Spec.CertificateRef
			return namespaceOr(ref.Namespace, s.Namespace), ref.Name, ref.Name != ""
		},
		record: func(s kongSNI, id string) { s.ControlPlaneStatus(true); s.Status.Konnect.CertificateID = id },
	}
	return core[kongSNI, components.SNIWithoutParents, components.Sni]{
		gvk:    gvk,
		placed: childOf(refs, gvk, certs, func(c kongCertificate) *cpRef { return c.Spec.ControlPlaneRef }, certificate),
		calls:  sniCalls,
		desired: func(s kongSNI, p controller.Placement) (components.SNIWithoutParents, error) {
			body := components.SNIWithoutParents{Name: s.Spec.Name, Tags: controller.Tags(s, gvk, p.Cluster, s.Spec.Tags, s)}
			if p.ParentID != "" {
				// The certificate is in the path already; in the body it is
				// compared when adopting, and a move is a change of the body.
				body.Certificate = &components.SNIWithoutParentsCertificate{ID: &p.ParentID}
			}
			return body, nil
		},
		adopt:   func(s kongSNI) *adoptOptions { return s.Spec.Adopt },
		matches: sniMatches,
		// Read under the object's certificate: an SNI under another one
		// is a conflict that names no entity in the way.
		uniqueKey: func(body components.SNIWithoutParents) string { return body.Name },
	}.kind()
}

// sniMatches compares the name and the certificate.
func sniMatches(desired components.SNIWithoutParents, actual *components.Sni) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("certificate", deref(desired.GetCertificate().GetID()) == deref(actual.Certificate.GetID()))
	return d
}

// sniCalls are the calls of the SNIs of one certificate, p.ParentID.
var sniCalls = coreCalls[components.SNIWithoutParents, components.Sni]{
	entity: "sni",
	nested: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.SNIWithoutParents) (*components.Sni, error) {
		res, err := api.SNIs.CreateSniWithCertificate(ctx, operations.CreateSniWithCertificateRequest{
			ControlPlaneID: p.ControlPlaneID, CertificateID: p.ParentID, SNIWithoutParents: body,
		})
		return res.GetSni(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.SNIWithoutParents) (*components.Sni, error) {
		res, err := api.SNIs.UpsertSniWithCertificate(ctx, operations.UpsertSniWithCertificateRequest{
			ControlPlaneID: p.ControlPlaneID, CertificateID: p.ParentID, SNIID: id, SNIWithoutParents: body,
		})
		return res.GetSni(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Sni, error) {
		res, err := api.SNIs.GetSniWithCertificate(ctx, operations.GetSniWithCertificateRequest{
			ControlPlaneID: p.ControlPlaneID, CertificateID: p.ParentID, SNIID: id,
		})
		return res.GetSni(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.SNIs.DeleteSniWithCertificate(ctx, operations.DeleteSniWithCertificateRequest{
			ControlPlaneID: p.ControlPlaneID, CertificateID: p.ParentID, SNIID: id,
		})
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Sni, *string, error) {
		res, err := api.SNIs.ListSniWithCertificate(ctx, operations.ListSniWithCertificateRequest{
			ControlPlaneID: p.ControlPlaneID, CertificateID: p.ParentID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags,
		})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	flat: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Sni, *string, error) {
		res, err := api.SNIs.ListSni(ctx, operations.ListSniRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.Sni).GetID,
	tags: (*components.Sni).GetTags,
}
