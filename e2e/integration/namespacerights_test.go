package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
	"github.com/konnect-operator/konnect-operator/pkg/operator"
)

// TestTheOperatorKeepsItsRightsUntilTheNamespaceIsEmpty runs an operator
// that watches one namespace and keeps its RoleBinding there. The binding
// carries no finalizer while the namespace has nothing of the operator's,
// gets it once an object appears, and, when the whole namespace is deleted,
// stays (Terminating, still granting) as long as an object does: here a
// KongReferenceGrant kept by a finalizer of the test, which stands for an
// object whose Konnect entity the operator still has to delete. Once it
// goes, the binding and the namespace go too. It needs no Konnect: what it
// checks is the binding's finalizer.
func TestTheOperatorKeepsItsRightsUntilTheNamespaceIsEmpty(t *testing.T) {
	t.Parallel()
	const binding, testFinalizer = "konnect-operator", "test.konnect-operator/keep"
	logger, _ := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	defer cancel()
	kube := kubernetes.NewForConfigOrDie(cluster.Config)
	cs := versioned.NewForConfigOrDie(cluster.Config)
	ns := "rights-" + rand.String(6)
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: binding},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "konnect-operator"}},
	}
	if _, err := kube.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Another RoleBinding of the namespace is none of the operator's business.
	other := rb.DeepCopy()
	other.Name = "someone-else"
	if _, err := kube.RbacV1().RoleBindings(ns).Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	op, err := operator.New(ctx, operator.Config{
		RestConfig: cluster.Config, WatchNamespaces: []string{ns}, NamespaceRightsBinding: binding,
		Registry: metrics.NewRegistry(), WorkersPerKind: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := op.Run(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("operator stopped: %v", err)
		}
	}()
	defer func() { cancel(); <-done }()

	kept := func(name string) (bool, *rbacv1.RoleBinding, error) {
		b, err := kube.RbacV1().RoleBindings(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil, err
		}
		return slices.Contains(b.Finalizers, commonv1alpha1.FinalizerNamespaceRights), b, nil
	}
	// The namespace controller looks again 8 s after a pass that finds
	// finalizers, and needs several passes: its waits get the tests' patience.
	waitFor := func(what string, check func() error) {
		t.Helper()
		var last error
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, patience, true, func(context.Context) (bool, error) {
			last = check()
			return last == nil, nil
		}); err != nil {
			t.Fatalf("%s: %v", what, last)
		}
	}
	grant := &configurationv1alpha1.KongReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kept", Finalizers: []string{testFinalizer}},
		Spec: configurationv1alpha1.KongReferenceGrantSpec{
			From: []configurationv1alpha1.ReferenceGrantFrom{{Group: "konnect.konghq.com", Kind: "KonnectGatewayControlPlane", Namespace: "elsewhere"}},
			To:   []configurationv1alpha1.ReferenceGrantTo{{Group: "konnect.konghq.com", Kind: "KonnectAPIAuthConfiguration"}},
		},
	}
	if _, err := cs.ConfigurationV1alpha1().KongReferenceGrants(ns).Create(ctx, grant, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the RoleBinding to be kept while the namespace has an object", func() error {
		if ok, b, err := kept(binding); err != nil || !ok {
			return fmt.Errorf("finalizers %v, %w", b.GetFinalizers(), err)
		}
		return nil
	})
	if ok, _, err := kept("someone-else"); err != nil || ok {
		t.Errorf("another RoleBinding of the namespace was kept too (%v)", err)
	}

	if err := kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the namespace controller to delete what it can", func() error {
		if _, err := kube.RbacV1().RoleBindings(ns).Get(ctx, "someone-else", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the other RoleBinding is still there (%w)", err)
		}
		if _, b, err := kept(binding); err != nil || b.DeletionTimestamp == nil {
			return fmt.Errorf("the operator's RoleBinding is not being deleted yet (%w)", err)
		}
		return nil
	})
	if ok, _, err := kept(binding); err != nil || !ok {
		t.Fatalf("the operator's RoleBinding lost its finalizer while the grant is still there (%v)", err)
	}

	patch := []byte(`{"metadata":{"finalizers":null}}`)
	if _, err := cs.ConfigurationV1alpha1().KongReferenceGrants(ns).Patch(ctx, "kept", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the RoleBinding and the namespace to go once the namespace is empty", func() error {
		if _, err := kube.RbacV1().RoleBindings(ns).Get(ctx, binding, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the operator's RoleBinding is still there (%w)", err)
		}
		if _, err := kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s is still there (%w)", ns, err)
		}
		return nil
	})
}
