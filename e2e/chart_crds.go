package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// checkCRDsInstalled checks that the cluster serves every CRD of
// manifests/crd, which the chart's crds/ copy.
func checkCRDsInstalled(ctx context.Context, t *testing.T, c *clusterEnv) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(suite.root, "manifests", "crd", "*_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in manifests/crd: %v", err)
	}
	for _, f := range files {
		group, plural, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".yaml"), "_")
		if _, err := c.kubectl(ctx, "", "get", "crd", plural+"."+group, "-o", "name"); err != nil {
			t.Errorf("CRD %s.%s is not installed: %v", plural, group, err)
		}
	}
}

// checkCRDsOfTheRelease checks that the CRDs belong to the release (so that
// an upgrade upgrades them) and are kept when it is uninstalled.
func checkCRDsOfTheRelease(ctx context.Context, t *testing.T, c *clusterEnv) {
	t.Helper()
	crds, err := c.list(ctx, crdKind, "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, crd := range crds {
		group, _, _ := unstructuredString(crd.Object, "spec", "group")
		if group != konnectGroup && group != configurationGroup {
			continue
		}
		n++
		annotations := crd.GetAnnotations()
		if annotations["meta.helm.sh/release-name"] != "konnect-operator" || crd.GetLabels()["app.kubernetes.io/managed-by"] != "Helm" {
			t.Errorf("CRD %s is not the release's: labels %v, annotations %v", crd.GetName(), crd.GetLabels(), annotations)
		}
		if annotations["helm.sh/resource-policy"] != "keep" {
			t.Errorf("CRD %s would be deleted with the release (no helm.sh/resource-policy: keep)", crd.GetName())
		}
	}
	files, err := filepath.Glob(filepath.Join(suite.root, "manifests", "crd", "*_*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if n != len(files) {
		t.Errorf("%d CRDs of the operator's groups, want the %d of manifests/crd", n, len(files))
	}
}
