package companions

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// Event reasons of KonnectAPIAuthConfigurations.
const (
	// EventTokenValid: Konnect accepted the token; the message names the
	// organisation.
	EventTokenValid = "TokenValid"
	// EventTokenInvalid: Konnect rejected the token, or it cannot be sent
	// as it is (it ends with a newline).
	EventTokenInvalid = "TokenInvalid"
	// EventTokenUnavailable: the token cannot be read (its Secret is
	// missing, unlabelled, or has no data key token).
	EventTokenUnavailable = "TokenUnavailable"
	// EventKonnectAPIOpFailed: Konnect could not be asked (unreachable,
	// timed out, or answered 5xx); nothing is known about the token.
	EventKonnectAPIOpFailed = commonv1alpha1.ReasonKonnectAPIOpFailed
	// EventDeletionBlocked: what is being deleted waits for what still
	// uses it, which the message names: an auth configuration for its
	// control planes and networks (a Warning), a token Secret for its auth
	// configurations, a watched namespace's RoleBinding for the objects
	// the operator must still clean up.
	EventDeletionBlocked = "DeletionBlocked"
)

// The condition a KonnectAPIAuthConfiguration being deleted carries while
// control planes still use it.
const (
	// ConditionDeletionBlocked is True on an auth configuration being
	// deleted while control planes or networks still refer to it.
	ConditionDeletionBlocked = "DeletionBlocked"
	// ReasonInUse: the auth configuration is still used; the message names
	// by what.
	ReasonInUse = "InUse"
)

const (
	indexControlPlanesByAuthConfig = "byAuthConfig"
	indexNetworksByAuthConfig      = "networksByAuthConfig"
)

// AuthConfigReconciler validates the token of each
// KonnectAPIAuthConfiguration with Konnect (GET /v3/organizations/me),
// records the organisation and the normalised server URL, and keeps the
// configuration with a finalizer until no control plane or cloud-gateway
// network uses it, so that
// their entities can still be deleted from Konnect. The finalizer is put on
// before the first validation, hence before any control plane can use the
// configuration (they wait for APIAuthValid), and the token's Secret is
// protected the same way (see TokenSecretReconciler): whatever is deleted
// first, and however often the operator restarts, the token stays readable
// for as long as something needs it.
type AuthConfigReconciler struct {
	// Refs hold the caches, and the Validations this controller keeps.
	Refs       *entities.Refs
	Clients    controller.ClientGetter[authConfig]
	Recorder   record.EventRecorder
	SyncPeriod time.Duration
	Clock      clock.PassiveClock
	Metrics    *metrics.ControllerMetrics
	// KonnectClients are released for a token that is replaced or whose
	// configuration goes; nil releases nothing.
	KonnectClients entities.ClientReleaser
	// Users are the other kinds whose objects name an auth configuration
	// of their own (portals).
	Users []AuthUser
}

