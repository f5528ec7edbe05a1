package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// gitopsNamespace is where TestGitOpsUsersWaitForReadyAndAskWhy applies
// its objects; its operator watches only it.
const gitopsNamespace = "gitops"

// gitopsManifests are a chain that Konnect accepts (auth configuration,
// control plane, service, route) and one whose auth configuration holds a
// token Konnect rejects.
func gitopsManifests(serverURL, token string) string {
	chain := func(auth, token, cp, service string) string {
		return fmt.Sprintf(`apiVersion: konnect.konghq.com/v1alpha1
kind: KonnectAPIAuthConfiguration
metadata:
  name: %[1]s
spec:
  type: token
  token: %[2]s
  serverURL: %[5]s
---
apiVersion: konnect.konghq.com/v1alpha2
kind: KonnectGatewayControlPlane
metadata:
  name: %[3]s
spec:
  createControlPlaneRequest:
    name: %[6]s-%[3]s
  konnect:
    authRef:
      name: %[1]s
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongService
metadata:
  name: %[4]s
spec:
  host: %[4]s.example.com
  controlPlaneRef:
    type: konnectNamespacedRef
    konnectNamespacedRef:
      name: %[3]s
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongRoute
metadata:
  name: %[4]s
spec:
  paths: ["/%[4]s"]
  serviceRef:
    type: namespacedRef
    namespacedRef:
      name: %[4]s
`, auth, token, cp, service, serverURL, gitopsNamespace)
	}
	return chain("konnect", token, "prod", "orders") + "---\n" + chain("expired", "kpat_"+strings.Repeat("x", 40), "stale", "legacy")
}

