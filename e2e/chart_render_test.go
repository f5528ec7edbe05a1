package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestHelmChartRendersCRDsTestAndPlatformValues renders the chart without a
// cluster: the CRDs as templates, equal to manifests/crd and kept on
// uninstall unless crds.keep=false, none with crds.install=false; the auth
// configuration as a post-install hook only while the cluster does not
// serve its kind yet; the `helm test` pod and its Service; and the values
// platform teams set, on every object.
func TestHelmChartRendersCRDsTestAndPlatformValues(t *testing.T) {
	ctx := t.Context()
	h := newHelm(t, nil)
	platform := writeValues(t, "render-platform.yaml", platformValues)

	t.Run("the CRDs are templates equal to manifests/crd, kept on uninstall", func(t *testing.T) {
		r := h.template(ctx, t, nil)
		files, err := filepath.Glob(filepath.Join(suite.root, "manifests", "crd", "*_*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		crds := r.ofKind("CustomResourceDefinition")
		if len(crds) != len(files) || len(crds) == 0 {
			t.Fatalf("the chart renders %d CRDs, manifests/crd holds %d", len(crds), len(files))
		}
		for _, f := range files {
			want := kustomizeObjects(t, filepath.Join("crd", filepath.Base(f)))
			for _, crd := range want.ofKind("CustomResourceDefinition") {
				got := r.get(t, "CustomResourceDefinition", "", crd.GetName())
				sameSpec(t, got, crd, filepath.Join("crd", filepath.Base(f)))
				if got.GetAnnotations()["helm.sh/resource-policy"] != "keep" || got.GetLabels()["app.kubernetes.io/instance"] != "konnect-operator" {
					t.Errorf("CRD %s: annotations %v, labels %v; want it kept, and labelled as the release's", got.GetName(), got.GetAnnotations(), got.GetLabels())
				}
			}
		}
		for _, crd := range h.template(ctx, t, nil, "crds.keep=false").ofKind("CustomResourceDefinition") {
			if _, kept := crd.GetAnnotations()["helm.sh/resource-policy"]; kept {
				t.Errorf("with crds.keep=false, CRD %s is still kept", crd.GetName())
			}
		}
		if n := len(h.template(ctx, t, nil, "crds.install=false").ofKind("CustomResourceDefinition")); n != 0 {
			t.Errorf("with crds.install=false the chart renders %d CRDs", n)
		}
	})

	t.Run("the operator makes the auth configuration, which Helm cannot on a first install", func(t *testing.T) {
		values := writeValues(t, "render-auth.yaml", "konnectAuth: {create: true, namespace: team-a, serverURL: eu.api.konghq.com, token: kpat_render_only}\n")
		for _, tt := range []struct {
			name  string
			flags []string
		}{
			{"first install, CRDs with it", nil},
			{"upgrade", []string{"--is-upgrade"}},
			{"CRDs not the chart's", []string{"--set", "crds.install=false"}},
		} {
			out, err := h.run(ctx, append([]string{"template", "konnect-operator", chartDir, "--namespace", operatorNamespace, "--values", values}, tt.flags...)...)
			if err != nil {
				t.Fatal(err)
			}
			r, err := renderedOf([]byte(out))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(r.ofKind("KonnectAPIAuthConfiguration")); n != 0 {
				t.Errorf("%s: the chart renders %d KonnectAPIAuthConfiguration, which a first install cannot build", tt.name, n)
			}
			args := deploymentArgsOf(t, r)
			for _, flag := range []string{"--create-auth-configuration=team-a/konnect-auth", "--create-auth-configuration-secret=konnect-auth-token", "--create-auth-configuration-server-url=eu.api.konghq.com"} {
				if !slices.Contains(args, flag) {
					t.Errorf("%s: the Deployment's arguments %v lack %s", tt.name, args, flag)
				}
			}
			role := r.get(t, "Role", "team-a", "konnect-operator-auth-bootstrap")
			rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
			if len(rules) != 1 || !jsonEqual(rules[0].(map[string]any)["verbs"], []any{"create"}) {
				t.Errorf("%s: the bootstrap Role grants %v, want create on konnectapiauthconfigurations alone", tt.name, rules)
			}
			boundTo(t, r, r.get(t, "RoleBinding", "team-a", "konnect-operator-auth-bootstrap"))
		}
	})

	t.Run("helm test: a restricted pod of the operator's image asks the health Service", func(t *testing.T) {
		r := h.template(ctx, t, []string{platform})
		pod := r.get(t, "Pod", operatorNamespace, "konnect-operator-test-readyz")
		if hook := pod.GetAnnotations()["helm.sh/hook"]; hook != "test" {
			t.Errorf("the test pod's hook is %q, want test", hook)
		}
		containers, _, _ := unstructured.NestedSlice(pod.Object, "spec", "containers")
		container := containers[0].(map[string]any)
		_, operator := renderedOperator(t, r)
		args, _, _ := unstructured.NestedStringSlice(container, "args")
		if container["image"] != operator.Image || !slices.Contains(args, "--check-ready=http://konnect-operator-health."+operatorNamespace+".svc:8081/readyz") {
			t.Errorf("the test pod runs %v %v, want the operator's image %s asking the health Service", container["image"], args, operator.Image)
		}
		if nonRoot, _, _ := unstructured.NestedBool(pod.Object, "spec", "securityContext", "runAsNonRoot"); !nonRoot {
			t.Error("the test pod may run as root")
		}
		if drop, _, _ := unstructured.NestedStringSlice(container, "securityContext", "capabilities", "drop"); !slices.Equal(drop, []string{"ALL"}) {
			t.Errorf("the test pod drops the capabilities %v, want ALL", drop)
		}
		if secrets, _, _ := unstructured.NestedSlice(pod.Object, "spec", "imagePullSecrets"); len(secrets) != 2 {
			t.Errorf("the test pod pulls with %v, want both pull Secrets", secrets)
		}
		if selector, _, _ := unstructured.NestedStringMap(r.get(t, "Service", operatorNamespace, "konnect-operator-health").Object, "spec", "selector"); selector["app.kubernetes.io/component"] != "operator" ||
			pod.GetLabels()["app.kubernetes.io/component"] == "operator" {
			t.Errorf("the health Service selects %v, the test pod is labelled %v: it must select the operator's pods, not the test's", selector, pod.GetLabels())
		}
		off := h.template(ctx, t, nil, "test.enabled=false")
		for _, key := range []string{renderedKey("Pod", operatorNamespace, "konnect-operator-test-readyz"), renderedKey("Service", operatorNamespace, "konnect-operator-health")} {
			if _, ok := off[key]; ok {
				t.Errorf("with test.enabled=false the chart renders %s", key)
			}
		}
	})

	t.Run("the common label is on every object", func(t *testing.T) {
		r := h.template(ctx, t, []string{platform}, "watchNamespaces={team-a}", "konnectAuth.create=true", "konnectAuth.serverURL=eu.api.konghq.com", "konnectAuth.existingSecret=konnect-token",
			"metrics.serviceMonitor.enabled=true", "metrics.prometheusRule.enabled=true", "metrics.dashboard.enabled=true")
		for _, key := range r.keys() {
			if labels := r[key].GetLabels(); labels["team"] != "platform" {
				t.Errorf("%s lacks the common label: %v", key, labels)
			}
		}
	})

	t.Run("bad values are refused with a message naming them", func(t *testing.T) {
		for _, tt := range []struct{ set, want string }{
			{`commonLabels.app\.kubernetes\.io/name=x`, "commonLabels may not set app.kubernetes.io/name"},
			{`commonLabels.helm\.sh/chart=x`, "commonLabels may not set helm.sh/chart"},
			{"extraVolumeMounts[0].name=ca", "at '/extraVolumeMounts/0': missing property 'mountPath'"},
			{"extraVolumes[0].configMap.name=ca", "at '/extraVolumes/0': missing property 'name'"},
			{"image.pullSecrets[0].name=registry", "at '/image/pullSecrets/0': got object, want string"},
			{"crds.install=maybe", "at '/crds/install': got string, want boolean"},
			{"test.enabled=sometimes", "at '/test/enabled'"},
		} {
			out, err := h.run(ctx, "template", "konnect-operator", chartDir, "--set", tt.set)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("--set %s: %v\nwant an error saying %q", tt.set, lastLines(errString(err), 4), tt.want)
			}
			if err != nil && out != "" {
				t.Errorf("--set %s: refused, but printed manifests", tt.set)
			}
		}
	})
}

func errString(err error) string {
	if err == nil {
		return "rendered"
	}
	return err.Error()
}
