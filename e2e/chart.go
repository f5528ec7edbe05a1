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

// TestHelmChartTemplates lints the chart and renders it with the default
// values (cluster-wide) and for two namespaces: the RBAC is the kustomize
// manifests', rule for rule; the Deployment carries the values; and the
// schema refuses bad values with a message naming them.
func TestHelmChartTemplates(t *testing.T) {
	ctx := t.Context()
	h := newHelm(t, nil)
	namespaced := filepath.Join(t.TempDir(), "namespaced.yaml")
	if err := os.WriteFile(namespaced, []byte("watchNamespaces: [team-a, team-b]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, values := range [][]string{nil, {namespaced}} {
		args := []string{"lint", "--strict", chartDir}
		for _, v := range values {
			args = append(args, "--values", v)
		}
		if out, err := h.run(ctx, args...); err != nil {
			t.Errorf("helm lint %v: %v", values, err)
		} else {
			t.Log(lastLines(out, 1))
		}
	}

	t.Run("cluster-wide, by default", func(t *testing.T) {
		r := h.template(ctx, t, nil)
		sameGrants(t, r.get(t, "ClusterRole", "", "konnect-operator"), filepath.Join("rbac", "cluster", "role.yaml"))
		sameGrants(t, r.get(t, "ClusterRole", "", "konnect-operator-cluster-scoped"), filepath.Join("rbac", "cluster-scoped", "role.yaml"))
		sameGrants(t, r.get(t, "Role", operatorNamespace, "konnect-operator-leader-election"), filepath.Join("operator", "leader-election-role.yaml"))
		sameGrants(t, r.get(t, "ClusterRole", "", "konnect-operator-metrics-auth"), filepath.Join("rbac", "metrics", "auth-delegator.yaml"))
		sameGrants(t, r.get(t, "ClusterRole", "", "konnect-operator-metrics-reader"), filepath.Join("rbac", "metrics", "reader.yaml"))
		for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
			for _, b := range r.ofKind(kind) {
				boundTo(t, r, b)
			}
		}
		if n := len(r.ofKind("Role")); n != 1 {
			t.Errorf("cluster-wide, the chart renders %d Roles, want only the leader election's", n)
		}
		for _, kind := range []string{"ServiceMonitor", "PrometheusRule", "ConfigMap", "Secret", "KonnectAPIAuthConfiguration"} {
			if len(r.ofKind(kind)) != 0 {
				t.Errorf("the default values render a %s; it should be optional", kind)
			}
		}
		r.get(t, "ServiceAccount", operatorNamespace, operatorServiceAccount)
		r.get(t, "PodDisruptionBudget", operatorNamespace, "konnect-operator")
		r.get(t, "Service", operatorNamespace, "konnect-operator-metrics")
		args := deploymentArgsOf(t, r)
		for _, flag := range []string{"--leader-elect=true", "--leader-elect-resource-name=konnect-operator", "--metrics-bind-address=:8443",
			"--health-probe-bind-address=:8081", "--sync-period=1m", "--drift-detection=list", "--konnect-rate-limit=0", "--log-format=json"} {
			if !slices.Contains(args, flag) {
				t.Errorf("the Deployment's arguments %v lack %s", args, flag)
			}
		}
		if hasFlag(args, "--watch-namespaces") {
			t.Errorf("cluster-wide, the Deployment should watch every namespace: %v", args)
		}
	})

	t.Run("namespaced", func(t *testing.T) {
		r := h.template(ctx, t, []string{namespaced}, "syncPeriod=5m", "driftDetection=update", "konnect.rateLimit=2.5", "logging.format=text", "replicaCount=3")
		sameGrants(t, r.get(t, "ClusterRole", "", "konnect-operator-namespaced"), filepath.Join("rbac", "namespaced", "role.yaml"))
		sameResourceNames(t, r.get(t, "ClusterRole", "", "konnect-operator-namespaced"), filepath.Join("rbac", "namespaced", "role.yaml"))
		for _, ns := range []string{"team-a", "team-b"} {
			boundTo(t, r, r.get(t, "RoleBinding", ns, "konnect-operator-namespaced"))
		}
		if n := len(r.ofKind("Role")); n != 2 {
			t.Errorf("namespaced, the chart renders %d Roles, want only those of the leader election and of Events in default", n)
		}
		sameGrants(t, r.get(t, "Role", "default", "konnect-operator-events"), filepath.Join("rbac", "events", "role.yaml"))
		// As overlays/namespaced: the metrics roles and the Secret policy stay.
		sameGrants(t, r.get(t, "ClusterRole", "", "konnect-operator-metrics-auth"), filepath.Join("rbac", "metrics", "auth-delegator.yaml"))
		r.get(t, "ValidatingAdmissionPolicy", "", "konnect-operator-secret-writes")
		r.get(t, "ValidatingAdmissionPolicyBinding", "", "konnect-operator-secret-writes")
		sameGrants(t, r.get(t, "ClusterRole", "", "konnect-operator-cluster-scoped"), filepath.Join("rbac", "cluster-scoped", "role.yaml"))
		if _, ok := r[renderedKey("ClusterRole", "", "konnect-operator")]; ok {
			t.Error("namespaced, the chart still grants the namespaced kinds cluster-wide")
		}
		args := deploymentArgsOf(t, r)
		for _, flag := range []string{"--watch-namespaces=team-a,team-b", "--namespace-rights-binding=konnect-operator-namespaced", "--sync-period=5m", "--drift-detection=update", "--konnect-rate-limit=2.5", "--log-format=text"} {
			if !slices.Contains(args, flag) {
				t.Errorf("the Deployment's arguments %v lack %s", args, flag)
			}
		}
		// Decoded from JSON, numbers are float64.
		if replicas, _, _ := unstructured.NestedFieldNoCopy(r.get(t, "Deployment", operatorNamespace, operatorDeployment).Object, "spec", "replicas"); fmt.Sprint(replicas) != "3" {
			t.Errorf("replicas = %v, want 3", replicas)
		}
	})

	t.Run("bad values are refused with a message naming them", func(t *testing.T) {
		for _, tt := range []struct {
			set, want string
		}{
			{"replicaCount=0", "at '/replicaCount': minimum"},
			{"replicas=2", "additional properties 'replicas' not allowed"},
			{"syncPeriod=soon", "at '/syncPeriod': 'soon' does not match pattern"},
			{"driftDetection=never", "at '/driftDetection': value must be one of 'list', 'update'"},
			{"logging.format=xml", "at '/logging/format': value must be one of 'text', 'json'"},
			{"watchNamespaces={Team_A}", "at '/watchNamespaces/0'"},
			{"metrics.port=70000", "at '/metrics/port': maximum"},
			{"metrics.scheme=ftp", "at '/metrics/scheme'"},
			{"metrics.scheme=http", "set metrics.service.enabled=false too"},
			{"metrics.scheme=http,metrics.service.enabled=false,metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.enabled needs metrics.scheme=https"},
			{"metrics.tls.secretName=Metrics_TLS", "at '/metrics/tls/secretName'"},
			{"metrics.readerRole.serviceAccounts[0].name=prometheus", "at '/metrics/readerRole/serviceAccounts/0'"},
			{"image.digest=latest", "at '/image/digest'"},
			{"konnect.rateLimit=-1", "at '/konnect/rateLimit'"},
			{"konnectAuth.create=true", "at '/konnectAuth/serverURL': minLength"},
			{"leaderElection.enabled=false", "replicaCount above 1 needs leaderElection.enabled=true"},
			{"metrics.service.enabled=false,metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.enabled needs metrics.service.enabled"},
		} {
			out, err := h.run(ctx, "template", "konnect-operator", chartDir, "--set", tt.set)
			if err == nil {
				t.Errorf("--set %s: rendered, want it refused", tt.set)
				continue
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("--set %s: %v\nwant the message to contain %q", tt.set, lastLines(err.Error(), 4), tt.want)
			}
			if out != "" {
				t.Errorf("--set %s: refused, but printed manifests", tt.set)
			}
		}
	})

	t.Run("a token in the values never reaches an error message", func(t *testing.T) {
		// As users should: in a values file, never on the command line.
		const token = "kpat_never_printed_0123456789"
		values := filepath.Join(t.TempDir(), "token.yaml")
		if err := os.WriteFile(values, []byte("konnectAuth: {create: true, name: Bad_Name, token: "+token+"}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := h.run(ctx, "template", "konnect-operator", chartDir, "--values", values)
		if err == nil || !strings.Contains(err.Error(), "at '/konnectAuth/name'") {
			t.Fatalf("an invalid konnectAuth.name was not refused: %v", err)
		}
		if strings.Contains(err.Error(), token) {
			t.Error("the refusal prints the token")
		}
	})
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
