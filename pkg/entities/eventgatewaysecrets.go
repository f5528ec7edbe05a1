package entities

import (
	"fmt"
	"strings"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// The sensitive values of the Event Gateway kinds (private keys,
// passwords, certificates) are given inline or read from a key of a
// Secret, named explicitly and labelled konghq.com/secret=true as every
// Secret the operator reads data from. A Secret in another
// namespace needs a KongReferenceGrant to core/Secret there. They are read
// to write the entity; a change of one reconciles the object again.

// egSecretRef is a Secret key a sensitive value names.
type egSecretRef struct {
	namespace, name, key string
}

// egSecretRefs returns the Secret keys that sources name, with own as the
// namespace of those that name none.
func egSecretRefs(own string, sources []egSensitiveData) []egSecretRef {
	var out []egSecretRef
	for _, s := range sources {
		if s.Type == configurationv1alpha1.SensitiveDataFromSecret && s.SecretRef != nil {
			out = append(out, egSecretRef{namespace: namespaceOr(s.SecretRef.Namespace, own), name: s.SecretRef.Name, key: s.SecretRef.Key})
		}
	}
	return out
}

// readingSensitiveData adds to p the Secrets that sources(obj) read
// values from, reported by SecretRefValid.
func readingSensitiveData[T egEntity](p placed[T], refs *Refs, kind string, sources func(T) []egSensitiveData) placed[T] {
	return p.with(reference[T]{
		conditions: []string{commonv1alpha1.ConditionSecretRefValid},
		resolve: func(b *resolver, obj T) {
			secrets := egSecretRefs(obj.GetNamespace(), sources(obj))
			if b.forDelete() || len(secrets) == 0 {
				return
			}
			refs.egSecrets(b, egReferrer(kind, obj), secrets)
		},
		dependencies: []controller.Dependency[T]{{
			Name:   "secrets",
			Source: refs.Secrets,
			Keys: func(obj T) []string {
				var keys []string
				for _, s := range egSecretRefs(obj.GetNamespace(), sources(obj)) {
					keys = append(keys, key(s.namespace, s.name))
				}
				return keys
			},
		}},
		namespaces: func(obj T) []string {
			var namespaces []string
			for _, s := range egSecretRefs(obj.GetNamespace(), sources(obj)) {
				namespaces = append(namespaces, s.namespace)
			}
			return namespaces
		},
	})
}

// egSecrets checks that every Secret key is there (and permitted), and
// sets SecretRefValid.
func (r *Refs) egSecrets(b *resolver, from referrer, secrets []egSecretRef) {
	var problems []string
	refused, malformed := false, false
	for _, s := range secrets {
		if s.namespace != from.namespace && !b.crossNamespace(fmt.Sprintf("%s %s/%s", kindSecret, s.namespace, s.name),
			r.permitted(from, groupCore, kindSecret, s.namespace, s.name)) {
			b.notReady()
			refused = true
			continue
		}
		if _, err := r.secretData(from, s.namespace, s.name, s.key); err != nil {
			err = r.explainUncached(b.ctx, err)
			problems = append(problems, err.Error())
			malformed = malformed || !secretAbsent(err)
		}
	}
	switch {
	case malformed:
		b.refuse(commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, "; "))
	case len(problems) > 0:
		b.invalid(commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, "; "))
	case !refused:
		b.valid(commonv1alpha1.ConditionSecretRefValid, "")
	}
}

// egSecretValue returns a sensitive value: the inline one, or the one its
// Secret holds.
func (r *Refs) egSecretValue(from referrer, s egSensitiveData) (string, error) {
	if s.Type != configurationv1alpha1.SensitiveDataFromSecret {
		return deref(s.Value), nil
	}
	if s.SecretRef == nil {
		return "", fmt.Errorf("a value of type secretRef names no Secret")
	}
	namespace := namespaceOr(s.SecretRef.Namespace, from.namespace)
	data, err := r.secretData(from, namespace, s.SecretRef.Name, s.SecretRef.Key)
	if err != nil {
		return "", err
	}
	return data[s.SecretRef.Key], nil
}

// egEncoderOf writes the spec of an object (from), reading its sensitive
// values from their Secrets, as from may.
func (r *Refs) egEncoderOf(from referrer) egEncoder {
	return egEncoder{secret: func(s egSensitiveData) (string, error) { return r.egSecretValue(from, s) }}
}