// TestGitOpsUsersWaitForReadyAndAskWhy: kubectl wait
// --for=condition=Ready returns once objects are Programmed, and times out
// on one that cannot become so; kubectl konnect status names the root
// cause of a chain whose auth configuration holds a token Konnect rejects.
func TestGitOpsUsersWaitForReadyAndAskWhy(t *testing.T) {
	ctx := t.Context()
	c := suite.cluster
	install(ctx, t, c, "manifests")
	if _, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gitopsNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(suite.workDir, "gitops-serviceaccount.kubeconfig")
	if err := writeServiceAccountKubeconfig(ctx, c, kubeconfig); err != nil {
		t.Fatal(err)
	}
	args, err := deploymentArgs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	op, err := startOperator("gitops-operator", kubeconfig, args, "--watch-namespaces="+gitopsNamespace, "--leader-elect=false")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if op.running() {
			if t.Failed() {
				t.Logf("gitops-operator log:\n%s", op.tail(4000))
			}
			op.stop(10 * time.Second)
		}
	})
	entitiesBefore, err := suite.sim.entities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Runs before the operator stops (cleanups run last first): the
	// entities go, and the suite's simulator holds what it held.
	t.Cleanup(func() { cleanUpGitOps(t, c, entitiesBefore) })

	if _, err := c.kubectl(ctx, gitopsManifests(suite.sim.url, suite.sim.token), "apply", "--server-side", "-n", gitopsNamespace, "-f", "-"); err != nil {
		t.Fatal(err)
	}

	t.Run("kubectl wait returns once the objects are Programmed", func(t *testing.T) {
		ready := []string{"konnectapiauthconfiguration/konnect", "konnectgatewaycontrolplane/prod", "kongservice/orders", "kongroute/orders"}
		if out, err := c.kubectl(ctx, "", append([]string{"wait", "--for=condition=Ready", "--timeout=120s", "-n", gitopsNamespace}, ready...)...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for gvk, name := range map[schema.GroupVersionKind]string{
			{Group: konnectGroup, Version: "v1alpha2", Kind: "KonnectGatewayControlPlane"}: "prod",
			{Group: configurationGroup, Version: "v1alpha1", Kind: "KongService"}:          "orders",
			{Group: configurationGroup, Version: "v1alpha1", Kind: "KongRoute"}:            "orders",
		} {
			obj, err := c.get(ctx, gvk, gitopsNamespace, name)
			if err != nil {
				t.Fatal(err)
			}
			if p := conditionsOf(obj)["Programmed"]; p["status"] != "True" {
				t.Errorf("kubectl wait returned while %s %s is Programmed=%s (%s)", gvk.Kind, name, p["status"], p["message"])
			}
		}
	})

	t.Run("kubectl wait times out on an object that cannot become Programmed", func(t *testing.T) {
		// First the route is seen stalled for good, through the API: it
		// cannot become Ready however long kubectl waits, so the verdict
		// does not depend on how fast this machine is.
		route := schema.GroupVersionKind{Group: configurationGroup, Version: "v1alpha1", Kind: "KongRoute"}
		err := eventually(ctx, patience, func(ctx context.Context) error {
			obj, err := c.get(ctx, route, gitopsNamespace, "legacy")
			if err != nil {
				return err
			}
			conditions := conditionsOf(obj)
			if p := conditions["Programmed"]; p["reason"] != "BlockedByReference" || conditions["Stalled"]["status"] != "True" {
				return fmt.Errorf("Programmed=%s/%s, Stalled=%s", p["status"], p["reason"], conditions["Stalled"]["status"])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.kubectl(ctx, "", "wait", "--for=condition=Ready", "--timeout=2s", "-n", gitopsNamespace, "kongroute/legacy")
		if err == nil || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("kubectl wait on a stalled route: %v\n%s; want it to time out", err, out)
		}
	})

	t.Run("kubectl konnect status names the root cause", func(t *testing.T) {
		want := "KongRoute legacy waits for KongService legacy, which waits for KonnectGatewayControlPlane stale, " +
			"which waits for KonnectAPIAuthConfiguration expired: Konnect rejected the token"
		status, out, errOut := runKubectlKonnect(ctx, c, "status", "-n", gitopsNamespace, "kongroute/legacy")
		if status != 0 || !strings.Contains(out, "why: "+want) || !strings.Contains(out, "401") {
			t.Fatalf("status %d, stdout:\n%s\nstderr:\n%s\nwant the line %q, with Konnect's 401", status, out, errOut, want)
		}
		status, out, errOut = runKubectlKonnect(ctx, c, "status", "-n", gitopsNamespace, "kongroute/legacy", "-o", "json")
		var nodes []struct {
			Cause      string `json:"cause"`
			References []struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"references"`
		}
		if err := json.Unmarshal([]byte(out), &nodes); status != 0 || err != nil || len(nodes) != 1 || !strings.HasPrefix(nodes[0].Cause, want) ||
			len(nodes[0].References) != 1 || nodes[0].References[0].Name != "legacy" {
			t.Fatalf("-o json: status %d (%v), stdout:\n%s\nstderr:\n%s", status, err, out, errOut)
		}
		status, out, errOut = runKubectlKonnect(ctx, c, "status", "-n", gitopsNamespace)
		for _, line := range []string{
			"KonnectAPIAuthConfiguration " + gitopsNamespace + "/konnect  APIAuthValid=True",
			"└── KongRoute " + gitopsNamespace + "/orders  Programmed=True  id ",
			"KonnectAPIAuthConfiguration " + gitopsNamespace + "/expired  APIAuthValid=False (Invalid)",
		} {
			if status != 0 || !strings.Contains(out, line) {
				t.Errorf("status %d, no %q in:\n%s%s", status, line, out, errOut)
			}
		}
	})
}

// cleanUpGitOps deletes the test's objects while its operator runs and
// waits until the suite's simulator holds what it held before.
func cleanUpGitOps(t *testing.T, c *clusterEnv, entitiesBefore int) {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if _, err := c.kubectl(ctx, "", "delete", "kong,konnect", "--all", "-n", gitopsNamespace, "--wait=false"); err != nil {
		t.Error(err)
	}
	err := eventually(ctx, patience, func(ctx context.Context) error {
		out, err := c.kubectl(ctx, "", "get", "kong,konnect", "-n", gitopsNamespace, "-o", "name")
		if err != nil {
			return err
		}
		if strings.TrimSpace(out) != "" {
			return fmt.Errorf("left: %s", out)
		}
		n, err := suite.sim.entities(ctx)
		if err != nil {
			return err
		}
		if n != entitiesBefore {
			return fmt.Errorf("the simulator holds %d entities, %d before the test", n, entitiesBefore)
		}
		return nil
	})
	if err != nil {
		t.Errorf("cleaning up: %v", err)
	}
	_ = c.kube.CoreV1().Namespaces().Delete(ctx, gitopsNamespace, metav1.DeleteOptions{})
}
