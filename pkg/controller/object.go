package controller

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// Object is an API object the loop can work on: a pointer to one of the
// operator's API types.
type Object interface {
	comparable
	metav1.Object
	runtime.Object
}

// Entity is an API object that maps to one Konnect entity.
type Entity interface {
	Object
	// GetConditions returns the status conditions.
	GetConditions() []metav1.Condition
	// SetConditions replaces the status conditions.
	SetConditions(conditions []metav1.Condition)
	// KonnectStatus returns where the entity lives in Konnect. It returns nil
	// when the status has no such block yet, unless init is true, in which
	// case the block is created. Only call it with init on a copy.
	KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus
	// SetObservedGeneration records the generation of the spec that the
	// status reports on.
	SetObservedGeneration(generation int64)
}

// Client writes one kind through the API server. The generated typed
// clients implement it.
type Client[T Object] interface {
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
}

// ClientGetter returns the Client for a namespace ("" for cluster-scoped
// kinds).
type ClientGetter[T Object] func(namespace string) Client[T]

// FieldManager names the operator in managedFields.
const FieldManager = "konnect-operator"
