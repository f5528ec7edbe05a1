package entities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// SecretClient reads Secrets' metadata and writes their finalizers through
// the API server. The operator caches only the Secrets that carry its
// labels; the client reads the metadata of one named Secret past that
// cache (to tell a missing Secret from an unlabelled one, whose data is
// never read) and writes the finalizer that protects token Secrets.
type SecretClient interface {
	// Metadata reads one Secret's metadata: its labels, finalizers and
	// resource version, never its data.
	Metadata(ctx context.Context, namespace, name string) (*metav1.ObjectMeta, error)
	// SetFinalizers replaces the finalizers of the Secret secret describes,
	// failing with a conflict when it changed since secret was read.
	SetFinalizers(ctx context.Context, secret *metav1.ObjectMeta, finalizers []string) error
}

// uncachedSecretError is a Secret the label-filtered cache does not hold:
// it does not exist, or it lacks the label the operator selects it by.
type uncachedSecretError struct {
	namespace, name string
	// label is the label the Secret needs; value "" means any value.
	label secretLabel
}

// secretLabel is a label a Secret needs for one use.
type secretLabel struct {
	key, value string
	// values describes the accepted values when any value is taken.
	values string
}

func (l secretLabel) String() string {
	switch {
	case l.value != "":
		return l.key + "=" + l.value
	case l.values != "":
		return l.key + " (" + l.values + ")"
	}
	return l.key
}

func (l secretLabel) on(secret *corev1.Secret) bool { return l.onLabels(secret.Labels) }

func (l secretLabel) onLabels(labels map[string]string) bool {
	if l.value == "" {
		return labels[l.key] != ""
	}
	return labels[l.key] == l.value
}

func (e *uncachedSecretError) Error() string {
	return fmt.Sprintf("%s %s/%s not found, or not labelled %s (only Secrets with that label are read)", kindSecret, e.namespace, e.name, e.label)
}

// unlabelled is the error of a Secret that exists without the label its use
// needs.
func unlabelled(namespace, name string, label secretLabel, has string) error {
	message := fmt.Sprintf("%s %s/%s lacks the label %s", kindSecret, namespace, name, label)
	if has != "" {
		message += " (it has " + has + ")"
	}
	return errors.New(message + ": add it, the operator only reads Secrets so labelled")
}

// explainUncached replaces an uncachedSecretError with what one read of
// the Secret past the cache finds: missing, or there without the label.
// Other errors are returned as they are.
func (r *Refs) explainUncached(ctx context.Context, err error) error {
	var uncached *uncachedSecretError
	if !errors.As(err, &uncached) || r.SecretClient == nil {
		return err
	}
	secret, getErr := r.SecretClient.Metadata(ctx, uncached.namespace, uncached.name)
	switch {
	case apierrors.IsNotFound(getErr):
		return &secretAbsentError{fmt.Sprintf("%s %s/%s not found", kindSecret, uncached.namespace, uncached.name)}
	case getErr != nil:
		return fmt.Errorf("%w; reading it from the API server failed: %w", err, getErr)
	}
	if !uncached.label.onLabels(secret.Labels) {
		return unlabelled(uncached.namespace, uncached.name, uncached.label, hasLabel(secret.Labels, uncached.label.key))
	}
	// Labelled a moment ago: the cache will hold it soon, and its arrival
	// reconciles the objects that refer to it.
	return &secretAbsentError{fmt.Sprintf("%s %s/%s is not in the operator's cache yet", kindSecret, uncached.namespace, uncached.name)}
}

// secretAbsentError is a Secret that does not exist, or that the operator
// has not read yet: what needs it waits for it, as for any reference that
// is not there yet.
type secretAbsentError struct{ message string }

func (e *secretAbsentError) Error() string { return e.message }

// secretAbsent reports whether err says that a Secret is not there (or may
// not be: not cached and not read past the cache).
func secretAbsent(err error) bool {
	var absent *secretAbsentError
	var uncached *uncachedSecretError
	return errors.As(err, &absent) || errors.As(err, &uncached)
}

