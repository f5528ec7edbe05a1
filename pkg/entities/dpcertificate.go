package entities

import (
	"bytes"
	"context"
	"encoding/pem"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongDataPlaneCertificate = *configurationv1alpha1.KongDataPlaneClientCertificate

// DataPlaneCertificateAdapter pins KongDataPlaneClientCertificates on their
// control plane (which may be a control-plane group).
//
// A pinned certificate is only an ID and a PEM: no tags, so no UID to find
// it by, and no way to change it. The operator therefore takes a pin's
// identity to be its certificate within its control plane. Where the
// generic reconciler would look an entity up by UID (the object predates
// the operator's start, or a create's outcome was unknown), it looks for a
// pin of the same certificate and takes it rather than pinning a second
// copy: never a duplicate for one object. Pinning the same certificate
// twice would add nothing, so an identical pin made outside the operator is
// taken over too (and unpinned when the object goes). Two objects with the
// same certificate may share one pin; if one unpins it, the other pins it
// again within a sync period, as it does after any out-of-band unpinning.
type DataPlaneCertificateAdapter struct {
	Refs *Refs
}

var (
	_ controller.DependentAdapter[kongDataPlaneCertificate, konnect.DataPlaneCertificate] = (*DataPlaneCertificateAdapter)(nil)
	_ controller.Adopter[kongDataPlaneCertificate, konnect.DataPlaneCertificate]          = (*DataPlaneCertificateAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *DataPlaneCertificateAdapter) GroupVersionKind() schema.GroupVersionKind {
	return configurationGVK("KongDataPlaneClientCertificate")
}

// Managed implements controller.Adapter.
func (a *DataPlaneCertificateAdapter) Managed(c kongDataPlaneCertificate) bool {
	return c.Spec.ControlPlaneRef.IsKonnect()
}

// ConditionTypes implements controller.Adapter.
func (a *DataPlaneCertificateAdapter) ConditionTypes() []string { return controlPlaneConditionTypes }

// Resolve implements controller.Adapter. Unlike every other kind, a data
// plane certificate may be pinned on a control-plane group.
func (a *DataPlaneCertificateAdapter) Resolve(_ context.Context, c kongDataPlaneCertificate, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	cp := a.Refs.controlPlane(b, referrerOf(a.GroupVersionKind(), c), c.Spec.ControlPlaneRef, true, true)
	if cp != nil {
		b.res.Placement.Auth = a.Refs.auth(b, cp, false)
		b.placeIn(c.ControlPlaneStatus(true), cp.Status.ID)
	}
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *DataPlaneCertificateAdapter) Desired(_ context.Context, c kongDataPlaneCertificate, _ controller.Placement) (konnect.DataPlaneCertificate, error) {
	return konnect.DataPlaneCertificate{Cert: c.Spec.Cert}, nil
}

// Create implements controller.Adapter.
func (a *DataPlaneCertificateAdapter) Create(ctx context.Context, c *konnect.Client, _ kongDataPlaneCertificate, p controller.Placement, desired konnect.DataPlaneCertificate) (string, error) {
	created, err := c.CreateDataPlaneCertificate(ctx, p.ControlPlaneID, desired.Cert)
	return created.ID, err
}

// Update implements controller.Adapter. A pin cannot be changed: it is
// read to see that it is still there and still pins spec.cert. A pin of
// another certificate (spec.cert may change until the object is
// Programmed) is unpinned and reported gone, so that the reconciler pins
// the new one.
func (a *DataPlaneCertificateAdapter) Update(ctx context.Context, c *konnect.Client, _ kongDataPlaneCertificate, p controller.Placement, id string, desired konnect.DataPlaneCertificate) error {
	actual, err := c.GetDataPlaneCertificate(ctx, p.ControlPlaneID, id)
	if err != nil || sameCertificate(desired.Cert, actual.Cert) {
		return err
	}
	if err := c.DeleteDataPlaneCertificate(ctx, p.ControlPlaneID, id); err != nil && !konnect.IsNotFound(err) {
		return err
	}
	return &konnect.NotFoundError{Operation: "replace data_plane_certificate", Message: "the pinned certificate differed from spec.cert and was unpinned"}
}

// Delete implements controller.Adapter.
func (a *DataPlaneCertificateAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongDataPlaneCertificate, p controller.Placement, id string) error {
	return c.DeleteDataPlaneCertificate(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter: a pin of the same certificate
// stands for the object (see DataPlaneCertificateAdapter).
func (a *DataPlaneCertificateAdapter) FindByUID(ctx context.Context, c *konnect.Client, cert kongDataPlaneCertificate, p controller.Placement) (string, error) {
	pinned, err := c.ListDataPlaneCertificates(ctx, p.ControlPlaneID)
	if err != nil {
		return "", err
	}
	for _, pin := range pinned {
		if sameCertificate(cert.Spec.Cert, pin.Cert) {
			return pin.ID, nil
		}
	}
	return "", nil
}

// Dependencies implements controller.DependentAdapter.
func (a *DataPlaneCertificateAdapter) Dependencies() []controller.Dependency[kongDataPlaneCertificate] {
	return []controller.Dependency[kongDataPlaneCertificate]{
		controlPlaneDependency(a.Refs, func(c kongDataPlaneCertificate) []string {
			return controlPlaneKeys(c.Spec.ControlPlaneRef, c.Namespace)
		}),
		grantDependency(a.Refs, func(c kongDataPlaneCertificate) []string {
			return otherNamespaces(c.Namespace, controlPlaneNamespace(c.Spec.ControlPlaneRef, c.Namespace))
		}),
	}
}

// AdoptOptions implements controller.Adopter. The schema only admits
// match mode: a pin cannot be overwritten.
func (a *DataPlaneCertificateAdapter) AdoptOptions(c kongDataPlaneCertificate) *commonv1alpha1.AdoptOptions {
	return c.Spec.Adopt
}

// Fetch implements controller.Adopter. Pins carry no tags, so no UID.
func (a *DataPlaneCertificateAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongDataPlaneCertificate, p controller.Placement, id string) (konnect.DataPlaneCertificate, string, error) {
	found, err := c.GetDataPlaneCertificate(ctx, p.ControlPlaneID, id)
	return found, "", err
}

// Differences implements controller.Adopter: the certificate.
func (a *DataPlaneCertificateAdapter) Differences(desired, actual konnect.DataPlaneCertificate) []string {
	var d diff
	d.check("cert", sameCertificate(desired.Cert, actual.Cert))
	return d
}

// sameCertificate reports whether two PEM texts hold the same certificate,
// however they are wrapped or spaced.
func sameCertificate(a, b string) bool {
	blockA, _ := pem.Decode([]byte(a))
	blockB, _ := pem.Decode([]byte(b))
	if blockA == nil || blockB == nil {
		return samePEM(a, b)
	}
	return blockA.Type == blockB.Type && bytes.Equal(blockA.Bytes, blockB.Bytes)
}
