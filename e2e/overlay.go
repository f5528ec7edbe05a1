package e2e

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// NamespacedOverlay installs manifests/overlays/namespaced on a control
// plane of its own: the operator, restricted to team-a and team-b by
// RoleBindings and --watch-namespaces, reconciles a sample in team-a and
// leaves one in the unwatched team-c alone, with no access there; then
// team-a is deleted at once, and its entities leave Konnect.
func NamespacedOverlay(t *testing.T) {
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
	checkInstallGuards(ctx, t, c, operatorNamespace)
	args, err := deploymentArgs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !hasFlag(args, "--watch-namespaces=team-a,team-b") || !hasFlag(args, "--namespace-rights-binding="+rightsBinding) {
		t.Fatalf("the overlay's Deployment does not watch team-a and team-b, keeping its RoleBinding %s there: %v", rightsBinding, args)
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

	checkRightsBindingWrites(ctx, t, c, "team-b")

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
	if err := eventually(ctx, patience, func(ctx context.Context) error { return readySample(ctx, c, watched) }); err != nil {
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

	// The operator holds its RoleBinding in team-a while the namespace
	// holds its objects.
	err = eventually(ctx, patience, func(ctx context.Context) error {
		b, err := c.kube.RbacV1().RoleBindings("team-a").Get(ctx, rightsBinding, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !slices.Contains(b.Finalizers, commonv1alpha1.FinalizerNamespaceRights) {
			return fmt.Errorf("RoleBinding team-a/%s has the finalizers %v, not %s", rightsBinding, b.Finalizers, commonv1alpha1.FinalizerNamespaceRights)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Deleting the watched namespace at once, objects, token Secret and the
	// operator's RoleBinding together, removes what the operator made in
	// Konnect and leaves nothing Terminating: the RoleBinding, kept by its
	// finalizer, still grants the rights the cleanup needs.
	if _, err := c.kubectl(ctx, "", "delete", "namespace", "team-a", "--wait=false"); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	err = eventually(ctx, patience, func(ctx context.Context) error {
		n, err := suite.sim.entities(ctx)
		if err != nil {
			return err
		}
		if n != before {
			return fmt.Errorf("the simulator holds %d entities, %d before the test", n, before)
		}
		ns, err := c.kube.CoreV1().Namespaces().Get(ctx, "team-a", metav1.GetOptions{})
		if err == nil {
			left, _ := c.kubectl(ctx, "", "get", "kong,konnect,secrets,rolebindings", "-n", "team-a", "-o", "name")
			return fmt.Errorf("namespace team-a is still %s, holding: %s", ns.Status.Phase, strings.Join(strings.Fields(left), ", "))
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("namespace team-a deleted at once, with its Konnect entities, in %s", time.Since(begin).Round(time.Millisecond))
}

// rightsBinding is the RoleBinding of overlays/namespaced in each watched
// namespace.
const rightsBinding = "konnect-operator-namespaced"

// checkRightsBindingWrites checks, as the operator's ServiceAccount, that it
// may put its finalizer on its RoleBinding in namespace and take it off
// again, and nothing else: not add a subject there (the admission policy),
// not touch another RoleBinding (RBAC's resourceNames).
func checkRightsBindingWrites(ctx context.Context, t *testing.T, c *clusterEnv, namespace string) {
	t.Helper()
	other := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "someone-else"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: "default"}},
	}
	if _, err := c.kube.RbacV1().RoleBindings(namespace).Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = c.kube.RbacV1().RoleBindings(namespace).Delete(context.WithoutCancel(ctx), other.Name, metav1.DeleteOptions{})
	}()
	cfg, err := c.ServiceAccountConfig(ctx, operatorNamespace, operatorServiceAccount)
	if err != nil {
		t.Fatal(err)
	}
	asOperator := kubernetes.NewForConfigOrDie(cfg).RbacV1().RoleBindings(namespace)
	patch := func(name, body string) error {
		_, err := asOperator.Patch(ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{})
		return err
	}
	const operatorSubject = `{"kind":"ServiceAccount","name":"konnect-operator","namespace":"konnect-operator-system"}`
	// A new policy takes a moment to be enforced. Each attempt adds a new
	// subject: one that came before the policy was in force added its
	// subject, and adding the same again would change nothing, which the
	// policy rightly allows.
	attempt := 0
	err = eventually(ctx, patience, func(context.Context) error {
		attempt++
		planted := fmt.Sprintf(`{"subjects":[%s,{"kind":"ServiceAccount","name":"planted-%d","namespace":%q}]}`, operatorSubject, attempt, namespace)
		switch err := patch(rightsBinding, planted); {
		case err == nil:
			return errors.New("the operator's ServiceAccount added a subject to its RoleBinding")
		case !apierrors.IsInvalid(err):
			return fmt.Errorf("adding a subject to its RoleBinding as the operator's ServiceAccount: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if attempt > 1 {
		// What the attempts before the policy was in force planted goes.
		if _, err := c.kube.RbacV1().RoleBindings(namespace).Patch(ctx, rightsBinding, types.MergePatchType,
			[]byte(`{"subjects":[`+operatorSubject+`]}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := patch(rightsBinding, `{"metadata":{"labels":{"planted":"yes"}}}`); !apierrors.IsInvalid(err) {
		t.Errorf("a new label on its RoleBinding by the operator's ServiceAccount was not refused: %v", err)
	}
	if err := patch("someone-else", `{"metadata":{"finalizers":["`+commonv1alpha1.FinalizerNamespaceRights+`"]}}`); !apierrors.IsForbidden(err) {
		t.Errorf("the operator's ServiceAccount patched another RoleBinding: %v", err)
	}
	if _, err := asOperator.List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("the operator's ServiceAccount listed every RoleBinding of %s: %v", namespace, err)
	}
	if err := patch(rightsBinding, `{"metadata":{"finalizers":["`+commonv1alpha1.FinalizerNamespaceRights+`"]}}`); err != nil {
		t.Errorf("adding the operator's finalizer to its RoleBinding was refused: %v", err)
	}
	if err := patch(rightsBinding, `{"metadata":{"finalizers":null}}`); err != nil {
		t.Errorf("removing the operator's finalizer from its RoleBinding was refused: %v", err)
	}
}
