package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// shardObjects is a control plane of shard %[1]s, which refers to the auth
// configuration that shard's operator creates (konnectAuth.create).
const shardObjects = `
apiVersion: konnect.konghq.com/v1alpha2
kind: KonnectGatewayControlPlane
metadata:
  name: shard-%[1]s-cp
  namespace: team-a
  labels:
    konnect.konghq.com/shard: %[1]s
spec:
  createControlPlaneRequest:
    name: e2e-helm-shard-%[1]s
    cluster_type: CLUSTER_TYPE_CONTROL_PLANE
  konnect:
    authRef:
      name: konnect-auth-%[1]s
`

// shardDeployment is the Deployment of a shard of the release.
func shardDeployment(shard string) string { return operatorDeployment + "-" + shard }

// startShard runs one replica of a shard's Deployment out of cluster as
// the release's ServiceAccount, and waits until it leads with the shard's
// own Lease.
func startShard(ctx context.Context, t *testing.T, c *clusterEnv, shard string) *operatorProcess {
	t.Helper()
	d, err := c.kube.AppsV1().Deployments(operatorNamespace).Get(ctx, shardDeployment(shard), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("shard %s has no Deployment: %v", shard, err)
	}
	container, err := operatorContainer(d)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(container.Args, "--shard="+shard) {
		t.Fatalf("the Deployment of shard %s does not run it: %v", shard, container.Args)
	}
	if d.Spec.Selector.MatchLabels[commonv1alpha1.LabelShard] != shard {
		t.Errorf("the Deployment of shard %s selects %v: not its own pods alone", shard, d.Spec.Selector.MatchLabels)
	}
	kubeconfig := filepath.Join(suite.workDir, "operators", fmt.Sprintf("serviceaccount-shard-%s-%d.kubeconfig", shard, time.Now().UnixNano()))
	if err := writeServiceAccountKubeconfig(ctx, c, kubeconfig); err != nil {
		t.Fatal(err)
	}
	op, err := startOperator(fmt.Sprintf("konnect-operator-shard-%s-%d", shard, time.Now().UnixNano()), kubeconfig, container.Args)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.waitReady(ctx, patience); err != nil {
		t.Fatalf("shard %s is not ready: %v", shard, err)
	}
	lease := leaseName + "-" + shard
	err = eventually(ctx, 30*time.Second, func(ctx context.Context) error {
		l, err := c.kube.CoordinationV1().Leases(operatorNamespace).Get(ctx, lease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != op.identity() {
			return fmt.Errorf("the Lease %s is held by %v, not by shard %s's replica", lease, l.Spec.HolderIdentity, shard)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// checkShardReconciles applies a control plane of the shard and waits for
// it, and for the auth configuration the shard's operator made in its
// shard, to be ready.
func checkShardReconciles(ctx context.Context, t *testing.T, c *clusterEnv, shard string) {
	t.Helper()
	if _, err := c.kubectl(ctx, fmt.Sprintf(shardObjects, shard), "apply", "--server-side", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	waitReady(ctx, t, c, authConfigKind, "konnect-auth-"+shard, controlPlaneKind, "shard-"+shard+"-cp")
	auth, err := c.get(ctx, authConfigKind, "team-a", "konnect-auth-"+shard)
	if err != nil {
		t.Fatal(err)
	}
	if got := auth.GetLabels()[commonv1alpha1.LabelShard]; got != shard {
		t.Errorf("shard %s made its auth configuration in shard %q", shard, got)
	}
}

// deleteShardObjects deletes a shard's control plane and auth
// configuration while its operator runs.
func deleteShardObjects(ctx context.Context, t *testing.T, c *clusterEnv, shard string) {
	t.Helper()
	if _, err := c.kubectl(ctx, fmt.Sprintf(shardObjects, shard), "delete", "-f", "-", "--timeout=90s"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.kubectl(ctx, "", "delete", "konnectapiauthconfiguration", "konnect-auth-"+shard, "-n", "team-a", "--timeout=60s"); err != nil {
		t.Fatal(err)
	}
}

// shardRightsKept checks whether a shard's operator keeps the RoleBinding
// of team-a with its own finalizer, as wanted: each shard keeps it while
// the namespace has objects of its shard.
func shardRightsKept(c *clusterEnv, shard string, want bool) func(context.Context) error {
	finalizer := commonv1alpha1.ShardFinalizer(commonv1alpha1.FinalizerNamespaceRights, shard)
	return func(ctx context.Context) error {
		b, err := c.kube.RbacV1().RoleBindings("team-a").Get(ctx, "konnect-operator-namespaced", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if kept := slices.Contains(b.Finalizers, finalizer); kept != want {
			return fmt.Errorf("the RoleBinding's finalizers are %v; want %s there: %v", b.Finalizers, finalizer, want)
		}
		return nil
	}
}
