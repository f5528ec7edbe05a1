package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNamespacedOverlay installs manifests/overlays/namespaced on a control
// plane of its own: the operator, restricted to team-a and team-b by Roles
// and --watch-namespaces, reconciles a sample in team-a and leaves one in
// the unwatched team-c alone, with no access there.
func TestNamespacedOverlay(t *testing.T) {
	ctx := t.Context()
	c, err := startCluster(ctx, filepath.Join(suite.workDir, "cluster-namespaced"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	before, err := suite.sim.entities(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// The overlay's namespaces must exist before it is applied.
	for _, ns := range []string{"team-a", "team-b", "team-c"} {
		if _, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	install(ctx, t, c, filepath.Join("manifests", "overlays", "namespaced"))
	args, err := deploymentArgs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !hasFlag(args, "--watch-namespaces=team-a,team-b") {
		t.Fatalf("the overlay's Deployment does not watch team-a and team-b: %v", args)
	}
	const cfg = "configuration.konghq.com"
	checkAccess(ctx, t, c, []access{
		{"list", cfg, "kongservices", "", "team-a", true},
		{"update", cfg, "kongroutes", "status", "team-b", true},
		{"list", "", "secrets", "", "team-b", true},
		{"patch", "", "secrets", "", "team-a", true},
		{"patch", "", "secrets", "", "team-c", false},
		{"create", "authentication.k8s.io", "tokenreviews", "", "", true},
		{"create", "", "events", "", "team-a", true},
		{"create", "", "events", "", "default", true}, // Events of cluster-scoped objects
		{"list", cfg, "kongvaults", "", "", true},
		{"update", "coordination.k8s.io", "leases", "", operatorNamespace, true},
		{"list", cfg, "kongservices", "", "", false}, // not cluster-wide
		{"list", cfg, "kongservices", "", "team-c", false},
		{"list", "", "secrets", "", "team-c", false},
		{"create", "", "events", "", "team-c", false},
		{"list", cfg, "kongconsumers", "", "default", false},
	})

	ops := startOperators(ctx, t, c, 1)
	op := ops[0]
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s log:\n%s", op.name, op.tail(4000))
		}
		op.stop(10 * time.Second)
	})
	watched, err := prepareSample("kongroute-control-plane-ref.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	watched.namespace = "team-a"
	unwatched, err := prepareSample("kongservice.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	unwatched.namespace = "team-c"
	for _, s := range []*sample{watched, unwatched} {
		if err := applySample(ctx, c, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := eventually(ctx, time.Minute, func(ctx context.Context) error { return readySample(ctx, c, watched) }); err != nil {
		t.Fatalf("the sample in the watched namespace team-a: %v", err)
	}
	for _, o := range unwatched.reconciled() {
		obj, err := c.get(ctx, o.GroupVersionKind(), "team-c", o.GetName())
		if err != nil {
			t.Fatal(err)
		}
		if len(obj.GetFinalizers()) > 0 || conditionsOf(obj)[readyCondition(o.GetKind())]["status"] == "True" {
			t.Errorf("%s team-c/%s in the unwatched namespace was reconciled: finalizers %v, conditions %s",
				o.GetKind(), o.GetName(), obj.GetFinalizers(), describeConditions(conditionsOf(obj)))
		}
	}

	// Deleting the watched namespace with the operator running removes what
	// it made in Konnect, done as the README says for this layout: the
	// namespace's objects first, since deleting the namespace also deletes
	// the operator's Role and RoleBinding there, in no fixed order.
	if _, err := c.kubectl(ctx, "", "delete", "kong,konnect", "--all", "-n", "team-a", "--wait=false"); err != nil {
		t.Fatal(err)
	}
	err = eventually(ctx, 2*time.Minute, func(ctx context.Context) error {
		out, err := c.kubectl(ctx, "", "get", "kong,konnect", "-n", "team-a", "-o", "name")
		if err != nil {
			return err
		}
		if strings.TrimSpace(out) != "" {
			return fmt.Errorf("objects left in team-a: %s", out)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.kubectl(ctx, "", "delete", "namespace", "team-a", "--wait=false"); err != nil {
		t.Fatal(err)
	}
	err = eventually(ctx, 2*time.Minute, func(ctx context.Context) error {
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
		t.Error(err)
	}
}
