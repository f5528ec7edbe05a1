package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// kustomizeObjects reads the objects of a file of manifests/.
func kustomizeObjects(t *testing.T, file string) rendered {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(suite.root, "manifests", file))
	if err != nil {
		t.Fatal(err)
	}
	r, err := renderedOf(data)
	if err != nil {
		t.Fatalf("manifests/%s: %v", file, err)
	}
	return r
}

// sameSpec fails t when two objects' specs differ.
func sameSpec(t *testing.T, chart, kustomize *unstructured.Unstructured, file string) {
	t.Helper()
	if !jsonEqual(chart.Object["spec"], kustomize.Object["spec"]) {
		t.Errorf("the chart's %s %s has another spec than manifests/%s:\n  chart:     %v\n  kustomize: %v",
			chart.GetKind(), chart.GetName(), file, chart.Object["spec"], kustomize.Object["spec"])
	}
}

// TestHelmChartSecretWritesPolicy renders the admission policy that narrows
// the operator's patch on Secrets to its finalizer: with the defaults it is
// manifests/rbac/secret-writes field for field; another release's policy
// names that release's ServiceAccount and is bound under its own name; a
// chart without RBAC brings no policy either.
func TestHelmChartSecretWritesPolicy(t *testing.T) {
	ctx := t.Context()
	h := newHelm(t, nil)
	file := filepath.Join("rbac", "secret-writes", "policy.yaml")
	want := kustomizeObjects(t, file)
	const policyKind, bindingKind = "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"

	t.Run("the defaults render manifests/rbac/secret-writes", func(t *testing.T) {
		r := h.template(ctx, t, nil)
		for _, kind := range []string{policyKind, bindingKind} {
			sameSpec(t, r.get(t, kind, "", "konnect-operator-secret-writes"), want.get(t, kind, "", "konnect-operator-secret-writes"), file)
		}
	})

	t.Run("another release's policy names its ServiceAccount", func(t *testing.T) {
		r := h.templateRelease(ctx, t, "payments", "ops", nil, "serviceAccount.name=kop")
		policy := r.get(t, policyKind, "", "payments-konnect-operator-secret-writes")
		conditions, _, _ := unstructured.NestedSlice(policy.Object, "spec", "matchConditions")
		const expression = `request.userInfo.username == "system:serviceaccount:ops:kop"`
		if len(conditions) != 1 || conditions[0].(map[string]any)["expression"] != expression {
			t.Errorf("the policy matches %v, want the one condition %s", conditions, expression)
		}
		validations, _, _ := unstructured.NestedSlice(policy.Object, "spec", "validations")
		wantValidations, _, _ := unstructured.NestedSlice(want.get(t, policyKind, "", "konnect-operator-secret-writes").Object, "spec", "validations")
		if !jsonEqual(validations, wantValidations) {
			t.Errorf("another release's policy validates other than manifests/%s: %v", file, validations)
		}
		binding := r.get(t, bindingKind, "", "payments-konnect-operator-secret-writes")
		if name, _, _ := unstructured.NestedString(binding.Object, "spec", "policyName"); name != policy.GetName() {
			t.Errorf("the binding names policy %q, want %q", name, policy.GetName())
		}
	})

	t.Run("no RBAC, no policy", func(t *testing.T) {
		r := h.template(ctx, t, nil, "rbac.create=false")
		for _, kind := range []string{policyKind, bindingKind} {
			if n := len(r.ofKind(kind)); n != 0 {
				t.Errorf("with rbac.create=false the chart renders %d %s", n, kind)
			}
		}
	})
}
