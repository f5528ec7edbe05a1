package catalog

import (
	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// Which fields of an object hold secret material (from a Secret, a
// private key, a credential), beyond those adoptingEntry.secret names for
// every object of a kind, so that a comparison names them without their
// values; and what a kind's adoption does not compare or show.

// certificateHidden hides the private keys, and the certificates too when
// they come from a Secret.
func certificateHidden(c *configurationv1alpha1.KongCertificate) []string {
	if c.Spec.Type == configurationv1alpha1.CertificateSourceSecretRef {
		return []string{"cert", "key", "cert_alt", "key_alt"}
	}
	return []string{"key", "key_alt"}
}

// caCertificateHidden hides the certificate when it comes from a Secret.
func caCertificateHidden(c *configurationv1alpha1.KongCACertificate) []string {
	if c.Spec.Type == configurationv1alpha1.CertificateSourceSecretRef {
		return []string{"cert"}
	}
	return nil
}

// bindingHidden hides the configuration of a binding whose plugin reads
// Secrets.
func bindingHidden(src entities.PluginBindingSources) func(*configurationv1alpha1.KongPluginBinding) []string {
	return func(pb *configurationv1alpha1.KongPluginBinding) []string {
		if src.ReadsSecrets(pb) {
			return []string{"config"}
		}
		return nil
	}
}

// credentialHidden hides every field of a credential made from a Secret,
// which holds nothing but the Secret's data.
func credentialHidden[T metav1.Object](obj T) []string {
	if entities.IsCredentialFromSecret(obj) {
		return []string{"*"}
	}
	return nil
}

// basicAuthExtra compares the password by its hash, as a listing does.
func basicAuthExtra(desired components.BasicAuthWithoutParents, actual any) []string {
	if found, ok := actual.(*components.BasicAuth); ok {
		return entities.BasicAuthPasswordDifference(desired, found)
	}
	return nil
}

// consumerValues gives the groups of a consumer, which its JSON names
// otherwise.
func consumerValues(field string, desired entities.ConsumerDesired, actual any) (any, any, bool) {
	found, ok := actual.(entities.ConsumerDesired)
	if field != entities.ConsumerGroupsField || !ok {
		return nil, nil, false
	}
	return desired.GroupIDs, found.GroupIDs, true
}
