package controller

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"maps"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// statusOf returns the Status field of one of the operator's API types.
func statusOf(obj any) any {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if f := v.FieldByName("Status"); f.IsValid() {
		return f.Interface()
	}
	return nil
}

// WriteStatus writes obj's status through the status subresource when it
// differs from cached's, and reports whether it wrote.
func WriteStatus[T Object](ctx context.Context, client Client[T], cached, obj T) (bool, error) {
	if equality.Semantic.DeepEqual(statusOf(cached), statusOf(obj)) {
		return false, nil
	}
	if _, err := client.UpdateStatus(ctx, obj, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
		return false, err
	}
	return true, nil
}

// patchOp is one operation of a JSON patch (RFC 6902).
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// patchFinalizers sets obj's finalizers with a JSON patch of
// metadata.finalizers alone, so that a user's concurrent edit of the spec,
// labels or annotations never conflicts with it; the patch tests that the
// finalizers are still those obj shows, so that another controller's
// concurrent change of them is never lost (the patch fails, and the
// reconcile is retried). The new resource version is carried over to obj,
// so that a status write can follow.
func patchFinalizers[T Object](ctx context.Context, client Client[T], obj T, finalizers []string) error {
	if slices.Equal(obj.GetFinalizers(), finalizers) {
		return nil
	}
	var current any // a missing list tests as null
	if len(obj.GetFinalizers()) > 0 {
		current = obj.GetFinalizers()
	}
	if finalizers == nil {
		finalizers = []string{}
	}
	patch, err := json.Marshal([]patchOp{
		{Op: "test", Path: "/metadata/finalizers", Value: current},
		{Op: "add", Path: "/metadata/finalizers", Value: finalizers},
	})
	if err != nil {
		return err
	}
	patched, err := client.Patch(ctx, obj.GetName(), types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	if apierrors.IsInvalid(err) {
		// The test failed (422): the finalizers changed since obj was
		// read, most often because another of the operator's controllers
		// added its own. A conflict: the next attempt reads them again.
		return apierrors.NewConflict(schema.GroupResource{Resource: "finalizers"}, obj.GetName(), err)
	}
	if err != nil {
		return err
	}
	obj.SetFinalizers(patched.GetFinalizers())
	obj.SetResourceVersion(patched.GetResourceVersion())
	return nil
}

func hasFinalizer(obj metav1.Object, finalizer string) bool {
	return slices.Contains(obj.GetFinalizers(), finalizer)
}

// fingerprint hashes what a write to Konnect depends on: the desired entity
// and the object's labels and annotations, but for the annotations of the
// day-2 controls and the shard label, which say how and by which process
// the operator acts, not what the entity is.
func fingerprint(desired any, obj metav1.Object) (uint64, error) {
	labels := obj.GetLabels()
	if _, ok := labels[commonv1alpha1.LabelShard]; ok {
		labels = maps.Clone(labels)
		delete(labels, commonv1alpha1.LabelShard)
	}
	annotations := obj.GetAnnotations()
	for _, control := range []string{commonv1alpha1.AnnotationDeletionPolicy, commonv1alpha1.AnnotationReconcilePolicy, commonv1alpha1.AnnotationProtected} {
		if _, ok := annotations[control]; ok {
			annotations = maps.Clone(annotations)
			delete(annotations, control)
		}
	}
	data, err := json.Marshal(struct {
		Desired     any               `json:"desired"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	}{desired, labels, annotations})
	if err != nil {
		return 0, err
	}
	h := fnv.New64a()
	_, _ = h.Write(data)
	return h.Sum64(), nil
}

// SetFinalizer adds finalizer to obj, or removes it, when it is not already
// so, patching obj through client.
func SetFinalizer[T Object](ctx context.Context, client Client[T], obj T, finalizer string, present bool) error {
	if hasFinalizer(obj, finalizer) == present {
		return nil
	}
	if !present {
		return removeFinalizers(ctx, client, obj, finalizer)
	}
	return patchFinalizers(ctx, client, obj, append(slices.Clone(obj.GetFinalizers()), finalizer))
}

// removeFinalizers removes the given finalizers from obj, if it holds any.
func removeFinalizers[T Object](ctx context.Context, client Client[T], obj T, finalizers ...string) error {
	keep := slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(f string) bool { return slices.Contains(finalizers, f) })
	return patchFinalizers(ctx, client, obj, keep)
}
