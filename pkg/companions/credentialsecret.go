package companions

import (
	"context"
	"errors"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// CredentialSecretReconciler turns the credential Secrets a Konnect-bound
// KongConsumer lists into KongCredential* objects owned by the consumer
// (and by the Secret), keeps their specs equal to the Secrets' data, and
// deletes them when the consumer no longer lists the Secret or the Secret
// is gone. A Secret that is not well formed leaves its object as it was.
type CredentialSecretReconciler struct {
	Consumers *controller.Informer[kongConsumer]
	Secrets   *controller.Informer[*corev1.Secret]
	Kinds     []entities.CredentialKind
}

// NewCredentialSecretController returns the controller of credential
// Secrets. Its queue holds the KongConsumers that list Secrets or that
// objects made from Secrets name, not the many others.
func NewCredentialSecretController(r *CredentialSecretReconciler, opts controller.Options) (*controller.Controller[kongConsumer], error) {
	c, err := controller.NewSelective("KongConsumerCredentialSecrets", r.Consumers, r.concerns, r, opts)
	if err != nil {
		return nil, err
	}
	if err := c.Watch(entities.CredentialSecretsDependency(r.Secrets)); err != nil {
		return nil, err
	}
	for _, k := range r.Kinds {
		if err := k.WatchManaged(c); err != nil {
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
	return slices.ContainsFunc(r.Kinds, func(kind entities.CredentialKind) bool { return kind.HasManaged(k) })
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
			kind, problems := entities.KindOfCredentialSecret(r.Kinds, secret)
			if kind == nil || len(problems) > 0 {
				keep[name] = true // reported on the consumer
				continue
			}
			if wanted[kind.SecretLabel()] == nil {
				wanted[kind.SecretLabel()] = map[string]*corev1.Secret{}
			}
			wanted[kind.SecretLabel()][name] = secret
		}
	}
	var errs []error
	pending := false
	for _, kind := range r.Kinds {
		p, err := kind.SyncManaged(ctx, k, consumer, wanted[kind.SecretLabel()], keep)
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