// NewAuthConfigController returns the controller of
// KonnectAPIAuthConfigurations.
func NewAuthConfigController(r *AuthConfigReconciler, opts controller.Options) (*controller.Controller[authConfig], error) {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if err := r.Refs.ControlPlanes.AddIndex(indexControlPlanesByAuthConfig, entities.AuthConfigKeys); err != nil {
		return nil, err
	}
	if r.Refs.Networks != nil {
		if err := r.Refs.Networks.AddIndex(indexNetworksByAuthConfig, entities.NetworkAuthKeys); err != nil {
			return nil, err
		}
	}
	for _, u := range r.Users {
		if err := u.index(); err != nil {
			return nil, err
		}
	}
	c, err := controller.New("KonnectAPIAuthConfiguration", r.Refs.AuthConfigs, r, opts)
	if err != nil {
		return nil, err
	}
	if err := r.Refs.ReleaseReplacedTokens(r.KonnectClients); err != nil {
		return nil, err
	}
	deps := []controller.Dependency[authConfig]{
		{
			Name:   "secret",
			Source: r.Refs.Secrets,
			Keys: func(ac authConfig) []string {
				if ref := ac.Spec.SecretRef; ref != nil && ref.Name != "" {
					return []string{key(namespaceOr(ref.Namespace, ac.Namespace), ref.Name)}
				}
				return nil
			},
		},
		{
			// A control plane starting or stopping to use a configuration
			// decides its finalizer.
			Name: "user",
			Source: controller.SourceOf[controlPlane]{Informer: r.Refs.ControlPlanes, Key: func(cp controlPlane) string {
				if keys := entities.AuthConfigKeys(cp); len(keys) > 0 {
					return keys[0]
				}
				return ""
			}},
			Keys: func(ac authConfig) []string { return []string{key(ac.Namespace, ac.Name)} },
		},
		networkUsers(r.Refs),
		// Grants of the Secret's namespace decide whether the token can be
		// read; those of its own, which users of other namespaces keep it.
		entities.GrantDependency(r.Refs, func(ac authConfig) []string {
			namespaces := []string{ac.Namespace}
			if ref := ac.Spec.SecretRef; ref != nil {
				if ref.Namespace != "" && ref.Namespace != ac.Namespace {
					namespaces = append(namespaces, ref.Namespace)
				}
			}
			return namespaces
		}),
	}
	for _, u := range r.Users {
		deps = append(deps, u.dependency())
	}
	for _, dep := range deps {
		if err := c.Watch(dep); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Reconcile implements controller.Reconciler.
func (r *AuthConfigReconciler) Reconcile(ctx context.Context, k cache.ObjectName) (controller.Result, error) {
	cached, err := r.Refs.AuthConfigs.Get(k.Namespace, k.Name)
	if apierrors.IsNotFound(err) {
		r.Refs.Validations.Forget(k)
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	obj := cached.DeepCopy()
	users, err := r.users(k)
	if err != nil {
		return controller.Result{}, err
	}
	client := r.Clients(obj.Namespace)
	if isBeingDeleted(obj) {
		return r.finalize(ctx, k, cached, obj, users)
	}
	if err := controller.SetFinalizer(ctx, client, obj, commonv1alpha1.FinalizerAPIAuthInUse, true); err != nil {
		return controller.Result{}, err
	}

	result, warning, err := r.validate(ctx, obj)
	controller.SetReadiness(obj, authVerdict(obj, warning))
	written, werr := controller.WriteStatus(ctx, client, cached, obj)
	if written {
		r.Metrics.StatusWritten("KonnectAPIAuthConfiguration")
	}
	if warning != nil && conditionChanged(cached, obj, commonv1alpha1.ConditionAPIAuthValid) {
		r.Recorder.Event(obj, corev1.EventTypeWarning, warning.reason, warning.message)
	}
	return result, errors.Join(err, werr)
}

// finalize releases a configuration being deleted once no control plane
// uses it; until then it says which ones do.
func (r *AuthConfigReconciler) finalize(ctx context.Context, k cache.ObjectName, cached, obj authConfig, users []string) (controller.Result, error) {
	client := r.Clients(obj.Namespace)
	if len(users) > 0 {
		// Kept until the control planes using it are gone; their deletions
		// enqueue it again. They need its token to delete their entities,
		// so it is still checked: a configuration fixed while being
		// deleted (its Secret restored, its grant given back) lets them go.
		result, warning, verr := r.validate(ctx, obj)
		message := blockedBy(users)
		controller.SetCondition(obj, controller.TrueCondition(ConditionDeletionBlocked, ReasonInUse, message))
		controller.SetReadiness(obj, controller.Verdict{Standing: controller.Progressing, Reason: ReasonInUse, Message: message})
		written, err := controller.WriteStatus(ctx, client, cached, obj)
		if written {
			r.Metrics.StatusWritten("KonnectAPIAuthConfiguration")
		}
		if conditionChanged(cached, obj, ConditionDeletionBlocked) {
			r.Recorder.Event(obj, corev1.EventTypeWarning, EventDeletionBlocked, message)
		}
		if warning != nil && conditionChanged(cached, obj, commonv1alpha1.ConditionAPIAuthValid) {
			r.Recorder.Event(obj, corev1.EventTypeWarning, warning.reason, warning.message)
		}
		return result, errors.Join(verr, err)
	}
	if err := controller.SetFinalizer(ctx, client, obj, commonv1alpha1.FinalizerAPIAuthInUse, false); err != nil {
		return controller.Result{}, err
	}
	r.Refs.Validations.Forget(k)
	return controller.Result{}, nil
}

// warning is an Event to record when a condition changes for the worse.
// waits says that the token's Secret is not there yet: the configuration
// waits for it rather than needing a change.
type warning struct {
	reason, message string
	waits           bool
}

// authVerdict is where a configuration stands, from APIAuthValid and what
// the check found: Current when valid; Stalled when only a change (of the
// token, its Secret, a grant or the server URL) can make it valid;
// Progressing while it could not be checked yet or waits for its Secret.
func authVerdict(obj authConfig, w *warning) controller.Verdict {
	valid := meta.FindStatusCondition(obj.Status.Conditions, commonv1alpha1.ConditionAPIAuthValid)
	if valid == nil {
		return controller.Verdict{Standing: controller.Progressing, Reason: commonv1alpha1.ReasonPending, Message: "the token has not been checked with Konnect yet"}
	}
	v := controller.Verdict{Standing: controller.Progressing, Reason: valid.Reason, Message: valid.Message}
	switch {
	case valid.Status == metav1.ConditionTrue:
		v.Standing = controller.Current
	case valid.Status != metav1.ConditionFalse:
	case w == nil:
		// Not checked again this time (the Secret could not be protected):
		// it stands where it stood.
		if controller.IsConditionTrue(obj.Status.Conditions, commonv1alpha1.ConditionStalled) {
			v.Standing = controller.Stalled
		}
	case !w.waits:
		v.Standing = controller.Stalled
	}
	return v
}

// users names the control planes, networks and objects of Users
// (portals) that use the configuration with key k and are allowed to (its
// namespace, or a KongReferenceGrant of it), "(being deleted)" after those
// on their way out. One of another namespace that no grant allows never
// keeps the configuration, nor so its namespace: it could not use the token
// anyway.
func (r *AuthConfigReconciler) users(k cache.ObjectName) ([]string, error) {
	cps, err := r.Refs.ControlPlanes.ByIndex(indexControlPlanesByAuthConfig, k.String())
	if err != nil {
		return nil, err
	}
	allowed := func(kind string, user metav1.Object) bool {
		return r.Refs.MayUseAuthConfig(kind, user.GetNamespace(), k)
	}
	names := make([]string, 0, len(cps))
	for _, cp := range cps {
		if allowed(kindControlPlane, cp) {
			names = append(names, userName(kindControlPlane, cp))
		}
	}
	for _, u := range r.Users {
		users, err := u.usersOf(k.String(), allowed)
		if err != nil {
			return nil, err
		}
		names = append(names, users...)
	}
	if r.Refs.Networks == nil {
		return names, nil
	}
	networks, err := r.Refs.Networks.ByIndex(indexNetworksByAuthConfig, k.String())
	for _, n := range networks {
		if allowed(kindNetwork, n) {
			names = append(names, userName(kindNetwork, n))
		}
	}
	return names, err
}

// networkUsers reconciles a configuration again when a network starts or
// stops using it; its Source is nil when networks are not watched.
func networkUsers(refs *entities.Refs) controller.Dependency[authConfig] {
	dep := controller.Dependency[authConfig]{
		Name: "networkUser",
		Keys: func(ac authConfig) []string { return []string{key(ac.Namespace, ac.Name)} },
	}
	if refs.Networks != nil {
		dep.Source = controller.SourceOf[network]{Informer: refs.Networks, Key: func(n network) string {
			if keys := entities.NetworkAuthKeys(n); len(keys) > 0 {
				return keys[0]
			}
			return ""
		}}
	}
	return dep
}
