package controller

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned/fake"
)

// refusedTestClient answers every patch as the API server answers a JSON
// patch whose test operation fails: 422.
type refusedTestClient struct {
	Client[svc]
	patches int
}

func (c *refusedTestClient) Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (svc, error) {
	c.patches++
	return nil, apierrors.NewInvalid(schema.GroupKind{Group: "configuration.konghq.com", Kind: "KongService"}, "s", nil)
}

// TestFinalizersChangedMeanwhileIsAConflict: another controller adding its
// own finalizer between our read and our patch makes the patch's test
// fail; that is a stale read, retried quietly, not a failed reconcile.
func TestFinalizersChangedMeanwhileIsAConflict(t *testing.T) {
	client := &refusedTestClient{Client: fake.NewSimpleClientset().ConfigurationV1alpha1().KongServices("ns")}
	obj := newService("s")
	obj.Finalizers = []string{"other"}
	for _, present := range []bool{true, false} {
		finalizer := "mine"
		if !present {
			finalizer = "other"
		}
		err := SetFinalizer[svc](t.Context(), client, obj, finalizer, present)
		if !apierrors.IsConflict(err) {
			t.Errorf("present=%v: a failed test operation returned %v, want a conflict", present, err)
		}
	}
	if client.patches != 2 {
		t.Errorf("%d patches sent, want 2", client.patches)
	}
}
