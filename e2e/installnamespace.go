package e2e

import (
	"path/filepath"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The namespaces the operator is installed into by InstallsUnderOtherNamespaces:
// manifests/overlays/install-namespace's, and a Helm release's.
const (
	overlayNamespace = "konnect-operator"
	releaseNamespace = "platform-ops"
	releaseName      = "kop"
)

// InstallsUnderOtherNamespaces installs the operator twice on a control
// plane of its own, neither in konnect-operator-system: with
// manifests/overlays/install-namespace (namespace konnect-operator) and as
// the Helm release kop in platform-ops. Each install's ServiceAccount has
// the operator's rights (its bindings name it in its own namespace), its
// NetworkPolicy and PodDisruptionBudget guard its pods, and its admission
// policy lets it change nothing of a Secret but its finalizer: the policy
// names the ServiceAccount of the install's namespace, which a policy
// naming konnect-operator-system would let through.
func InstallsUnderOtherNamespaces(t *testing.T) {
	ctx := t.Context()
	c, err := startCluster(ctx, filepath.Join(suite.workDir, "cluster-install-namespace"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	step := func(name string, f func(t *testing.T)) {
		t.Helper()
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	step("kubectl apply -k manifests/overlays/install-namespace installs into "+overlayNamespace+" alone", func(t *testing.T) {
		install(ctx, t, c, filepath.Join("manifests", "overlays", "install-namespace"))
		if _, err := c.kube.CoreV1().Namespaces().Get(ctx, operatorNamespace, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("namespace %s exists (%v): the overlay should create %s instead", operatorNamespace, err, overlayNamespace)
		}
		checkInstallGuards(ctx, t, c, overlayNamespace)
		checkAccessOf(ctx, t, c, overlayNamespace, operatorServiceAccount, installAccess(overlayNamespace))
		// What kubectl apply left of the old namespace in a binding would
		// grant a ServiceAccount nobody made.
		checkAccessOf(ctx, t, c, operatorNamespace, operatorServiceAccount, []access{
			{"list", "configuration.konghq.com", "kongservices", "", "default", false},
			{"create", "authentication.k8s.io", "tokenreviews", "", "", false},
		})
	})
	step("the overlay's admission policy lets its ServiceAccount change nothing of a Secret but its finalizer", func(t *testing.T) {
		checkSecretWritesOf(ctx, t, c, overlayNamespace, operatorServiceAccount)
	})

	h := newHelm(t, c)
	serviceAccount := releaseName + "-konnect-operator"
	step("helm install into "+releaseNamespace+" beside it", func(t *testing.T) {
		// The CRDs are the overlay's.
		if _, err := h.run(ctx, "install", releaseName, chartDir, "--namespace", releaseNamespace, "--create-namespace", "--set", "crds.install=false"); err != nil {
			t.Fatal(err)
		}
		checkInstallGuards(ctx, t, c, releaseNamespace)
		checkAccessOf(ctx, t, c, releaseNamespace, serviceAccount, installAccess(releaseNamespace))
	})
	step("the release's admission policy lets its ServiceAccount change nothing of a Secret but its finalizer", func(t *testing.T) {
		checkSecretWritesOf(ctx, t, c, releaseNamespace, serviceAccount)
	})
}

// installAccess is what an install's ServiceAccount in namespace may and
// may not do: the operator's rights cluster-wide, its Lease in its own
// namespace alone, no Secret writes but patch.
func installAccess(namespace string) []access {
	const cfg = "configuration.konghq.com"
	return []access{
		{"list", cfg, "kongservices", "", "default", true},
		{"update", cfg, "kongservices", "status", "default", true},
		{"patch", "", "secrets", "", "default", true},
		{"list", cfg, "kongvaults", "", "", true},
		{"create", "authentication.k8s.io", "tokenreviews", "", "", true},
		{"update", "coordination.k8s.io", "leases", "", namespace, true},
		{"update", "coordination.k8s.io", "leases", "", "default", false},
		{"update", "", "secrets", "", "default", false},
		{"create", "", "secrets", "", "default", false},
	}
}
