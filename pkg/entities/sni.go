package entities

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongSNI = *configurationv1alpha1.KongSNI

// SNIAdapter reconciles KongSNIs into Konnect SNIs, nested under the
// certificate of their KongCertificate, whose control plane and credentials
// they inherit.
type SNIAdapter struct {
	Refs         *Refs
	Certificates *controller.Informer[kongCertificate]
}

var (
	_ controller.DependentAdapter[kongSNI, konnect.SNI] = (*SNIAdapter)(nil)
	_ controller.Adopter[kongSNI, konnect.SNI]          = (*SNIAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *SNIAdapter) GroupVersionKind() schema.GroupVersionKind {
	return configurationGVK("KongSNI")
}

// Managed implements controller.Adapter: an SNI is the operator's when its
// certificate is bound to a Konnect control plane; a missing certificate is
// reported on the SNI rather than ignored.
func (a *SNIAdapter) Managed(s kongSNI) bool {
	namespace, name := certificateRefOf(s)
	c, err := a.Certificates.Get(namespace, name)
	return err != nil || c.Spec.ControlPlaneRef.IsKonnect()
}

// ConditionTypes implements controller.Adapter.
func (a *SNIAdapter) ConditionTypes() []string {
	return append([]string{commonv1alpha1.ConditionKongCertificateRefValid}, controlPlaneConditionTypes...)
}

func certificateRefOf(s kongSNI) (namespace, name string) {
	return namespaceOr(s.Spec.CertificateRef.Namespace, s.Namespace), s.Spec.CertificateRef.Name
}

// Resolve implements controller.Adapter.
func (a *SNIAdapter) Resolve(_ context.Context, s kongSNI, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	status := s.ControlPlaneStatus(true)
	namespace, name := certificateRefOf(s)
	if namespace != s.Namespace && !b.crossNamespace(fmt.Sprintf("%s %s/%s", kindCertificate, namespace, name),
		a.Refs.permitted(referrerOf(a.GroupVersionKind(), s), groupConfiguration, kindCertificate, namespace, name)) {
		b.notReady()
		return b.done(), nil
	}
	cert, certificateID := parent(b, a.Certificates, commonv1alpha1.ConditionKongCertificateRefValid, kindCertificate, namespace, name)
	if certificateID == "" {
		return b.done(), nil
	}
	s.Status.Konnect.CertificateID = certificateID
	cp := a.Refs.controlPlane(b, referrerOf(a.GroupVersionKind(), cert), cert.Spec.ControlPlaneRef, false, false)
	if cp == nil {
		return b.done(), nil
	}
	b.res.Placement.Auth = a.Refs.auth(b, cp, false)
	b.placeIn(status, cp.Status.ID)
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *SNIAdapter) Desired(_ context.Context, s kongSNI, _ controller.Placement) (konnect.SNI, error) {
	return konnect.SNI{
		Name:          s.Spec.Name,
		Tags:          controller.Tags(s, a.GroupVersionKind(), s.Spec.Tags, s),
		CertificateID: s.Status.Konnect.CertificateID,
	}, nil
}

// Create implements controller.Adapter.
func (a *SNIAdapter) Create(ctx context.Context, c *konnect.Client, _ kongSNI, p controller.Placement, desired konnect.SNI) (string, error) {
	created, err := c.CreateSNI(ctx, p.ControlPlaneID, desired.CertificateID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *SNIAdapter) Update(ctx context.Context, c *konnect.Client, _ kongSNI, p controller.Placement, id string, desired konnect.SNI) error {
	_, err := c.UpsertSNI(ctx, p.ControlPlaneID, desired.CertificateID, id, desired)
	return err
}

// Delete implements controller.Adapter.
func (a *SNIAdapter) Delete(ctx context.Context, c *konnect.Client, s kongSNI, p controller.Placement, id string) error {
	return c.DeleteSNI(ctx, p.ControlPlaneID, s.Status.Konnect.CertificateID, id)
}

// FindByUID implements controller.Adapter.
func (a *SNIAdapter) FindByUID(ctx context.Context, c *konnect.Client, s kongSNI, p controller.Placement) (string, error) {
	found, err := c.ListSNIs(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(s)}})
	return firstID(found, func(s konnect.SNI) string { return s.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *SNIAdapter) Dependencies() []controller.Dependency[kongSNI] {
	return []controller.Dependency[kongSNI]{
		{
			Name:   "certificate",
			Source: a.Certificates,
			Keys: func(s kongSNI) []string {
				namespace, name := certificateRefOf(s)
				return []string{key(namespace, name)}
			},
		},
		grantDependency(a.Refs, func(s kongSNI) []string {
			namespace, _ := certificateRefOf(s)
			return otherNamespaces(s.Namespace, namespace)
		}),
	}
}

// AdoptOptions implements controller.Adopter.
func (a *SNIAdapter) AdoptOptions(s kongSNI) *commonv1alpha1.AdoptOptions { return s.Spec.Adopt }

// Fetch implements controller.Adopter: the SNI is read under the
// certificate.
func (a *SNIAdapter) Fetch(ctx context.Context, c *konnect.Client, s kongSNI, p controller.Placement, id string) (konnect.SNI, string, error) {
	found, err := c.GetSNI(ctx, p.ControlPlaneID, s.Status.Konnect.CertificateID, id)
	return found, controller.UIDFromTags(found.Tags), err
}

// Differences implements controller.Adopter: the name and the certificate.
func (a *SNIAdapter) Differences(desired, actual konnect.SNI) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("certificate", desired.CertificateID == actual.CertificateID)
	return d
}
