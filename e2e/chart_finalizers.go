package e2e

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// tokenSecretKept checks whether the token Secret of the chart's auth
// configuration carries the operator's finalizer as wanted.
func tokenSecretKept(c *clusterEnv, want bool) func(context.Context) error {
	return func(ctx context.Context) error {
		secret, err := c.kube.CoreV1().Secrets("team-a").Get(ctx, "konnect-auth-token", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if kept := slices.Contains(secret.Finalizers, commonv1alpha1.FinalizerSecretInUse); kept != want {
			return fmt.Errorf("the token Secret's finalizers are %v; want %s there: %v", secret.Finalizers, commonv1alpha1.FinalizerSecretInUse, want)
		}
		return nil
	}
}

// rightsBindingKept checks whether the operator's RoleBinding in team-a
// carries its namespace-rights finalizer as wanted.
func rightsBindingKept(c *clusterEnv, want bool) func(context.Context) error {
	return func(ctx context.Context) error {
		b, err := c.kube.RbacV1().RoleBindings("team-a").Get(ctx, "konnect-operator-namespaced", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if kept := slices.Contains(b.Finalizers, commonv1alpha1.FinalizerNamespaceRights); kept != want {
			return fmt.Errorf("the RoleBinding's finalizers are %v; want %s there: %v", b.Finalizers, commonv1alpha1.FinalizerNamespaceRights, want)
		}
		return nil
	}
}
