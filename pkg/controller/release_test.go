package controller

import (
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2/ktesting"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

func TestDeletingABorrowingObjectLeavesItsEntityInKonnect(t *testing.T) {
	deleting := newService("mirror")
	deleting.Finalizers = []string{commonv1alpha1.FinalizerKonnectCleanup}
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	deleting.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndCertificateAndCACertificatesRefs{}
	deleting.Status.Konnect.ID = "borrowed"
	f := newReconcilerFixture(t, deleting)
	f.reconciler.kind.Borrows = func(svc) bool { return true }
	f.reconciler.kind.UsedBy = []string{"controlPlane"}

	_, ctx := ktesting.NewTestContext(t)
	if _, err := f.reconciler.Reconcile(ctx, cache.NewObjectName("ns", "mirror")); err != nil {
		t.Fatal(err)
	}
	if c := f.counts; c.deletes+c.finds != 0 {
		t.Fatalf("deleting a borrowing object looked up %d and deleted %d entities", c.finds, c.deletes)
	}
	got, err := f.client.ConfigurationV1alpha1().KongServices("ns").Get(ctx, "mirror", metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if err == nil && len(got.Finalizers) != 0 {
		t.Fatalf("finalizers %v left on a borrowing object without referrers", got.Finalizers)
	}
}

func TestALostStatusWriteIsFollowedByAnotherSync(t *testing.T) {
	f := newReconcilerFixture(t, newService("svc"))
	failed := false
	f.client.PrependReactor("update", "kongservices", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() == "status" && !failed {
			failed = true
			return true, nil, apierrors.NewConflict(configurationv1alpha1.Resource("kongservices"), "svc", nil)
		}
		return false, nil, nil
	})
	_, ctx := ktesting.NewTestContext(t)
	key := cache.NewObjectName("ns", "svc")
	if _, err := f.reconciler.Reconcile(ctx, key); !apierrors.IsConflict(err) {
		t.Fatalf("first reconcile: err = %v, want the status write's conflict", err)
	}
	f.refresh(t, "svc")
	// What the kind recorded in the lost status can only be recorded
	// again by syncing again, even within the sync period.
	if _, err := f.reconciler.Reconcile(ctx, key); err != nil {
		t.Fatalf("second reconcile: %v", err)
	}
	if f.counts.creates != 1 || f.counts.updates != 1 {
		t.Fatalf("%d creates and %d updates, want one of each", f.counts.creates, f.counts.updates)
	}
}
