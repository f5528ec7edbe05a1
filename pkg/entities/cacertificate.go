package entities

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongCACertificate = *configurationv1alpha1.KongCACertificate

// CACertificateAdapter reconciles KongCACertificates into Konnect CA
// certificates, from the spec or from a Secret's ca.crt.
type CACertificateAdapter struct {
	Refs *Refs
}

var (
	_ controller.DependentAdapter[kongCACertificate, konnect.CACertificate] = (*CACertificateAdapter)(nil)
	_ controller.Adopter[kongCACertificate, konnect.CACertificate]          = (*CACertificateAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *CACertificateAdapter) GroupVersionKind() schema.GroupVersionKind {
	return configurationGVK(kindCACertificate)
}

// Managed implements controller.Adapter.
func (a *CACertificateAdapter) Managed(c kongCACertificate) bool {
	return c.Spec.ControlPlaneRef.IsKonnect()
}

// ConditionTypes implements controller.Adapter.
func (a *CACertificateAdapter) ConditionTypes() []string {
	return append([]string{commonv1alpha1.ConditionSecretRefValid}, controlPlaneConditionTypes...)
}

func caFromSecret(c kongCACertificate) bool {
	return c.Spec.Type == configurationv1alpha1.CertificateSourceSecretRef
}

// Resolve implements controller.Adapter.
func (a *CACertificateAdapter) Resolve(ctx context.Context, c kongCACertificate, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	from := referrerOf(a.GroupVersionKind(), c)
	a.Refs.placeUnderControlPlane(b, from, c.Spec.ControlPlaneRef, c.ControlPlaneStatus(true))
	if purpose == controller.ForSync && caFromSecret(c) {
		a.Refs.secretRefs(ctx, b, from, []string{secretKeyCACert}, c.Spec.SecretRef)
	}
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *CACertificateAdapter) Desired(_ context.Context, c kongCACertificate, _ controller.Placement) (konnect.CACertificate, error) {
	desired := konnect.CACertificate{
		Cert: c.Spec.Cert,
		Tags: controller.Tags(c, a.GroupVersionKind(), c.Spec.Tags, c),
	}
	if caFromSecret(c) && c.Spec.SecretRef != nil {
		data, err := a.Refs.secretData(namespaceOr(c.Spec.SecretRef.Namespace, c.Namespace), c.Spec.SecretRef.Name, secretKeyCACert)
		if err != nil {
			return konnect.CACertificate{}, err
		}
		desired.Cert = data[secretKeyCACert]
	}
	return desired, nil
}

// Create implements controller.Adapter.
func (a *CACertificateAdapter) Create(ctx context.Context, c *konnect.Client, _ kongCACertificate, p controller.Placement, desired konnect.CACertificate) (string, error) {
	created, err := c.CreateCACertificate(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *CACertificateAdapter) Update(ctx context.Context, c *konnect.Client, _ kongCACertificate, p controller.Placement, id string, desired konnect.CACertificate) error {
	_, err := c.UpsertCACertificate(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter. Konnect refuses to delete a CA
// certificate that services trust; see deleteCACertificate.
func (a *CACertificateAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongCACertificate, p controller.Placement, id string) error {
	return deleteCACertificate(ctx, c, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *CACertificateAdapter) FindByUID(ctx context.Context, c *konnect.Client, ca kongCACertificate, p controller.Placement) (string, error) {
	found, err := c.ListCACertificates(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(ca)}})
	return firstID(found, func(c konnect.CACertificate) string { return c.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *CACertificateAdapter) Dependencies() []controller.Dependency[kongCACertificate] {
	return []controller.Dependency[kongCACertificate]{
		controlPlaneDependency(a.Refs, func(c kongCACertificate) []string {
			return controlPlaneKeys(c.Spec.ControlPlaneRef, c.Namespace)
		}),
		{
			Name:   "secret",
			Source: a.Refs.Secrets,
			Keys: func(c kongCACertificate) []string {
				if !caFromSecret(c) {
					return nil
				}
				return secretKeys(c.Namespace, c.Spec.SecretRef)
			},
		},
		grantDependency(a.Refs, func(c kongCACertificate) []string {
			return otherNamespaces(c.Namespace,
				controlPlaneNamespace(c.Spec.ControlPlaneRef, c.Namespace),
				namespacedRefNamespace(c.Spec.SecretRef, c.Namespace))
		}),
	}
}

// AdoptOptions implements controller.Adopter.
func (a *CACertificateAdapter) AdoptOptions(c kongCACertificate) *commonv1alpha1.AdoptOptions {
	return c.Spec.Adopt
}

// Fetch implements controller.Adopter.
func (a *CACertificateAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongCACertificate, p controller.Placement, id string) (konnect.CACertificate, string, error) {
	found, err := c.GetCACertificate(ctx, p.ControlPlaneID, id)
	return found, controller.UIDFromTags(found.Tags), err
}

// Differences implements controller.Adopter: the certificate.
func (a *CACertificateAdapter) Differences(desired, actual konnect.CACertificate) []string {
	var d diff
	d.check("cert", samePEM(desired.Cert, actual.Cert))
	return d
}
