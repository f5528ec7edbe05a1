package companions

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

const indexAuthConfigsByTokenSecret = "byTokenSecret"

// TokenSecretReconciler keeps the finalizer
// gateway.konghq.com/secret-in-use-by-konnect-resource on every token
// Secret (labelled konghq.com/credential=konnect) that a
// KonnectAPIAuthConfiguration reads, for as long as one does, and removes
// it once none does. Deleting a namespace deletes its Secrets together with
// everything else; without the finalizer the token could be gone before
// the control planes and entities that need it are deleted from Konnect,
// and a restarted operator could never delete them.
//
// The configuration itself protects its Secret before its first use (see
// AuthConfigReconciler); this controller, keyed by Secret, also sees the
// configurations that stopped referring to a Secret or went away, the
// grants that were revoked and the labels that were removed, including
// while the operator was not running.
type TokenSecretReconciler struct {
	Refs *entities.Refs
	// AuthConfigs are the configurations of every shard (nil: those of
	// Refs). Every shard reads the same token Secrets and keeps them with
	// the same finalizer, so each must see every configuration that may
	// use one: else a shard whose configurations let a Secret go would take
	// the finalizer off while another shard's still need the token.
	AuthConfigs *controller.Informer[authConfig]
	Recorder    record.EventRecorder
}

func (r *TokenSecretReconciler) configs() *controller.Informer[authConfig] {
	if r.AuthConfigs != nil {
		return r.AuthConfigs
	}
	return r.Refs.AuthConfigs
}

// NewTokenSecretController returns the controller of token Secrets.
func NewTokenSecretController(r *TokenSecretReconciler, opts controller.Options) (*controller.Controller[*corev1.Secret], error) {
	if err := r.configs().AddIndex(indexAuthConfigsByTokenSecret, entities.TokenSecretKeys); err != nil {
		return nil, err
	}
	c, err := controller.NewSelective("TokenSecret", r.Refs.Secrets, r.concerns, r, opts)
	if err != nil {
		return nil, err
	}
	deps := []controller.Dependency[*corev1.Secret]{
		{
			Name: "tokenUsers",
			Source: controller.SourceOf[authConfig]{
				Informer: r.configs(),
				Keys:     entities.TokenSecretKeys,
				// Which Secret a configuration reads is in its spec; its
				// status writes change nothing here.
				Updates: controller.SpecOrMetadataChanged[authConfig],
			},
			Keys: func(s *corev1.Secret) []string { return []string{key(s.Namespace, s.Name)} },
		},
		// A grant decides whether a configuration of another namespace may
		// use (and so keep) the Secret.
		entities.GrantDependency(r.Refs, func(s *corev1.Secret) []string { return []string{s.Namespace} }),
	}
	for _, dep := range deps {
		if err := c.Watch(dep); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// concerns reports whether a Secret has anything for the controller: it
// carries the in-use finalizer, or configurations name it. The credential and
// TLS Secrets that share its cache are left alone.
func (r *TokenSecretReconciler) concerns(s *corev1.Secret) bool {
	if slices.Contains(s.Finalizers, commonv1alpha1.FinalizerSecretInUse) {
		return true
	}
	configs, err := r.configs().ByIndex(indexAuthConfigsByTokenSecret, key(s.Namespace, s.Name))
	return err != nil || len(configs) > 0
}

// Reconcile implements controller.Reconciler.
func (r *TokenSecretReconciler) Reconcile(ctx context.Context, k cache.ObjectName) (controller.Result, error) {
	secret, err := r.Refs.Secrets.Get(k.Namespace, k.Name)
	if apierrors.IsNotFound(err) {
		if r.Refs.SecretClient == nil {
			return controller.Result{}, nil
		}
		// Gone, or no longer labelled: a Secret without the label is no
		// token (its configurations say so), and nothing may keep it.
		meta, err := r.Refs.SecretClient.Metadata(ctx, k.Namespace, k.Name)
		if apierrors.IsNotFound(err) {
			return controller.Result{}, nil
		}
		if err != nil {
			return controller.Result{}, err
		}
		return controller.Result{}, setSecretFinalizer(ctx, r.Refs, meta, false)
	}
	if err != nil {
		return controller.Result{}, err
	}
	users, err := r.users(secret)
	if err != nil {
		return controller.Result{}, err
	}
	inUse := len(users) > 0 && entities.IsTokenSecret(secret)
	if inUse && isBeingDeleted(secret) && slices.Contains(secret.Finalizers, commonv1alpha1.FinalizerSecretInUse) {
		r.Recorder.Eventf(secret, corev1.EventTypeNormal, EventDeletionBlocked,
			"kept by the finalizer %s until no KonnectAPIAuthConfiguration uses it; still used by %s",
			commonv1alpha1.FinalizerSecretInUse, strings.Join(users, ", "))
	}
	return controller.Result{}, setSecretFinalizer(ctx, r.Refs, &secret.ObjectMeta, inUse)
}

// users names the configurations that read the Secret's token and are
// allowed to (same namespace, or a KongReferenceGrant), being deleted or
// not. One that no grant allows keeps nothing: it could not read the
// token, and keeping the Secret would let it keep another namespace from
// being deleted.
func (r *TokenSecretReconciler) users(secret *corev1.Secret) ([]string, error) {
	configs, err := r.configs().ByIndex(indexAuthConfigsByTokenSecret, key(secret.Namespace, secret.Name))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ac := range configs {
		if r.Refs.TokenSecretRefusal(ac, secret.Namespace, secret.Name) == nil {
			out = append(out, fmt.Sprintf("%s %s/%s", kindAuthConfig, ac.Namespace, ac.Name))
		}
	}
	sort.Strings(out)
	return out, nil
}

// protectTokenSecret puts the in-use finalizer on a cached token Secret
// that lacks it. A Secret that is missing, unlabelled or already being
// deleted is left alone: the token read that follows reports the first two,
// and a Secret being deleted can take no new finalizer.
func protectTokenSecret(ctx context.Context, refs *entities.Refs, namespace, name string) error {
	secret, err := refs.Secrets.Get(namespace, name)
	if err != nil || !entities.IsTokenSecret(secret) || isBeingDeleted(secret) {
		return nil
	}
	return setSecretFinalizer(ctx, refs, &secret.ObjectMeta, true)
}

// setSecretFinalizer adds or removes the in-use finalizer of a Secret.
func setSecretFinalizer(ctx context.Context, refs *entities.Refs, secret *metav1.ObjectMeta, present bool) error {
	has := slices.Contains(secret.Finalizers, commonv1alpha1.FinalizerSecretInUse)
	if has == present || refs.SecretClient == nil || (present && isBeingDeleted(secret)) {
		return nil
	}
	finalizers := slices.DeleteFunc(slices.Clone(secret.Finalizers), func(f string) bool { return f == commonv1alpha1.FinalizerSecretInUse })
	if present {
		finalizers = append(finalizers, commonv1alpha1.FinalizerSecretInUse)
	}
	if err := refs.SecretClient.SetFinalizers(ctx, secret, finalizers); err != nil {
		return fmt.Errorf("setting the finalizers of Secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Set the token Secret's finalizer", "secret", klog.KRef(secret.Namespace, secret.Name), "present", present)
	return nil
}
