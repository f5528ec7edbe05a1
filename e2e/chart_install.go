package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	authConfigKind = schema.GroupVersionKind{Group: konnectGroup, Version: "v1alpha1", Kind: "KonnectAPIAuthConfiguration"}
	// releaseSelector selects every object of the release.
	releaseSelector = "app.kubernetes.io/instance=konnect-operator"
)

// HelmChartInstallUpgradeUninstall is the Helm user's journey on a
// control plane of its own: install the chart (with an auth configuration
// and its token Secret, a NetworkPolicy and a PodDisruptionBudget), run two replicas out of cluster as the release's
// ServiceAccount, serving /metrics to Prometheus's ServiceAccount alone and
// keeping the token Secret with their finalizer, and reconcile a control
// plane and a service; upgrade to one replica watching one namespace with
// the ServiceMonitor, the alerts and the dashboard, and reconcile a change
// with the narrower RBAC; upgrade to two shards, then three, each leading
// with its own Lease and reconciling its own control plane; delete the objects and the auth configuration,
// which frees the token Secret; uninstall, leaving nothing of the release
// but the CRDs.
func HelmChartInstallUpgradeUninstall(t *testing.T) {
	ctx := t.Context()
	c, err := startCluster(ctx, filepath.Join(suite.workDir, "cluster-helm"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	h := newHelm(t, c)
	before, err := suite.sim.entities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ops []*operatorProcess
	stopOperators := func() {
		for _, op := range ops {
			if op.running() && !op.stop(20*time.Second) {
				t.Errorf("%s did not stop within 20s of SIGTERM", op.name)
			}
		}
		ops = nil
	}
	t.Cleanup(func() {
		for _, op := range ops {
			if t.Failed() {
				t.Logf("%s log:\n%s", op.name, op.tail(4000))
			}
		}
		stopOperators()
	})
	step := func(name string, f func(t *testing.T)) {
		t.Helper()
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	// A careful user's namespaces: the operator's enforces the restricted
	// Pod Security profile, which checkDeployment's dry run then applies.
	namespaces := map[string]map[string]string{
		operatorNamespace: {"pod-security.kubernetes.io/enforce": "restricted"},
		"team-a":          nil,
		"team-b":          nil,
	}
	for ns, labels := range namespaces {
		if _, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Prometheus's ServiceAccount (prometheusNamespace/prometheusServiceAccount)
	// may read /metrics, as the kustomize manifests let it. The pods carry
	// what platform teams add to every chart (labels, annotations, a
	// priority class, pull Secrets) and trust the CA of a TLS-inspecting
	// proxy from a ConfigMap, here the simulator's.
	values := writeValues(t, "helm-values.yaml", fmt.Sprintf("konnectAuth:\n  create: true\n  namespace: team-a\n  serverURL: %q\n  token: %q\n"+
		"metrics:\n  readerRole:\n    serviceAccounts: [{namespace: %s, name: %s}]\n",
		suite.sim.url, suite.sim.token, prometheusNamespace, prometheusServiceAccount)+platformValues)
	createPlatformObjects(ctx, t, c)

	step("helm install installs the CRDs, the operator, its NetworkPolicy and PodDisruptionBudget, and the auth configuration", func(t *testing.T) {
		out, err := h.run(ctx, "install", "konnect-operator", chartDir, "--namespace", operatorNamespace, "--values", values)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, suite.sim.token) {
			t.Fatal("helm install printed the token")
		}
		t.Logf("helm install:\n%s", out)
		waitCRDsEstablished(ctx, t, c)
		checkCRDsInstalled(ctx, t, c)
		checkCRDsOfTheRelease(ctx, t, c)
		checkDeployment(ctx, t, c)
		checkInstallGuards(ctx, t, c, operatorNamespace)
		checkPlatformValues(ctx, t, c)
		checkAccess(ctx, t, c, accessTable("team-a", "team-b"))
		checkSecretWrites(ctx, t, c)
		secret, err := c.kube.CoreV1().Secrets("team-a").Get(ctx, "konnect-auth-token", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if secret.Labels["konghq.com/credential"] != "konnect" || string(secret.Data["token"]) != suite.sim.token {
			t.Errorf("the token Secret is not labelled konghq.com/credential=konnect or does not hold the token given (labels %v)", secret.Labels)
		}
	})

	step("two replicas run as the release's ServiceAccount, serve /metrics to Prometheus alone and reconcile", func(t *testing.T) {
		ops = startOperators(ctx, t, c, 2)
		if _, err := leader(ctx, c, ops, patience); err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			checkMetricsAccess(ctx, t, c, op)
		}
		if _, err := c.kubectl(ctx, helmObjects, "apply", "--server-side", "-f", "-"); err != nil {
			t.Fatal(err)
		}
		// The auth configuration is the one the operator made at start.
		waitReady(ctx, t, c, authConfigKind, "konnect-auth", controlPlaneKind, "helm-cp", serviceKind, "orders")
		// The chart's RBAC and admission policy let the operator keep the
		// token Secret while the configuration reads it.
		if err := eventually(ctx, patience, tokenSecretKept(c, true)); err != nil {
			t.Fatal(err)
		}
	})

	step("helm test asks a replica's /readyz through the health Service", func(t *testing.T) {
		checkHelmTest(ctx, t, c, h, ops[0])
	})

	step("helm upgrade upgrades the CRDs: a field the chart's next version adds is refused before, accepted after", func(t *testing.T) {
		if out, err := applyProbeService(ctx, c); err == nil || !strings.Contains(err.Error(), probeField) {
			t.Fatalf("a KongService with %s was not refused before the upgrade: %v\n%s", probeField, err, out)
		}
		if _, err := h.run(ctx, "upgrade", "konnect-operator", chartWithNewField(t), "--namespace", operatorNamespace, "--values", values); err != nil {
			t.Fatal(err)
		}
		out, err := applyProbeService(ctx, c)
		if err != nil {
			t.Fatalf("a KongService with %s was refused after the upgrade: %v", probeField, err)
		}
		if !strings.Contains(out, probeField+": set") {
			t.Errorf("the API server would not store %s after the upgrade:\n%s", probeField, out)
		}
		// The auth configuration the operator made stays as it is.
		auth, err := c.get(ctx, authConfigKind, "team-a", "konnect-auth")
		if err != nil {
			t.Fatalf("after an upgrade the auth configuration the operator made is gone: %v", err)
		}
		if auth.GetLabels()["app.kubernetes.io/created-by"] != "konnect-operator" {
			t.Errorf("the auth configuration was not made by the operator: labels %v", auth.GetLabels())
		}
	})

	upgrade := writeValues(t, "helm-upgrade.yaml", `
replicaCount: 1
watchNamespaces: [team-a]
syncPeriod: 30s
metrics:
  serviceMonitor:
    enabled: true
    labels: {release: prometheus}
  prometheusRule:
    enabled: true
  dashboard:
    enabled: true
`)
	step("helm upgrade narrows the operator to one namespace and adds monitoring", func(t *testing.T) {
		if _, err := c.kubectl(ctx, monitoringCRDs, "apply", "--server-side", "-f", "-"); err != nil {
			t.Fatal(err)
		}
		waitCRDsEstablished(ctx, t, c)
		out, err := h.run(ctx, "upgrade", "konnect-operator", chartDir, "--namespace", operatorNamespace, "--values", values, "--values", upgrade)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("helm upgrade:\n%s", lastLines(out, 3))
		args, err := deploymentArgs(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, flag := range []string{"--watch-namespaces=team-a", "--sync-period=30s"} {
			if !slices.Contains(args, flag) {
				t.Errorf("the upgraded Deployment's arguments %v lack %s", args, flag)
			}
		}
		d, err := c.kube.AppsV1().Deployments(operatorNamespace).Get(ctx, operatorDeployment, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if *d.Spec.Replicas != 1 {
			t.Errorf("the upgraded Deployment has %d replicas, want 1", *d.Spec.Replicas)
		}
		if _, err := c.kube.PolicyV1().PodDisruptionBudgets(operatorNamespace).Get(ctx, "konnect-operator", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("a PodDisruptionBudget for one replica is left (%v): it would block every drain", err)
		}
		if _, err := c.kube.RbacV1().ClusterRoles().Get(ctx, "konnect-operator", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the ClusterRole for the namespaced kinds is left after narrowing to team-a (%v)", err)
		}
		const cfg = "configuration.konghq.com"
		checkAccess(ctx, t, c, []access{
			{"list", cfg, "kongservices", "", "team-a", true},
			{"update", cfg, "kongservices", "status", "team-a", true},
			{"list", "", "secrets", "", "team-a", true},
			{"create", "", "events", "", "default", true},
			{"list", cfg, "kongvaults", "", "", true},
			{"update", "coordination.k8s.io", "leases", "", operatorNamespace, true},
			{"list", cfg, "kongservices", "", "", false},
			{"list", cfg, "kongservices", "", "team-b", false},
			{"list", "", "secrets", "", "team-b", false},
		})
		checkMonitoringObjects(ctx, t, c)
		// This chart's CRDs again: the field is gone.
		if _, err := applyProbeService(ctx, c); err == nil {
			t.Errorf("a KongService with %s is still accepted after upgrading to a chart without it", probeField)
		}
	})

	step("the upgraded operator reconciles a change with the narrower RBAC", func(t *testing.T) {
		stopOperators()
		ops = startOperators(ctx, t, c, 1)
		if _, err := leader(ctx, c, ops, patience); err != nil {
			t.Fatal(err)
		}
		svc, err := c.get(ctx, serviceKind, "team-a", "orders")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.kubectl(ctx, "", "patch", "kongservice", "orders", "-n", "team-a", "--type=merge", "-p", `{"spec":{"port":8081}}`); err != nil {
			t.Fatal(err)
		}
		generation := svc.GetGeneration() + 1
		err = eventually(ctx, patience, func(ctx context.Context) error {
			obj, err := c.get(ctx, serviceKind, "team-a", "orders")
			if err != nil {
				return err
			}
			conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
			for _, item := range conditions {
				cond, _ := item.(map[string]any)
				if cond["type"] == "Programmed" && cond["status"] == "True" && fmt.Sprint(cond["observedGeneration"]) == fmt.Sprint(generation) {
					return nil
				}
			}
			return fmt.Errorf("KongService team-a/orders is not Programmed at generation %d: %v", generation, describeConditions(conditionsOf(obj)))
		})
		if err != nil {
			t.Fatal(err)
		}
		// Watching team-a alone, it keeps its rights there while team-a
		// has its objects.
		if err := eventually(ctx, patience, rightsBindingKept(c, true)); err != nil {
			t.Fatal(err)
		}
	})

	shards := []string{"a", "b"}
	step("helm upgrade to two shards: each runs a Deployment of its own, leads with a Lease of its own and reconciles its objects", func(t *testing.T) {
		if _, err := h.run(ctx, "upgrade", "konnect-operator", chartDir, "--namespace", operatorNamespace, "--values", values, "--values", upgrade,
			"--set", "shards={a,b}"); err != nil {
			t.Fatal(err)
		}
		for _, shard := range shards {
			ops = append(ops, startShard(ctx, t, c, shard))
		}
		for _, shard := range shards {
			checkShardReconciles(ctx, t, c, shard)
			// Each shard keeps the namespace's rights for its own objects.
			if err := eventually(ctx, 30*time.Second, shardRightsKept(c, shard, true)); err != nil {
				t.Fatal(err)
			}
		}
		// The NetworkPolicy selects the shards' pods too.
		checkInstallGuards(ctx, t, c, operatorNamespace)
		// The default instance leads on, with its Lease.
		if _, err := leader(ctx, c, ops, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	})

	step("helm upgrade to three shards adds the third, the others running on", func(t *testing.T) {
		if _, err := h.run(ctx, "upgrade", "konnect-operator", chartDir, "--namespace", operatorNamespace, "--values", values, "--values", upgrade,
			"--set", "shards={a,b,c}"); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, "c")
		ops = append(ops, startShard(ctx, t, c, "c"))
		checkShardReconciles(ctx, t, c, "c")
		for _, op := range ops {
			if !op.running() {
				t.Errorf("%s stopped with the upgrade", op.name)
			}
		}
	})

	step("deleting the objects and the chart's auth configuration while the operator runs empties Konnect and frees the token", func(t *testing.T) {
		for _, shard := range shards {
			deleteShardObjects(ctx, t, c, shard)
		}
		if _, err := c.kubectl(ctx, helmObjects, "delete", "-f", "-", "--timeout="+patience.String()); err != nil {
			t.Fatal(err)
		}
		err := eventually(ctx, patience, func(ctx context.Context) error {
			n, err := suite.sim.entities(ctx)
			if err != nil {
				return err
			}
			if n != before {
				return fmt.Errorf("the simulator holds %d entities, %d before the test", n, before)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// helm uninstall deletes the operator's RBAC and ServiceAccount
		// before the auth configuration: the operator could not release it
		// and its Secret then, so users delete it first, as NOTES.txt says.
		if _, err := c.kubectl(ctx, "", "delete", "konnectapiauthconfiguration", "konnect-auth", "-n", "team-a", "--timeout="+patience.String()); err != nil {
			t.Fatal(err)
		}
		if err := eventually(ctx, patience, tokenSecretKept(c, false)); err != nil {
			t.Fatal(err)
		}
		// With nothing left in team-a the operator lets go of its
		// RoleBinding there, so that the uninstall deletes it at once.
		if err := eventually(ctx, patience, rightsBindingKept(c, false)); err != nil {
			t.Fatal(err)
		}
		for _, shard := range shards {
			if err := eventually(ctx, 30*time.Second, shardRightsKept(c, shard, false)); err != nil {
				t.Fatal(err)
			}
		}
	})

	step("helm uninstall removes the release and keeps the CRDs", func(t *testing.T) {
		stopOperators()
		out, err := h.run(ctx, "uninstall", "konnect-operator", "--namespace", operatorNamespace, "--wait", "--timeout="+patience.String())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("helm uninstall: %s", strings.TrimSpace(out))
		left, err := c.kubectl(ctx, "", "get", "deployments,serviceaccounts,services,poddisruptionbudgets,networkpolicies,roles,rolebindings,configmaps,secrets,"+
			"clusterroles,clusterrolebindings,validatingadmissionpolicies,validatingadmissionpolicybindings,"+
			"servicemonitors,prometheusrules,konnectapiauthconfigurations",
			"--all-namespaces", "-l", releaseSelector, "-o", "name")
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(left) != "" {
			t.Errorf("left after helm uninstall:\n%s", left)
		}
		checkCRDsInstalled(ctx, t, c)
		releases, err := h.run(ctx, "list", "--namespace", operatorNamespace, "--short", "--deployed", "--failed", "--pending", "--uninstalled")
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(releases) != "" {
			t.Errorf("helm still lists releases: %s", releases)
		}
	})
}
