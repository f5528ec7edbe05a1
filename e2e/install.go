package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// install applies a kustomization of manifests/ the way the README tells
// users to, and waits until the CRDs are served.
func install(ctx context.Context, t *testing.T, c *clusterEnv, kustomization string) {
	t.Helper()
	out, err := c.kubectl(ctx, "", "apply", "--server-side", "-k", filepath.Join(suite.root, kustomization))
	if err != nil {
		t.Fatalf("kubectl apply --server-side -k %s: %v", kustomization, err)
	}
	t.Logf("kubectl apply --server-side -k %s:\n%s", kustomization, out)
	waitCRDsEstablished(ctx, t, c)
}

// waitCRDsEstablished waits until every CRD on the API server is
// Established. It reads the CRDs itself rather than running `kubectl wait
// --for=condition=Established crd --all`: that command fails at once, with
// "accessor error: <nil>", when it meets a CRD whose status has no
// conditions yet, which a loaded API server shows for a moment after the
// CRD is created.
func waitCRDsEstablished(ctx context.Context, t *testing.T, c *clusterEnv) {
	t.Helper()
	err := eventually(ctx, patience, func(ctx context.Context) error {
		out, err := c.kubectl(ctx, "", "get", "customresourcedefinitions", "-o", "json")
		if err != nil {
			return err
		}
		var list struct {
			Items []struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
				Status struct {
					Conditions []metav1.Condition `json:"conditions"`
				} `json:"status"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			return fmt.Errorf("kubectl get customresourcedefinitions -o json: %w", err)
		}
		if len(list.Items) == 0 {
			return errors.New("no CRDs on the API server")
		}
		for _, crd := range list.Items {
			if !meta.IsStatusConditionTrue(crd.Status.Conditions, "Established") {
				return fmt.Errorf("CRD %s is not Established yet", crd.Metadata.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkDeployment asserts what the brief of the Deployment promises: two
// replicas, probes on the health port, limits, a locked-down container and
// POD_NAMESPACE from the downward API; and that the restricted Pod Security
// profile of the namespace admits its pods (server-side dry run: this
// control plane has no nodes to run them on).
func checkDeployment(ctx context.Context, t *testing.T, c *clusterEnv) {
	t.Helper()
	d, err := c.kube.AppsV1().Deployments(operatorNamespace).Get(ctx, operatorDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	container, err := operatorContainer(d)
	if err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	sc := container.SecurityContext
	checks := []struct {
		name string
		ok   bool
	}{
		{"two replicas", d.Spec.Replicas != nil && *d.Spec.Replicas == 2},
		{"leader election on", hasFlag(container.Args, "--leader-elect=true")},
		{"runs as the operator's ServiceAccount", pod.ServiceAccountName == operatorServiceAccount},
		{"liveness probe on /healthz of the health port", probeOn(container.LivenessProbe, "/healthz", "health")},
		{"readiness probe on /readyz of the health port", probeOn(container.ReadinessProbe, "/readyz", "health")},
		{"health port is --health-probe-bind-address", hasFlag(container.Args, "--health-probe-bind-address=:8081") && portNamed(container, "health") == 8081},
		{"metrics port is --metrics-bind-address", hasFlag(container.Args, "--metrics-bind-address=:8443") && portNamed(container, "metrics") == 8443},
		{"cpu and memory requests and limits", !container.Resources.Requests.Cpu().IsZero() && !container.Resources.Requests.Memory().IsZero() &&
			!container.Resources.Limits.Cpu().IsZero() && !container.Resources.Limits.Memory().IsZero()},
		{"non-root", pod.SecurityContext != nil && pod.SecurityContext.RunAsNonRoot != nil && *pod.SecurityContext.RunAsNonRoot},
		{"seccomp RuntimeDefault", pod.SecurityContext != nil && pod.SecurityContext.SeccompProfile != nil &&
			pod.SecurityContext.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault},
		{"read-only root filesystem", sc != nil && sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem},
		{"no privilege escalation", sc != nil && sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation},
		{"every capability dropped", sc != nil && sc.Capabilities != nil && len(sc.Capabilities.Drop) == 1 && sc.Capabilities.Drop[0] == "ALL"},
		{"POD_NAMESPACE from the downward API", podNamespaceFromDownwardAPI(container)},
	}
	for _, check := range checks {
		if !check.ok {
			t.Errorf("Deployment: not %s", check.name)
		}
	}

	// The pod the Deployment would make, admitted (or not) by the API server.
	podObject := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "konnect-operator-", Labels: d.Spec.Template.Labels},
		Spec:       *pod.DeepCopy(),
	}
	if _, err := c.kube.CoreV1().Pods(operatorNamespace).Create(ctx, podObject, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("the Deployment's pod is not admitted in %s: %v", operatorNamespace, err)
	}
}

func probeOn(p *corev1.Probe, path, port string) bool {
	return p != nil && p.HTTPGet != nil && p.HTTPGet.Path == path && p.HTTPGet.Port.String() == port
}

func portNamed(c *corev1.Container, name string) int32 {
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	return 0
}

func podNamespaceFromDownwardAPI(c *corev1.Container) bool {
	for _, e := range c.Env {
		if e.Name == "POD_NAMESPACE" {
			return e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace"
		}
	}
	return false
}

// startOperators starts n operator processes as the ServiceAccount, with
// the Deployment's arguments, and waits until all are ready. The caller
// stops them.
func startOperators(ctx context.Context, t *testing.T, c *clusterEnv, n int, extra ...string) []*operatorProcess {
	t.Helper()
	kubeconfig := filepath.Join(suite.workDir, "operators", fmt.Sprintf("serviceaccount-%d.kubeconfig", time.Now().UnixNano()))
	if err := writeServiceAccountKubeconfig(ctx, c, kubeconfig); err != nil {
		t.Fatal(err)
	}
	args, err := deploymentArgs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	var ops []*operatorProcess
	for i := range n {
		op, err := startOperator(fmt.Sprintf("konnect-operator-%d-%d", i, time.Now().UnixNano()), kubeconfig, args, extra...)
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, op)
	}
	for _, op := range ops {
		if err := op.waitReady(ctx, patience); err != nil {
			t.Fatalf("%s is not ready: %v", op.name, err)
		}
	}
	return ops
}

// leader waits until one of ops holds the Lease and returns it.
func leader(ctx context.Context, c *clusterEnv, ops []*operatorProcess, timeout time.Duration) (*operatorProcess, error) {
	var found *operatorProcess
	err := eventually(ctx, timeout, func(ctx context.Context) error {
		holder, _, err := leaseHolder(ctx, c)
		if err != nil {
			return err
		}
		for _, op := range ops {
			if op.running() && op.identity() == holder {
				found = op
				return nil
			}
		}
		return fmt.Errorf("the Lease is held by %q, none of the running operators", holder)
	})
	return found, err
}
