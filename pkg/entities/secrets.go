package entities

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// Data keys of the Secrets that certificates are read from.
const (
	secretKeyTLSCert = "tls.crt"
	secretKeyTLSKey  = "tls.key"
	secretKeyCACert  = "ca.crt"
)

// readingSecrets adds to p the Secrets a certificate kind reads its
// material from when fromSecrets(obj): each must hold keys, and one in
// another namespace needs a KongReferenceGrant. They are only needed to
// write the entity, and reconcile obj again when they change.
func readingSecrets[T placedEntity](p placed[T], refs *Refs, gvk schema.GroupVersionKind, keys []string, fromSecrets func(T) bool, secrets func(T) []*commonv1alpha1.NamespacedRef) placed[T] {
	return p.with(reference[T]{
		conditions: []string{commonv1alpha1.ConditionSecretRefValid},
		resolve: func(b *resolver, obj T) {
			if !b.forDelete() && fromSecrets(obj) {
				refs.secretRefs(b, referrerOf(gvk, obj), keys, secrets(obj)...)
			}
		},
		dependencies: []controller.Dependency[T]{{
			Name:   "secrets",
			Source: refs.Secrets,
			Keys: func(obj T) []string {
				if !fromSecrets(obj) {
					return nil
				}
				return secretKeys(obj.GetNamespace(), secrets(obj)...)
			},
		}},
		namespaces: func(obj T) []string {
			var namespaces []string
			for _, ref := range secrets(obj) {
				namespaces = append(namespaces, namespacedRefNamespace(ref, obj.GetNamespace()))
			}
			return namespaces
		},
	})
}

// secretRefs resolves the Secrets a certificate reads its material from,
// each of which must hold the given data keys, and sets SecretRefValid.
// Secrets in other namespaces need a KongReferenceGrant to core/Secret.
func (r *Refs) secretRefs(b *resolver, from referrer, keys []string, refs ...*commonv1alpha1.NamespacedRef) {
	var problems []string
	refused := false
	for _, ref := range refs {
		if ref == nil {
			continue
		}
		namespace := namespaceOr(ref.Namespace, from.namespace)
		if namespace != from.namespace && !b.crossNamespace(fmt.Sprintf("%s %s/%s", kindSecret, namespace, ref.Name),
			r.permitted(from, groupCore, kindSecret, namespace, ref.Name)) {
			b.notReady()
			refused = true
			continue
		}
		if _, err := r.secretData(namespace, ref.Name, keys...); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		b.invalid(commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, "; "))
		return
	}
	if !refused { // a refused Secret is reported by ResolvedRefs
		b.valid(commonv1alpha1.ConditionSecretRefValid, "")
	}
}

// pemKeys are the data keys holding certificates or keys, which may be PEM
// or DER, and how to turn each into the PEM Konnect reads.
var pemKeys = map[string]func([]byte) (string, error){
	secretKeyTLSCert: certificatePEM,
	secretKeyCACert:  certificatePEM,
	secretKeyTLSKey:  privateKeyPEM,
}

// secretData returns the values of the given data keys of a Secret, all of
// which must be present and non-empty. Certificates and keys are returned
// as PEM, whether the Secret holds them as PEM or DER.
func (r *Refs) secretData(namespace, name string, keys ...string) (map[string]string, error) {
	secret, err := r.Secrets.Get(namespace, name)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%s %s/%s not found", kindSecret, namespace, name)
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(keys))
	var missing []string
	var problems []string
	for _, k := range keys {
		data := secret.Data[k]
		if len(data) == 0 {
			missing = append(missing, fmt.Sprintf("%q", k))
			continue
		}
		out[k] = string(data)
		if toPEM := pemKeys[k]; toPEM != nil {
			v, err := toPEM(data)
			if err != nil {
				problems = append(problems, fmt.Sprintf("data key %q %v", k, err))
			}
			out[k] = v
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s %s/%s has no data key %s", kindSecret, namespace, name, strings.Join(missing, ", "))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s %s/%s: %s", kindSecret, namespace, name, strings.Join(problems, "; "))
	}
	return out, nil
}

// secretKeys returns the keys of the Secrets refs name, for dependency
// indexes.
func secretKeys(own string, refs ...*commonv1alpha1.NamespacedRef) []string {
	var out []string
	for _, ref := range refs {
		out = append(out, namespacedRefKeys(ref, own)...)
	}
	return out
}
