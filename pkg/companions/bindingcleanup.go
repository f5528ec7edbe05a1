package companions

import (
	"context"
	"errors"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// ReasonPluginBindingDeleted is the reason of the Event a binding target
// gets for each KongPluginBinding deleted with it.
const ReasonPluginBindingDeleted = "PluginBindingDeleted"

// BindingCleanupReconciler keeps the cleanup-plugin-binding finalizer on
// the Konnect-bound objects of one kind (KongService, KongRoute,
// KongConsumer or KongConsumerGroup) while KongPluginBindings target them.
// When such an object is deleted, it deletes every binding that targets it,
// the user's as well as the managed ones, and lets the object go once they
// are gone.
type BindingCleanupReconciler[T controller.Entity] struct {
	// Kind is the description of T: it names the kind and tells whether an
	// object is Konnect-bound.
	Kind interface {
		KindName() string
		IsManaged(obj T) bool
	}
	Targets        *controller.Informer[T]
	Bindings       *controller.Informer[kongPluginBinding]
	Clients        controller.ClientGetter[T]
	BindingClients func(namespace string) entities.ObjectWriter[kongPluginBinding]
	Recorder       record.EventRecorder
}

// NewBindingCleanupController returns the controller of the
// cleanup-plugin-binding finalizer of one kind. Its queue holds objects of
// that kind: those that bindings target or that carry the finalizer, not
// the many others. Bindings bring their targets to it when they come,
// change what they target, start being deleted or go; their status writes
// do not.
func NewBindingCleanupController[T controller.Entity](r *BindingCleanupReconciler[T], opts controller.Options) (*controller.Controller[T], error) {
	if err := r.Bindings.AddIndex(r.index(), func(b kongPluginBinding) []string { return entities.TargetKeys(b, r.kind()) }); err != nil {
		return nil, err
	}
	c, err := controller.NewSelective(r.kind()+"PluginBindingCleanup", r.Targets, r.concerns, r, opts)
	if err != nil {
		return nil, err
	}
	err = c.Watch(controller.Dependency[T]{
		Name: "bindings",
		Source: controller.SourceOf[kongPluginBinding]{
			Informer: r.Bindings,
			Keys:     func(b kongPluginBinding) []string { return entities.TargetKeys(b, r.kind()) },
			Updates:  controller.SpecOrMetadataChanged[kongPluginBinding],
		},
		Keys: func(obj T) []string { return []string{key(obj.GetNamespace(), obj.GetName())} },
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// concerns reports whether obj has anything for the controller: bindings
// target it, or it carries the finalizer (put there before a restart, say,
// by bindings gone since).
func (r *BindingCleanupReconciler[T]) concerns(obj T) bool {
	if slices.Contains(obj.GetFinalizers(), commonv1alpha1.FinalizerCleanupPluginBinding) {
		return true
	}
	bindings, err := r.Bindings.ByIndex(r.index(), key(obj.GetNamespace(), obj.GetName()))
	return err != nil || len(bindings) > 0
}

func (r *BindingCleanupReconciler[T]) kind() string { return r.Kind.KindName() }

func (r *BindingCleanupReconciler[T]) index() string { return "bindingsTargeting" + r.kind() }

// Reconcile implements controller.Reconciler.
func (r *BindingCleanupReconciler[T]) Reconcile(ctx context.Context, k cache.ObjectName) (controller.Result, error) {
	cached, err := r.Targets.Get(k.Namespace, k.Name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	obj := cached.DeepCopyObject().(T)
	bindings, err := r.Bindings.ByIndex(r.index(), k.String())
	if err != nil {
		return controller.Result{}, err
	}
	client := r.Clients(k.Namespace)
	if !isBeingDeleted(obj) {
		targeted := len(bindings) > 0 && r.Kind.IsManaged(obj)
		return controller.Result{}, controller.SetFinalizer(ctx, client, obj, commonv1alpha1.FinalizerCleanupPluginBinding, targeted)
	}
	if !slices.Contains(obj.GetFinalizers(), commonv1alpha1.FinalizerCleanupPluginBinding) {
		return controller.Result{}, nil
	}
	var errs []error
	for _, b := range bindings {
		if isBeingDeleted(b) {
			continue
		}
		err := r.BindingClients(b.Namespace).Delete(ctx, b.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &b.UID}})
		switch {
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			// Gone already, or replaced by a new object of the same name,
			// which is handled when it shows up.
		case err != nil:
			errs = append(errs, err)
		default:
			r.Recorder.Eventf(obj, corev1.EventTypeNormal, ReasonPluginBindingDeleted,
				"Deleted KongPluginBinding %s, which targets this %s", b.Name, r.kind())
		}
	}
	if err := errors.Join(errs...); err != nil {
		return controller.Result{}, err
	}
	if len(bindings) > 0 {
		// Kept until the bindings are gone, so that they can still reach
		// their plugins in Konnect through this object; their deletion
		// brings this object back to the queue.
		return controller.Result{}, nil
	}
	return controller.Result{}, controller.SetFinalizer(ctx, client, obj, commonv1alpha1.FinalizerCleanupPluginBinding, false)
}
