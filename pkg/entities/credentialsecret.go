package entities

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// CredentialKind is one consumer credential kind as the KongConsumer kind
// and the credential-Secret controller see it.
type CredentialKind interface {
	// secretLabel is the konghq.com/credential value of the Secrets that
	// become objects of the kind.
	secretLabel() string
	// secretProblems names what a Secret of the kind lacks; never values.
	secretProblems(data map[string][]byte) []string
	// deleteConsumerCredentials deletes every credential of the kind that
	// the consumer p.ParentID holds in Konnect.
	deleteConsumerCredentials(ctx context.Context, api konnect.API, p controller.Placement) error
	// watchManaged makes changes of the objects made from Secrets reconcile
	// their consumer in c.
	watchManaged(c *controller.Controller[kongConsumer]) error
	// hasManaged reports whether objects of the kind made from Secrets
	// name the consumer with the given key (or the cache cannot tell).
	hasManaged(consumerKey string) bool
	// syncManaged makes the objects of the kind made from the Secrets of
	// the consumer with the given key equal to wanted (Secret name →
	// Secret), leaving those made from the Secrets in keep alone. A nil
	// consumer (gone or going) keeps none. It reports whether a creation is
	// still on its way to the cache.
	syncManaged(ctx context.Context, consumerKey cache.ObjectName, consumer kongConsumer, wanted map[string]*corev1.Secret, keep map[string]bool) (bool, error)
	// runtimeObjectFromSecret is objectFromSecret's object (the one made
	// from one Secret of consumer), for callers that know no kind's type.
	runtimeObjectFromSecret(consumer kongConsumer, secret *corev1.Secret) runtime.Object
}

func (c *typedCredentialKind[T, D, A]) runtimeObjectFromSecret(consumer kongConsumer, secret *corev1.Secret) runtime.Object {
	return c.objectFromSecret(consumer, secret)
}

func (c *typedCredentialKind[T, D, A]) secretLabel() string { return c.table.label }

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

// kindOfCredentialSecret returns the kind a credential Secret stands for, or
// the problems that keep it from standing for one.
func kindOfCredentialSecret(kinds []CredentialKind, secret *corev1.Secret) (CredentialKind, []string) {
	label := secret.Labels[commonv1alpha1.LabelCredential]
	for _, k := range kinds {
		if k.secretLabel() == label {
			return k, k.secretProblems(secret.Data)
		}
	}
	labels := make([]string, 0, len(kinds))
	for _, k := range kinds {
		labels = append(labels, k.secretLabel())
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
		if _, p := kindOfCredentialSecret(kinds, secret); len(p) > 0 {
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

// credentialSecretsDependency reconciles consumers again when a Secret they
// list changes.
func credentialSecretsDependency(secrets *controller.Informer[*corev1.Secret]) controller.Dependency[kongConsumer] {
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

// CredentialSecretReconciler turns the credential Secrets a Konnect-bound
// KongConsumer lists into KongCredential* objects owned by the consumer
// (and by the Secret), keeps their specs equal to the Secrets' data, and
// deletes them when the consumer no longer lists the Secret or the Secret
// is gone. A Secret that is not well formed leaves its object as it was.
type CredentialSecretReconciler struct {
	Consumers *controller.Informer[kongConsumer]
	Secrets   *controller.Informer[*corev1.Secret]
	Kinds     []CredentialKind
}

// NewCredentialSecretController returns the controller of credential
// Secrets. Its queue holds the KongConsumers that list Secrets or that
// objects made from Secrets name, not the many others.
func NewCredentialSecretController(r *CredentialSecretReconciler, opts controller.Options) (*controller.Controller[kongConsumer], error) {
	c, err := controller.NewSelective("KongConsumerCredentialSecrets", r.Consumers, r.concerns, r, opts)
	if err != nil {
		return nil, err
	}
	if err := c.Watch(credentialSecretsDependency(r.Secrets)); err != nil {
		return nil, err
	}
	for _, k := range r.Kinds {
		if err := k.watchManaged(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// concerns reports whether a consumer has anything for the controller: it
// lists Secrets, or objects made from Secrets name it (made before it
// stopped listing them, or before a restart).
func (r *CredentialSecretReconciler) concerns(consumer kongConsumer) bool {
	if len(consumer.Credentials) > 0 {
		return true
	}
	k := key(consumer.Namespace, consumer.Name)
	return slices.ContainsFunc(r.Kinds, func(kind CredentialKind) bool { return kind.hasManaged(k) })
}

// Reconcile implements controller.Reconciler.
func (r *CredentialSecretReconciler) Reconcile(ctx context.Context, k cache.ObjectName) (controller.Result, error) {
	consumer, err := r.Consumers.Get(k.Namespace, k.Name)
	if apierrors.IsNotFound(err) {
		// A consumer moved to another shard left this one without being
		// deleted: what was made for it stays, the other shard's now.
		other, err := r.Consumers.Elsewhere(ctx, k.Namespace, k.Name, true)
		if err != nil || other != nil {
			return controller.Result{}, err
		}
	}
	switch {
	case apierrors.IsNotFound(err) || (err == nil && isBeingDeleted(consumer)):
		// Its objects go with it. The garbage collector would not delete
		// them: the Secrets own them too.
		consumer = nil
	case err != nil:
		return controller.Result{}, err
	}
	wanted := map[string]map[string]*corev1.Secret{}
	keep := map[string]bool{}
	if consumer != nil && consumer.Spec.ControlPlaneRef.IsKonnect() {
		names := slices.Clone(consumer.Credentials)
		slices.Sort(names)
		for _, name := range slices.Compact(names) {
			secret, err := r.Secrets.Get(consumer.Namespace, name)
			if err != nil {
				continue // gone: so are its objects
			}
			kind, problems := kindOfCredentialSecret(r.Kinds, secret)
			if kind == nil || len(problems) > 0 {
				keep[name] = true // reported on the consumer
				continue
			}
			if wanted[kind.secretLabel()] == nil {
				wanted[kind.secretLabel()] = map[string]*corev1.Secret{}
			}
			wanted[kind.secretLabel()][name] = secret
		}
	}
	var errs []error
	pending := false
	for _, kind := range r.Kinds {
		p, err := kind.syncManaged(ctx, k, consumer, wanted[kind.secretLabel()], keep)
		pending = pending || p
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return controller.Result{}, err
	}
	if pending {
		// The new objects' own events normally come first.
		return controller.Result{RequeueAfter: time.Second}, nil
	}
	return controller.Result{}, nil
}
