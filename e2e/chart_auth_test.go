package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
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

// TestHelmChartControlsPolicy renders the admission policy of the day-2
// controls (protected objects, policy annotations) as manifests/admission
// has it, and the defaults of the policies as the operator's flags.
func TestHelmChartControlsPolicy(t *testing.T) {
	ctx := t.Context()
	h := newHelm(t, nil)
	file := filepath.Join("admission", "controls.yaml")
	want := kustomizeObjects(t, file)
	r := h.template(ctx, t, nil)
	for _, kind := range []string{"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"} {
		sameSpec(t, r.get(t, kind, "", "konnect-operator-controls"), want.get(t, kind, "", "konnect-operator-controls"), file)
	}
	for _, tt := range []struct {
		set   []string
		flags []string
	}{
		{nil, []string{"--default-deletion-policy=delete", "--default-reconcile-policy=enforce"}},
		{[]string{"defaultPolicies.deletion=orphan", "defaultPolicies.reconcile=report", "clusterIdentity=restored-cluster"},
			[]string{"--default-deletion-policy=orphan", "--default-reconcile-policy=report", "--cluster-identity=restored-cluster"}},
	} {
		args := deploymentArgsOf(t, h.template(ctx, t, nil, tt.set...))
		for _, flag := range tt.flags {
			if !slices.Contains(args, flag) {
				t.Errorf("values %v: the Deployment's arguments %v lack %s", tt.set, args, flag)
			}
		}
	}
	if out, err := h.run(ctx, "template", "konnect-operator", chartDir, "--set", "defaultPolicies.deletion=keep"); err == nil || !strings.Contains(out+err.Error(), "defaultPolicies/deletion") {
		t.Errorf("defaultPolicies.deletion=keep rendered, or was refused without naming it: %v %s", err, out)
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

	t.Run("a namespaced install renders manifests/rbac/namespaced/rolebinding-writes.yaml too", func(t *testing.T) {
		file := filepath.Join("rbac", "namespaced", "rolebinding-writes.yaml")
		want := kustomizeObjects(t, file)
		r := h.template(ctx, t, nil, "watchNamespaces={team-a}")
		for _, kind := range []string{policyKind, bindingKind} {
			sameSpec(t, r.get(t, kind, "", "konnect-operator-rolebinding-writes"), want.get(t, kind, "", "konnect-operator-rolebinding-writes"), file)
		}
		if _, ok := h.template(ctx, t, nil)[renderedKey(policyKind, "", "konnect-operator-rolebinding-writes")]; ok {
			t.Error("a cluster-wide install renders the RoleBinding policy, with no RoleBinding to guard")
		}
	})

	t.Run("no RBAC, no write policy", func(t *testing.T) {
		r := h.template(ctx, t, nil, "rbac.create=false", "watchNamespaces={team-a}")
		for _, kind := range []string{policyKind, bindingKind} {
			for _, name := range []string{"konnect-operator-secret-writes", "konnect-operator-rolebinding-writes"} {
				if _, ok := r[renderedKey(kind, "", name)]; ok {
					t.Errorf("with rbac.create=false the chart renders %s %s", kind, name)
				}
			}
		}
		// The controls policy guards users' objects, not the operator's
		// rights: it stays.
		if _, ok := r[renderedKey(policyKind, "", "konnect-operator-controls")]; !ok {
			t.Errorf("with rbac.create=false the chart leaves out the controls policy")
		}
	})
}

// renderedOperator returns the rendered Deployment's pod spec and operator
// container.
func renderedOperator(t *testing.T, r rendered) (*corev1.PodSpec, *corev1.Container) {
	t.Helper()
	var d appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(r.get(t, "Deployment", operatorNamespace, operatorDeployment).Object, &d); err != nil {
		t.Fatal(err)
	}
	container, err := operatorContainer(&d)
	if err != nil {
		t.Fatal(err)
	}
	return &d.Spec.Template.Spec, container
}

// monitorEndpoint returns the one endpoint of the rendered ServiceMonitor.
func monitorEndpoint(t *testing.T, r rendered) map[string]any {
	t.Helper()
	endpoints, _, _ := unstructured.NestedSlice(r.get(t, "ServiceMonitor", operatorNamespace, "konnect-operator").Object, "spec", "endpoints")
	if len(endpoints) != 1 {
		t.Fatalf("the ServiceMonitor has %d endpoints, want 1", len(endpoints))
	}
	return endpoints[0].(map[string]any)
}

// TestHelmChartMetrics renders how the chart serves /metrics: over HTTPS on
// metrics.port by default, the operator allowed to ask the API server about
// callers (the rules of manifests/rbac/metrics) and a ServiceMonitor that
// sends Prometheus's token; a certificate Secret, a CA and a token Secret
// when given; the reader role bound to the ServiceAccounts listed; and
// metrics.scheme=http as the operator allows it, plain HTTP on loopback
// with nothing that would try to reach it from outside the pod.
func TestHelmChartMetrics(t *testing.T) {
	ctx := t.Context()
	h := newHelm(t, nil)
	const monitor = "metrics.serviceMonitor.enabled=true"
	// Not the subtests' folders: helm splits --values at commas.
	valuesDir := t.TempDir()

	t.Run("https on metrics.port by default", func(t *testing.T) {
		r := h.template(ctx, t, nil)
		pod, container := renderedOperator(t, r)
		if !slices.Contains(container.Args, "--metrics-bind-address=:8443") || portNamed(container, "metrics") != 8443 {
			t.Errorf("the operator does not serve /metrics on :8443 (arguments %v, ports %v)", container.Args, container.Ports)
		}
		for _, flag := range []string{"--metrics-insecure-loopback", "--metrics-cert-file", "--metrics-key-file"} {
			if hasFlag(container.Args, flag) {
				t.Errorf("by default the Deployment passes %s: %v", flag, container.Args)
			}
		}
		if len(pod.Volumes) != 0 || len(container.VolumeMounts) != 0 {
			t.Errorf("by default the pod mounts %v", pod.Volumes)
		}
		ports, _, _ := unstructured.NestedSlice(r.get(t, "Service", operatorNamespace, "konnect-operator-metrics").Object, "spec", "ports")
		if len(ports) != 1 || !jsonEqual(ports[0], map[string]any{"name": "metrics", "port": 8443, "targetPort": "metrics", "protocol": "TCP"}) {
			t.Errorf("the metrics Service's ports are %v, want 8443 to the port named metrics", ports)
		}
		sameGrants(t, r.get(t, "ClusterRole", "", "konnect-operator-metrics-auth"), filepath.Join("rbac", "metrics", "auth-delegator.yaml"))
		boundTo(t, r, r.get(t, "ClusterRoleBinding", "", "konnect-operator-metrics-auth"))
		if _, ok := r[renderedKey("ClusterRoleBinding", "", "konnect-operator-metrics-reader")]; ok {
			t.Error("by default the chart binds the metrics reader role to someone")
		}
	})

	t.Run("the ServiceMonitor scrapes over HTTPS with Prometheus's token", func(t *testing.T) {
		endpoint := monitorEndpoint(t, h.template(ctx, t, nil, monitor))
		want := map[string]any{"scheme": "https", "bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
			"tlsConfig": map[string]any{"insecureSkipVerify": true}}
		for field, value := range want {
			if !jsonEqual(endpoint[field], value) {
				t.Errorf("the ServiceMonitor's endpoint has %s %v, want %v", field, endpoint[field], value)
			}
		}
		if _, ok := endpoint["authorization"]; ok {
			t.Errorf("the endpoint sends both a token file and authorization: %v", endpoint)
		}
	})

	t.Run("a certificate Secret, a CA and a token Secret replace the defaults", func(t *testing.T) {
		values := filepath.Join(valuesDir, "tls.yaml")
		if err := os.WriteFile(values, []byte(`
metrics:
  tls: {secretName: metrics-tls}
  serviceMonitor:
    enabled: true
    tlsConfig: {ca: {secret: {name: metrics-tls, key: ca.crt}}, serverName: konnect-operator-metrics.konnect-operator-system.svc}
    authorization: {type: Bearer, credentials: {name: scraper-token, key: token}}
`), 0o600); err != nil {
			t.Fatal(err)
		}
		r := h.template(ctx, t, []string{values})
		pod, container := renderedOperator(t, r)
		const dir = "/etc/konnect-operator/metrics-tls"
		for _, flag := range []string{"--metrics-cert-file=" + dir + "/tls.crt", "--metrics-key-file=" + dir + "/tls.key"} {
			if !slices.Contains(container.Args, flag) {
				t.Errorf("the Deployment's arguments %v lack %s", container.Args, flag)
			}
		}
		mounted := len(container.VolumeMounts) == 1 && container.VolumeMounts[0].MountPath == dir && container.VolumeMounts[0].ReadOnly &&
			len(pod.Volumes) == 1 && pod.Volumes[0].Name == container.VolumeMounts[0].Name &&
			pod.Volumes[0].Secret != nil && pod.Volumes[0].Secret.SecretName == "metrics-tls"
		if !mounted {
			t.Errorf("the Secret metrics-tls is not mounted read-only at %s: volumes %v, mounts %v", dir, pod.Volumes, container.VolumeMounts)
		}
		endpoint := monitorEndpoint(t, r)
		if tls, _ := endpoint["tlsConfig"].(map[string]any); tls["insecureSkipVerify"] != nil || tls["serverName"] == nil || tls["ca"] == nil {
			t.Errorf("the endpoint's tlsConfig %v is not the one given", tls)
		}
		if endpoint["bearerTokenFile"] != nil || endpoint["authorization"] == nil {
			t.Errorf("the endpoint does not send the token Secret given instead of its own token: %v", endpoint)
		}
	})

	t.Run("the reader role is bound to the ServiceAccounts listed", func(t *testing.T) {
		r := h.template(ctx, t, nil, "metrics.readerRole.serviceAccounts[0].namespace=monitoring", "metrics.readerRole.serviceAccounts[0].name=prometheus-k8s",
			"metrics.readerRole.serviceAccounts[1].namespace=observability", "metrics.readerRole.serviceAccounts[1].name=agent")
		var b rbacv1.ClusterRoleBinding
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(r.get(t, "ClusterRoleBinding", "", "konnect-operator-metrics-reader").Object, &b); err != nil {
			t.Fatal(err)
		}
		want := []rbacv1.Subject{
			{Kind: "ServiceAccount", Name: "prometheus-k8s", Namespace: "monitoring"},
			{Kind: "ServiceAccount", Name: "agent", Namespace: "observability"},
		}
		if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.Name != "konnect-operator-metrics-reader" || !slices.Equal(b.Subjects, want) {
			t.Errorf("the reader binding binds %v to %v, want %v to the metrics reader ClusterRole", b.Subjects, b.RoleRef, want)
		}
	})

	t.Run("http is plain HTTP on loopback, with nothing reaching for it", func(t *testing.T) {
		r := h.template(ctx, t, nil, "metrics.scheme=http", "metrics.service.enabled=false")
		_, container := renderedOperator(t, r)
		for _, flag := range []string{"--metrics-bind-address=127.0.0.1:8443", "--metrics-insecure-loopback"} {
			if !slices.Contains(container.Args, flag) {
				t.Errorf("the Deployment's arguments %v lack %s", container.Args, flag)
			}
		}
		if port := portNamed(container, "metrics"); port != 0 {
			t.Errorf("the container still declares the metrics port %d, which only loopback serves", port)
		}
		for _, key := range r.keys() {
			// The health Service (helm test) serves /readyz, not /metrics.
			if strings.HasSuffix(key, "-metrics-auth") || strings.HasPrefix(key, "Service ") && !strings.HasSuffix(key, "-health") {
				t.Errorf("with http the chart still renders %s", key)
			}
		}
	})
}
