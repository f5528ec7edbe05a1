package companions

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// A namespaced install grants the operator its rights in each watched
// namespace through a RoleBinding there (to a ClusterRole, which outlives
// the namespace). Deleting the namespace deletes that RoleBinding in no
// fixed order with the Kong objects; without it the operator could neither
// read the token nor remove its finalizers, and entities would stay in
// Konnect while the objects stay Terminating. So the operator keeps its
// RoleBinding with FinalizerNamespaceRights while the namespace has
// objects of its kinds, or token Secrets it keeps itself, and lets it go
// once they are all gone. The finalizer is there only while needed: a RoleBinding
// of an empty namespace (an uninstall after the objects were deleted, as
// the README asks) is deleted at once, operator or not.

// RightsKeepers lists, for one kind, the objects of a namespace that keep
// the operator's rights there.
type RightsKeepers struct {
	// Resource names the objects (kongservices, secrets) in the Event that
	// says what the RoleBinding waits for.
	Resource string
	// Source is the kind's cache keyed by namespace (see ByNamespace); its
	// adds, deletes and the updates it lets through enqueue the namespace's
	// RoleBinding.
	Source controller.EventSource
	// Names lists the keepers in a namespace, from the cache.
	Names func(namespace string) ([]string, error)
}

// ByNamespace is objects as the Source of RightsKeepers: each stands for
// its namespace. updates, when not nil, lets through only the updates that
// may change whether an object keeps the rights (a Secret's finalizers); with nil only
// adds and deletes count.
func ByNamespace[S controller.Object](objects *controller.Informer[S], updates func(oldObj, newObj S) bool) controller.SourceOf[S] {
	if updates == nil {
		updates = func(S, S) bool { return false }
	}
	return controller.SourceOf[S]{Informer: objects, Key: func(obj S) string { return obj.GetNamespace() }, Updates: updates}
}

// RoleBindingFinalizers writes the finalizers of a RoleBinding and nothing
// else of it.
type RoleBindingFinalizers interface {
	SetFinalizers(ctx context.Context, binding *rbacv1.RoleBinding, finalizers []string) error
}

// NamespaceRightsReconciler keeps FinalizerNamespaceRights on the
// operator's RoleBindings while their namespaces have its objects.
type NamespaceRightsReconciler struct {
	// Bindings caches the operator's RoleBinding in each watched namespace
	// (selected by name).
	Bindings *controller.Informer[*rbacv1.RoleBinding]
	Keepers  []RightsKeepers
	Writer   RoleBindingFinalizers
	Recorder record.EventRecorder
	// Finalizer is this shard's finalizer (commonv1alpha1.ShardFinalizer of
	// FinalizerNamespaceRights; empty means that one). Each shard sees its
	// own objects only, so each keeps the RoleBinding for them with a
	// finalizer of its own: the namespace keeps the rights until every
	// shard has cleaned up.
	Finalizer string
}

func (r *NamespaceRightsReconciler) finalizer() string {
	if r.Finalizer != "" {
		return r.Finalizer
	}
	return commonv1alpha1.FinalizerNamespaceRights
}

// NewNamespaceRightsController returns the controller of the operator's
// RoleBindings.
func NewNamespaceRightsController(r *NamespaceRightsReconciler, opts controller.Options) (*controller.Controller[*rbacv1.RoleBinding], error) {
	c, err := controller.New("NamespaceRights", r.Bindings, r, opts)
	if err != nil {
		return nil, err
	}
	byNamespace := func(b *rbacv1.RoleBinding) []string { return []string{b.Namespace} }
	for _, h := range r.Keepers {
		err := c.Watch(controller.Dependency[*rbacv1.RoleBinding]{
			Name:   "rightsKeepers:" + h.Resource,
			Source: h.Source,
			Keys:   byNamespace,
		})
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Reconcile implements controller.Reconciler.
func (r *NamespaceRightsReconciler) Reconcile(ctx context.Context, key cache.ObjectName) (controller.Result, error) {
	binding, err := r.Bindings.Get(key.Namespace, key.Name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	keepers, err := r.keepers(binding.Namespace)
	if err != nil {
		return controller.Result{}, err
	}
	finalizer := r.finalizer()
	present := slices.Contains(binding.Finalizers, finalizer)
	needed := len(keepers) > 0
	if needed && isBeingDeleted(binding) {
		r.Recorder.Eventf(binding, corev1.EventTypeNormal, EventDeletionBlocked,
			"kept by the finalizer %s until the operator has cleaned up %s", finalizer, summarize(keepers))
	}
	// A RoleBinding being deleted can take no new finalizer.
	if present == needed || (needed && isBeingDeleted(binding)) {
		return controller.Result{}, nil
	}
	finalizers := slices.DeleteFunc(slices.Clone(binding.Finalizers), func(f string) bool { return f == finalizer })
	if needed {
		finalizers = append(finalizers, finalizer)
	}
	if err := r.Writer.SetFinalizers(ctx, binding, finalizers); err != nil {
		return controller.Result{}, fmt.Errorf("setting the finalizers of RoleBinding %s/%s: %w", binding.Namespace, binding.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Set the finalizer of the operator's RoleBinding", "roleBinding", klog.KObj(binding), "present", needed, "keepers", len(keepers))
	return controller.Result{}, nil
}

// keepers lists what keeps the operator's rights in namespace, as
// "resource/name".
func (r *NamespaceRightsReconciler) keepers(namespace string) ([]string, error) {
	var out []string
	for _, h := range r.Keepers {
		names, err := h.Names(namespace)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			out = append(out, h.Resource+"/"+name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// summarize names the first few keepers and counts the rest.
func summarize(keepers []string) string {
	const shown = 5
	if len(keepers) <= shown {
		return strings.Join(keepers, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keepers[:shown], ", "), len(keepers)-shown)
}

// ObjectsIn lists the names of the cached objects of a namespace that keep
// the rights: those keeps accepts (every object when keeps is nil).
func ObjectsIn[T controller.Object](objects *controller.Informer[T], keeps func(T) bool) func(namespace string) ([]string, error) {
	return func(namespace string) ([]string, error) {
		cached, err := objects.ByIndex(cache.NamespaceIndex, namespace)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, obj := range cached {
			if keeps == nil || keeps(obj) {
				names = append(names, obj.GetName())
			}
		}
		return names, nil
	}
}

// TokenSecretInUse reports whether a Secret carries the operator's in-use
// finalizer, which only the operator can remove.
func TokenSecretInUse(s *corev1.Secret) bool {
	return slices.Contains(s.Finalizers, commonv1alpha1.FinalizerSecretInUse)
}

// FinalizersChanged lets through the updates that add or remove a
// finalizer.
func FinalizersChanged[S metav1.Object](oldObj, newObj S) bool {
	return !slices.Equal(oldObj.GetFinalizers(), newObj.GetFinalizers())
}
