package controller

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// updateFinalizers writes obj with the given finalizers and carries the new
// resource version over to obj, so that a status write can follow.
func updateFinalizers[T Object](ctx context.Context, client Client[T], obj T, finalizers []string) error {
	if slices.Equal(obj.GetFinalizers(), finalizers) {
		return nil
	}
	obj.SetFinalizers(finalizers)
	updated, err := client.Update(ctx, obj, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil {
		return err
	}
	obj.SetResourceVersion(updated.GetResourceVersion())
	return nil
}

func hasFinalizer(obj metav1.Object, finalizer string) bool {
	return slices.Contains(obj.GetFinalizers(), finalizer)
}

// fingerprint hashes what a write to Konnect depends on: the desired entity
// and the object's labels and annotations.
func fingerprint(desired any, obj metav1.Object) (uint64, error) {
	data, err := json.Marshal(struct {
		Desired     any               `json:"desired"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	}{desired, obj.GetLabels(), obj.GetAnnotations()})
	if err != nil {
		return 0, err
	}
	h := fnv.New64a()
	_, _ = h.Write(data)
	return h.Sum64(), nil
}

// SetFinalizer adds finalizer to obj, or removes it, when it is not already
// so, writing obj through client.
func SetFinalizer[T Object](ctx context.Context, client Client[T], obj T, finalizer string, present bool) error {
	if hasFinalizer(obj, finalizer) == present {
		return nil
	}
	finalizers := slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(f string) bool { return f == finalizer })
	if present {
		finalizers = append(finalizers, finalizer)
	}
	return updateFinalizers(ctx, client, obj, finalizers)
}
