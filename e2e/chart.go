package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// chartDir is the Helm chart, relative to the repository root.
var chartDir = filepath.Join("manifests", "chart")

// helm runs the helm binary with configuration folders of its own (never
// the user's), against the control plane c when there is one.
type helm struct {
	env []string
}

func newHelm(t *testing.T, c *clusterEnv) *helm {
	t.Helper()
	needTools(t)
	home := t.TempDir()
	h := &helm{env: []string{
		"HELM_CACHE_HOME=" + filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(home, "config"),
		"HELM_DATA_HOME=" + filepath.Join(home, "data"),
		"KUBECONFIG=" + filepath.Join(home, "no-cluster"),
	}}
	if c != nil {
		h.env[3] = "KUBECONFIG=" + c.KubeconfigPath
	}
	return h
}

func (h *helm) run(ctx context.Context, args ...string) (string, error) {
	return runTool(ctx, nil, h.env, tools.helm, args...)
}

// rendered is the output of `helm template`, by kind, namespace and name.
type rendered map[string]*unstructured.Unstructured

func renderedKey(kind, namespace, name string) string { return kind + " " + namespace + "/" + name }

func (r rendered) get(t *testing.T, kind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	obj, ok := r[renderedKey(kind, namespace, name)]
	if !ok {
		t.Fatalf("the chart renders no %s %s/%s; it renders %v", kind, namespace, name, r.keys())
	}
	return obj
}

func (r rendered) keys() []string {
	out := keysOf(r)
	sort.Strings(out)
	return out
}

// ofKind lists the rendered objects of kind.
func (r rendered) ofKind(kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, key := range r.keys() {
		if strings.HasPrefix(key, kind+" ") {
			out = append(out, r[key])
		}
	}
	return out
}

// template renders the chart as release konnect-operator in the operator's
// namespace with the given values files and --set flags.
func (h *helm) template(ctx context.Context, t *testing.T, valuesFiles []string, sets ...string) rendered {
	t.Helper()
	return h.templateRelease(ctx, t, "konnect-operator", operatorNamespace, valuesFiles, sets...)
}

// templateRelease renders the chart as release in namespace.
func (h *helm) templateRelease(ctx context.Context, t *testing.T, release, namespace string, valuesFiles []string, sets ...string) rendered {
	t.Helper()
	args := []string{"template", release, chartDir, "--namespace", namespace}
	for _, f := range valuesFiles {
		args = append(args, "--values", f)
	}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	out, err := h.run(ctx, args...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := renderedOf([]byte(out))
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	return r
}

// renderedOf decodes the objects of a YAML stream, refusing duplicates.
func renderedOf(data []byte) (rendered, error) {
	objects, err := decodeObjects(data)
	if err != nil {
		return nil, err
	}
	r := rendered{}
	for _, o := range objects {
		key := renderedKey(o.GetKind(), o.GetNamespace(), o.GetName())
		if _, dup := r[key]; dup {
			return nil, fmt.Errorf("%s appears twice", key)
		}
		r[key] = o
	}
	return r, nil
}

func decodeObjects(data []byte) ([]*unstructured.Unstructured, error) {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var obj map[string]any
		if err := decoder.Decode(&obj); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if obj != nil {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
}

// grantsOf expands rules into "verb group/resource" and "verb url" lines, so
// that two roles compare equal whatever the grouping of their rules.
func grantsOf(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		for _, verb := range r.Verbs {
			for _, group := range r.APIGroups {
				for _, resource := range r.Resources {
					out = append(out, verb+" "+group+"/"+resource)
				}
			}
			for _, url := range r.NonResourceURLs {
				out = append(out, verb+" "+url)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func rulesOf(t *testing.T, role *unstructured.Unstructured) []rbacv1.PolicyRule {
	t.Helper()
	var r rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(role.Object, &r); err != nil {
		t.Fatal(err)
	}
	return r.Rules
}

// kustomizeRules reads the single role of a file of manifests/.
func kustomizeRules(t *testing.T, file string) []rbacv1.PolicyRule {
	t.Helper()
	roles, err := readRoles(filepath.Join(suite.root, "manifests", file))
	if err != nil {
		t.Fatal(err)
	}
	if len(roles) != 1 {
		t.Fatalf("%s holds %d roles, want 1", file, len(roles))
	}
	return roles[0]
}

// sameGrants fails t when the chart's role grants other than the kustomize one.
func sameGrants(t *testing.T, chartRole *unstructured.Unstructured, file string) {
	t.Helper()
	got, want := grantsOf(rulesOf(t, chartRole)), grantsOf(kustomizeRules(t, file))
	if !slices.Equal(got, want) {
		t.Errorf("%s %s/%s grants other than manifests/%s:\n  only the chart: %v\n  only kustomize: %v",
			chartRole.GetKind(), chartRole.GetNamespace(), chartRole.GetName(), file, missingFrom(want, got), missingFrom(got, want))
	}
}

// sameResourceNames fails t when the chart's role names other objects
// (resourceNames) than the kustomize one.
func sameResourceNames(t *testing.T, chartRole *unstructured.Unstructured, file string) {
	t.Helper()
	names := func(rules []rbacv1.PolicyRule) []string {
		var out []string
		for _, r := range rules {
			for _, name := range r.ResourceNames {
				out = append(out, strings.Join(r.Resources, ",")+"/"+name)
			}
		}
		sort.Strings(out)
		return out
	}
	if got, want := names(rulesOf(t, chartRole)), names(kustomizeRules(t, file)); !slices.Equal(got, want) {
		t.Errorf("%s %s names %v, manifests/%s %v", chartRole.GetKind(), chartRole.GetName(), got, file, want)
	}
}

// missingFrom lists what of a is not in b.
func missingFrom(b, a []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// boundTo checks that a rendered binding binds the release's ServiceAccount
// to a role the chart renders.
func boundTo(t *testing.T, r rendered, binding *unstructured.Unstructured) {
	t.Helper()
	var b rbacv1.RoleBinding
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(binding.Object, &b); err != nil {
		t.Fatal(err)
	}
	roleNamespace := binding.GetNamespace()
	if b.RoleRef.Kind == "ClusterRole" {
		roleNamespace = ""
	}
	if _, ok := r[renderedKey(b.RoleRef.Kind, roleNamespace, b.RoleRef.Name)]; !ok {
		t.Errorf("%s %s/%s refers to %s %s, which the chart does not render", binding.GetKind(), binding.GetNamespace(), binding.GetName(), b.RoleRef.Kind, b.RoleRef.Name)
	}
	want := rbacv1.Subject{Kind: "ServiceAccount", Name: operatorServiceAccount, Namespace: operatorNamespace}
	if len(b.Subjects) != 1 || b.Subjects[0] != want {
		t.Errorf("%s %s/%s binds %v, want the release's ServiceAccount only", binding.GetKind(), binding.GetNamespace(), binding.GetName(), b.Subjects)
	}
}

// deploymentArgsOf returns the operator container's arguments.
func deploymentArgsOf(t *testing.T, r rendered) []string {
	t.Helper()
	containers, _, _ := unstructured.NestedSlice(r.get(t, "Deployment", operatorNamespace, operatorDeployment).Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		container, _ := c.(map[string]any)
		if container["name"] != "operator" {
			continue
		}
		args, _, _ := unstructured.NestedStringSlice(container, "args")
		return args
	}
	t.Fatal("the rendered Deployment has no container called operator")
	return nil
}

// writeValues writes a values file only this process can read (it may hold
// a token).
func writeValues(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(suite.workDir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