// secretRefs resolves the Secrets an object names explicitly and reads
// data from (a certificate's key pairs), each of which must hold the given
// data keys, and sets SecretRefValid. Each needs the label
// konghq.com/secret=true, as Kong Operator asks: an unlabelled Secret is
// never read, whoever may name it. Secrets in other namespaces need a
// KongReferenceGrant to core/Secret.
func (r *Refs) secretRefs(b *resolver, from referrer, keys []string, refs ...*commonv1alpha1.NamespacedRef) {
	var problems []string
	refused, malformed := false, false
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
		if _, err := r.secretData(from, namespace, ref.Name, keys...); err != nil {
			err = r.explainUncached(b.ctx, err)
			problems = append(problems, err.Error())
			malformed = malformed || !secretAbsent(err)
		}
	}
	switch {
	case malformed:
		// A Secret without the label or the data its use needs: only a
		// change of it helps, and the change reconciles the object again.
		b.refuse(commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, "; "))
	case len(problems) > 0:
		b.invalid(commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, "; "))
	case !refused: // a refused Secret is reported by ResolvedRefs
		b.valid(commonv1alpha1.ConditionSecretRefValid, "")
	}
}

// Labels of the Secrets the operator reads, as Kong Operator selects them:
// a token's and a consumer credential's, whose label also says what the
// Secret holds, and those of certificates and plugin configurations.
var (
	tokenSecretLabel      = secretLabel{key: commonv1alpha1.LabelCredential, value: "konnect"}
	credentialSecretLabel = secretLabel{key: commonv1alpha1.LabelCredential, values: "basic-auth, key-auth, acl, jwt or hmac"}
	dataSecretLabel       = secretLabel{key: commonv1alpha1.LabelSecret, value: "true"}
)

// hasLabel describes the value a Secret has for key, "" when none.
func hasLabel(labels map[string]string, key string) string {
	if v, ok := labels[key]; ok {
		return key + "=" + v
	}
	return ""
}

// pemKeys are the data keys holding certificates or keys, which may be PEM
// or DER, and how to turn each into the PEM Konnect reads.
var pemKeys = map[string]func([]byte) (string, error){
	secretKeyTLSCert: certificatePEM,
	secretKeyCACert:  certificatePEM,
	secretKeyTLSKey:  privateKeyPEM,
}

// secretData returns the values of the given data keys of a Secret that
// from names explicitly, read now: one of another namespace only under a
// KongReferenceGrant (see readSecretData).
func (r *Refs) secretData(from referrer, namespace, name string, keys ...string) (map[string]string, error) {
	if namespace != from.namespace && !r.permitted(from, groupCore, kindSecret, namespace, name) {
		return nil, &secretNotPermittedError{grant: grantFor(from, groupCore, kindSecret, namespace, name)}
	}
	return r.readSecretData(namespace, name, keys...)
}

// readSecretData returns the values of the given data keys of a Secret
// labelled konghq.com/secret=true, which must hold every key with a
// non-empty value; the caller decided that it may be read. Certificates and
// keys are returned as PEM, whether the Secret holds them as PEM or DER. A
// Secret that is missing from the cache (absent, or labelled otherwise) is
// an uncachedSecretError, which explainUncached tells apart.
func (r *Refs) readSecretData(namespace, name string, keys ...string) (map[string]string, error) {
	if r.Secrets == nil {
		return nil, fmt.Errorf("%s %s/%s cannot be read: no Secrets are watched", kindSecret, namespace, name)
	}
	secret, err := r.Secrets.Get(namespace, name)
	if apierrors.IsNotFound(err) {
		return nil, &uncachedSecretError{namespace: namespace, name: name, label: dataSecretLabel}
	}
	if err != nil {
		return nil, err
	}
	if !dataSecretLabel.on(secret) {
		// Cached for another use (a credential's, a token's): not this one.
		return nil, unlabelled(namespace, name, dataSecretLabel, hasLabel(secret.Labels, dataSecretLabel.key))
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
