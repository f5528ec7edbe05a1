package operator

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// validPolicies checks the operator-wide defaults of the day-2 controls.
func validPolicies(p commonv1alpha1.PolicyDefaults) error {
	if p.Deletion != "" && !slices.Contains(commonv1alpha1.DeletionPolicies, p.Deletion) {
		return fmt.Errorf("the default deletion policy must be one of %v, not %q", commonv1alpha1.DeletionPolicies, p.Deletion)
	}
	if p.Reconcile != "" && !slices.Contains(commonv1alpha1.ReconcilePolicies, p.Reconcile) {
		return fmt.Errorf("the default reconcile policy must be one of %v, not %q", commonv1alpha1.ReconcilePolicies, p.Reconcile)
	}
	return nil
}

// clusterIdentity is the UID of the kube-system namespace: stable for the
// cluster's life, different in every cluster (one rebuilt from a backup
// included, which is why it can be set instead).
func clusterIdentity(ctx context.Context, kube kubernetes.Interface) (string, error) {
	ns, err := kube.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("reading the UID of the kube-system namespace, which names this cluster on the entities the operator writes (grant get on it, or set --cluster-identity): %w", err)
	}
	return string(ns.UID), nil
}

// labelValue is what Konnect accepts as a label value (with at most
// MaxLabelLength characters).
var labelValue = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$`)

// validClusterIdentity checks that the identity can be written whole, as a
// control plane's label value and in a tag: one cut short would name
// another cluster, and the operator would take its own entities for
// another's.
func validClusterIdentity(identity string) error {
	if len(identity) > controller.MaxLabelLength || !labelValue.MatchString(identity) {
		return fmt.Errorf("the cluster identity %q must be a Konnect label value: at most %d letters, digits, '-', '_' or '.', beginning and ending with a letter or digit", identity, controller.MaxLabelLength)
	}
	return nil
}
