package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

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
			"--health-probe-bind-address=:8081", "--sync-period=1m", "--drift-detection=list", "--konnect-rate-limit=0", "--log-format=json",
			// Tokens go to Konnect's public API hosts only.
			"--konnect-allowed-hosts=" + strings.Join(konnect.DefaultAllowedHosts, ",")} {
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

	t.Run("shards: a Deployment, metrics Service and PodDisruptionBudget each, selecting their own pods alone", func(t *testing.T) {
		r := h.template(ctx, t, nil, "shards={a,b}")
		instances := map[string]string{"konnect-operator": "", "konnect-operator-a": "a", "konnect-operator-b": "b"}
		selectors := map[string]map[string]any{}
		for name, shard := range instances {
			d := r.get(t, "Deployment", operatorNamespace, name)
			selector, _, _ := unstructured.NestedMap(d.Object, "spec", "selector", "matchLabels")
			selectors[name] = selector
			pdb, _, _ := unstructured.NestedMap(r.get(t, "PodDisruptionBudget", operatorNamespace, name).Object, "spec", "selector", "matchLabels")
			service := "konnect-operator-metrics"
			if shard != "" {
				service += "-" + shard
			}
			serviceSelector, _, _ := unstructured.NestedMap(r.get(t, "Service", operatorNamespace, service).Object, "spec", "selector")
			if !reflect.DeepEqual(pdb, selector) || !reflect.DeepEqual(serviceSelector, selector) {
				t.Errorf("%s: the Deployment selects %v, its PodDisruptionBudget %v and its metrics Service %v", name, selector, pdb, serviceSelector)
			}
			containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			args, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
			if got := hasFlag(args, "--shard"); got != (shard != "") || shard != "" && !slices.Contains(args, "--shard="+shard) {
				t.Errorf("%s runs with %v, want shard %q", name, args, shard)
			}
			if !slices.Contains(args, "--leader-elect-resource-name=konnect-operator") {
				t.Errorf("%s: %v (the binary adds the shard to the Lease's name)", name, args)
			}
		}
		// No instance's selector may select another's pods: each pod's
		// labels are its selector's.
		for name, selector := range selectors {
			for other, labels := range selectors {
				if name != other && selects(selector, labels) {
					t.Errorf("the Deployment %s selects the pods of %s (%v)", name, other, selector)
				}
			}
		}
		unsharded, _, _ := unstructured.NestedMap(h.template(ctx, t, nil).get(t, "Deployment", operatorNamespace, "konnect-operator").Object,
			"spec", "selector", "matchLabels")
		if !reflect.DeepEqual(selectors["konnect-operator"], unsharded) {
			t.Errorf("the default instance's selector changed with shards, %v to %v: an upgrade could not change it", unsharded, selectors["konnect-operator"])
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

// selects reports whether a selector's labels are all among labels.
func selects(selector, labels map[string]any) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}
