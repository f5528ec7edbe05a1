package entities

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// CredentialKind is one consumer credential kind as the KongConsumer kind
// and the credential-Secret controller (package companions) see it.
type CredentialKind interface {
	// SecretLabel is the konghq.com/credential value of the Secrets that
	// become objects of the kind.
	SecretLabel() string
	// secretProblems names what a Secret of the kind lacks; never values.
	secretProblems(data map[string][]byte) []string
	// deleteConsumerCredentials deletes every credential of the kind that
	// the consumer p.ParentID holds in Konnect.
	deleteConsumerCredentials(ctx context.Context, api konnect.API, p controller.Placement) error
	// WatchManaged makes changes of the objects made from Secrets reconcile
	// their consumer in c.
	WatchManaged(c *controller.Controller[kongConsumer]) error
	// HasManaged reports whether objects of the kind made from Secrets
	// name the consumer with the given key (or the cache cannot tell).
	HasManaged(consumerKey string) bool
	// SyncManaged makes the objects of the kind made from the Secrets of
	// the consumer with the given key equal to wanted (Secret name →
	// Secret), leaving those made from the Secrets in keep alone. A nil
	// consumer (gone or going) keeps none. It reports whether a creation is
	// still on its way to the cache.
	SyncManaged(ctx context.Context, consumerKey cache.ObjectName, consumer kongConsumer, wanted map[string]*corev1.Secret, keep map[string]bool) (bool, error)
	// runtimeObjectFromSecret is objectFromSecret's object (the one made
	// from one Secret of consumer), for callers that know no kind's type.
	runtimeObjectFromSecret(consumer kongConsumer, secret *corev1.Secret) runtime.Object
}

func (c *typedCredentialKind[T, D, A]) runtimeObjectFromSecret(consumer kongConsumer, secret *corev1.Secret) runtime.Object {
	return c.objectFromSecret(consumer, secret)
}

// SecretLabel implements CredentialKind.
func (c *typedCredentialKind[T, D, A]) SecretLabel() string { return c.table.label }

func (c *typedCredentialKind[T, D, A]) secretProblems(data map[string][]byte) []string {
	var problems []string
	for _, k := range c.table.required {
		if _, ok := data[k]; !ok {
			problems = append(problems, fmt.Sprintf("missing data key %q", k))
		}
	}
	if c.table.checkSecret != nil {
		problems = append(problems, c.table.checkSecret(data)...)
	}
	return problems
}

// KindOfCredentialSecret returns the kind a credential Secret stands for, or
// the problems that keep it from standing for one.
func KindOfCredentialSecret(kinds []CredentialKind, secret *corev1.Secret) (CredentialKind, []string) {
	label := secret.Labels[commonv1alpha1.LabelCredential]
	for _, k := range kinds {
		if k.SecretLabel() == label {
			return k, k.secretProblems(secret.Data)
		}
	}
	labels := make([]string, 0, len(kinds))
	for _, k := range kinds {
		labels = append(labels, k.SecretLabel())
	}
	return nil, []string{fmt.Sprintf("label %s must be one of %s", commonv1alpha1.LabelCredential, strings.Join(labels, ", "))}
}

// checkCredentialSecrets sets CredentialSecretRefsValid: every Secret a
// consumer lists exists, carries a credential label and holds the data
// keys of its kind.
func checkCredentialSecrets(b *resolver, refs *Refs, kinds []CredentialKind, consumer kongConsumer) {
	if len(consumer.Credentials) == 0 {
		return
	}
	var problems []string
	malformed := false
	for _, name := range consumer.Credentials {
		what := "Secret " + consumer.Namespace + "/" + name
		secret, err := refs.Secrets.Get(consumer.Namespace, name)
		if err != nil {
			err = refs.explainUncached(b.ctx, &uncachedSecretError{namespace: consumer.Namespace, name: name, label: credentialSecretLabel})
			problems = append(problems, err.Error())
			malformed = malformed || !secretAbsent(err)
			continue
		}
		if _, p := KindOfCredentialSecret(kinds, secret); len(p) > 0 {
			problems = append(problems, what+": "+strings.Join(p, ", "))
			malformed = true
		}
	}
	switch {
	case malformed:
		// A Secret without a credential's label or data: only a change of
		// it helps.
		b.refuse(commonv1alpha1.ConditionCredentialSecretRefsValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, "; "))
		return
	case len(problems) > 0:
		b.invalid(commonv1alpha1.ConditionCredentialSecretRefsValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, "; "))
		return
	}
	b.valid(commonv1alpha1.ConditionCredentialSecretRefsValid, "")
}

// CredentialSecretsDependency reconciles consumers again when a Secret they
// list changes.
func CredentialSecretsDependency(secrets *controller.Informer[*corev1.Secret]) controller.Dependency[kongConsumer] {
	return controller.Dependency[kongConsumer]{
		Name:   "credentialSecrets",
		Source: secrets,
		Keys: func(c kongConsumer) []string {
			keys := make([]string, 0, len(c.Credentials))
			for _, name := range c.Credentials {
				keys = append(keys, key(c.Namespace, name))
			}
			return keys
		},
	}
}

// CredentialFromSecret returns the credential object the operator makes
// from one of consumer's credential Secrets (adopting the credential the
// Secret's AnnotationAdoptID names), or an error naming what the Secret
// lacks.
func CredentialFromSecret(consumer *configurationv1.KongConsumer, secret *corev1.Secret) (runtime.Object, error) {
	refs := &Refs{}
	kinds := []CredentialKind{
		BasicAuthKind(CredentialDeps[kongBasicAuth]{Refs: refs}).CredentialKind,
		APIKeyKind(CredentialDeps[kongAPIKey]{Refs: refs}).CredentialKind,
		ACLKind(CredentialDeps[kongACL]{Refs: refs}).CredentialKind,
		JWTKind(CredentialDeps[kongJWT]{Refs: refs}).CredentialKind,
		HMACKind(CredentialDeps[kongHMAC]{Refs: refs}).CredentialKind,
	}
	kind, problems := KindOfCredentialSecret(kinds, secret)
	if len(problems) > 0 {
		return nil, fmt.Errorf("secret %s/%s: %v", secret.Namespace, secret.Name, problems)
	}
	return kind.runtimeObjectFromSecret(consumer, secret), nil
}
