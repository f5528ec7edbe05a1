package entities

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongCertificate = *configurationv1alpha1.KongCertificate

// CertificateAdapter reconciles KongCertificates into Konnect certificates,
// whose key pairs come from the spec (inline, or vault references passed
// through as they are) or from kubernetes.io/tls Secrets.
type CertificateAdapter struct {
	Refs *Refs
}

var (
	_ controller.DependentAdapter[kongCertificate, konnect.Certificate] = (*CertificateAdapter)(nil)
	_ controller.Adopter[kongCertificate, konnect.Certificate]          = (*CertificateAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *CertificateAdapter) GroupVersionKind() schema.GroupVersionKind {
	return configurationGVK(kindCertificate)
}

// Managed implements controller.Adapter.
func (a *CertificateAdapter) Managed(c kongCertificate) bool {
	return c.Spec.ControlPlaneRef.IsKonnect()
}

// ConditionTypes implements controller.Adapter.
func (a *CertificateAdapter) ConditionTypes() []string {
	return append([]string{commonv1alpha1.ConditionSecretRefValid}, controlPlaneConditionTypes...)
}

func fromSecrets(c kongCertificate) bool {
	return c.Spec.Type == configurationv1alpha1.CertificateSourceSecretRef
}

// Resolve implements controller.Adapter. Secrets are only needed to sync.
func (a *CertificateAdapter) Resolve(ctx context.Context, c kongCertificate, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	from := referrerOf(a.GroupVersionKind(), c)
	a.Refs.placeUnderControlPlane(b, from, c.Spec.ControlPlaneRef, c.ControlPlaneStatus(true))
	if purpose == controller.ForSync && fromSecrets(c) {
		a.Refs.secretRefs(ctx, b, from, []string{secretKeyTLSCert, secretKeyTLSKey}, c.Spec.SecretRef, c.Spec.SecretRefAlt)
	}
	return b.done(), nil
}

// Desired implements controller.Adapter. Secret material is read on every
// sync, so a changed Secret reaches Konnect with the next one (and the
// Secret's change triggers one at once).
func (a *CertificateAdapter) Desired(_ context.Context, c kongCertificate, _ controller.Placement) (konnect.Certificate, error) {
	spec := c.Spec.KongCertificateAPISpec
	desired := konnect.Certificate{
		Cert: spec.Cert, Key: spec.Key, CertAlt: spec.CertAlt, KeyAlt: spec.KeyAlt,
		Tags: controller.Tags(c, a.GroupVersionKind(), spec.Tags, c),
	}
	if !fromSecrets(c) {
		return desired, nil
	}
	pair := func(ref *commonv1alpha1.NamespacedRef) (string, string, error) {
		if ref == nil {
			return "", "", nil
		}
		data, err := a.Refs.secretData(namespaceOr(ref.Namespace, c.Namespace), ref.Name, secretKeyTLSCert, secretKeyTLSKey)
		return data[secretKeyTLSCert], data[secretKeyTLSKey], err
	}
	var err error
	if desired.Cert, desired.Key, err = pair(c.Spec.SecretRef); err != nil {
		return konnect.Certificate{}, err
	}
	if desired.CertAlt, desired.KeyAlt, err = pair(c.Spec.SecretRefAlt); err != nil {
		return konnect.Certificate{}, err
	}
	return desired, nil
}

// Create implements controller.Adapter.
func (a *CertificateAdapter) Create(ctx context.Context, c *konnect.Client, _ kongCertificate, p controller.Placement, desired konnect.Certificate) (string, error) {
	created, err := c.CreateCertificate(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *CertificateAdapter) Update(ctx context.Context, c *konnect.Client, _ kongCertificate, p controller.Placement, id string, desired konnect.Certificate) error {
	_, err := c.UpsertCertificate(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter. Konnect refuses to delete a
// certificate that SNIs belong to or that services or upstreams present;
// see deleteCertificate.
func (a *CertificateAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongCertificate, p controller.Placement, id string) error {
	return deleteCertificate(ctx, c, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *CertificateAdapter) FindByUID(ctx context.Context, c *konnect.Client, cert kongCertificate, p controller.Placement) (string, error) {
	found, err := c.ListCertificates(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(cert)}})
	return firstID(found, func(c konnect.Certificate) string { return c.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *CertificateAdapter) Dependencies() []controller.Dependency[kongCertificate] {
	return []controller.Dependency[kongCertificate]{
		controlPlaneDependency(a.Refs, func(c kongCertificate) []string {
			return controlPlaneKeys(c.Spec.ControlPlaneRef, c.Namespace)
		}),
		{
			Name:   "secrets",
			Source: a.Refs.Secrets,
			Keys: func(c kongCertificate) []string {
				if !fromSecrets(c) {
					return nil
				}
				return secretKeys(c.Namespace, c.Spec.SecretRef, c.Spec.SecretRefAlt)
			},
		},
		grantDependency(a.Refs, func(c kongCertificate) []string {
			return otherNamespaces(c.Namespace,
				controlPlaneNamespace(c.Spec.ControlPlaneRef, c.Namespace),
				namespacedRefNamespace(c.Spec.SecretRef, c.Namespace),
				namespacedRefNamespace(c.Spec.SecretRefAlt, c.Namespace))
		}),
	}
}

// AdoptOptions implements controller.Adopter.
func (a *CertificateAdapter) AdoptOptions(c kongCertificate) *commonv1alpha1.AdoptOptions {
	return c.Spec.Adopt
}

// Fetch implements controller.Adopter.
func (a *CertificateAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongCertificate, p controller.Placement, id string) (konnect.Certificate, string, error) {
	found, err := c.GetCertificate(ctx, p.ControlPlaneID, id)
	return found, controller.UIDFromTags(found.Tags), err
}

// Differences implements controller.Adopter: both key pairs, whichever way
// the spec gives them (so a Secret-sourced certificate can be matched too).
func (a *CertificateAdapter) Differences(desired, actual konnect.Certificate) []string {
	var d diff
	d.check("cert", samePEM(desired.Cert, actual.Cert))
	d.check("key", samePEM(desired.Key, actual.Key))
	d.check("cert_alt", samePEM(desired.CertAlt, actual.CertAlt))
	d.check("key_alt", samePEM(desired.KeyAlt, actual.KeyAlt))
	return d
}

// samePEM compares PEM (or vault reference) values, ignoring the
// surrounding white space that YAML block scalars add or drop.
func samePEM(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }
