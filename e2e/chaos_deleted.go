package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// deleteNamespace deletes the world's namespace at once, as a user would.
func (w *chaosWorld) deleteNamespace(ctx context.Context) {
	w.t.Helper()
	if err := w.c.kube.CoreV1().Namespaces().Delete(ctx, w.ns, metav1.DeleteOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

// namespaceGone reports whether the namespace is deleted.
func (w *chaosWorld) namespaceGone(ctx context.Context) bool {
	_, err := w.c.kube.CoreV1().Namespaces().Get(ctx, w.ns, metav1.GetOptions{})
	return apierrors.IsNotFound(err)
}

// stuck lists what is left of the namespace: its objects of the operator's
// kinds and its Secrets, with their finalizers.
func (w *chaosWorld) stuck(ctx context.Context) []string {
	var left []string
	for _, gvk := range []schema.GroupVersionKind{authKind, controlPlaneKind, serviceKind, routeKind, consumerKind} {
		items, err := w.c.list(ctx, gvk, w.ns)
		if err != nil {
			return []string{err.Error()}
		}
		for _, item := range items {
			left = append(left, describeLeft(gvk.Kind, &item))
		}
	}
	secrets, err := w.c.kube.CoreV1().Secrets(w.ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, s := range secrets.Items {
			left = append(left, fmt.Sprintf("Secret %s (finalizers %v)", s.Name, s.Finalizers))
		}
	}
	return left
}

func describeLeft(kind string, obj *unstructured.Unstructured) string {
	return fmt.Sprintf("%s %s (finalizers %v)", kind, obj.GetName(), obj.GetFinalizers())
}

// waitDeleted waits until the namespace is gone and Konnect holds nothing
// of the world's organisation, and returns how long it took; on a timeout
// it fails the test with what is stuck and what is left.
func (w *chaosWorld) waitDeleted(ctx context.Context, since time.Time, limit time.Duration) time.Duration {
	w.t.Helper()
	err := waitFor(ctx, limit, func(ctx context.Context) error {
		if !w.namespaceGone(ctx) {
			return fmt.Errorf("namespace %s still there; stuck: %s", w.ns, strings.Join(w.stuck(ctx), ", "))
		}
		return w.sim.empty(ctx)
	})
	if err != nil {
		w.t.Fatalf("chaos %s: %v", w.name, err)
	}
	return time.Since(since)
}

// empty says whether the simulator holds no entity of the world's
// organisation, and if not, how many are left.
func (s *simulator) empty(ctx context.Context) error {
	n, err := s.entities(ctx)
	if err != nil {
		return err
	}
	if n != 0 {
		return fmt.Errorf("%d entities left in Konnect", n)
	}
	return nil
}
