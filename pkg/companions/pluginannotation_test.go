package companions

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

func TestPluginNamesTrimsAndSkipsEmptyEntries(t *testing.T) {
	cases := map[string][]string{
		"":               nil,
		"a":              {"a"},
		" a , b ,,c ":    {"a", "b", "c"},
		"a,a, a":         {"a"},
		",  ,":           nil,
		"rate-limiting,": {"rate-limiting"},
	}
	for value, want := range cases {
		obj := &metav1.ObjectMeta{Annotations: map[string]string{commonv1alpha1.AnnotationPlugins: value}}
		if got := pluginNames(obj); !slices.Equal(got, want) {
			t.Errorf("pluginNames(%q) = %v, want %v", value, got, want)
		}
	}
}

func TestManagedBindingsFollowTheAnnotationTable(t *testing.T) {
	cp := controlPlaneName{namespace: "ns", name: "cp"}
	other := controlPlaneName{namespace: "ns", name: "other"}
	svc := func(n string) annotatedTarget { return annotatedTarget{kind: targetService, name: n, cp: cp} }
	route := func(n string) annotatedTarget { return annotatedTarget{kind: targetRoute, name: n, cp: cp} }
	consumer := func(n string) annotatedTarget { return annotatedTarget{kind: targetConsumer, name: n, cp: cp} }
	group := func(n string) annotatedTarget { return annotatedTarget{kind: targetConsumerGroup, name: n, cp: cp} }
	b := func(service, route, consumer, group string) managedBinding {
		return managedBinding{cp: cp, service: service, route: route, consumer: consumer, consumerGroup: group}
	}
	cases := []struct {
		name    string
		targets []annotatedTarget
		want    []managedBinding
	}{
		{name: "nothing annotated", targets: nil, want: nil},
		{name: "a service", targets: []annotatedTarget{svc("s")}, want: []managedBinding{b("s", "", "", "")}},
		{name: "a route", targets: []annotatedTarget{route("r")}, want: []managedBinding{b("", "r", "", "")}},
		{
			name:    "routes and services each alone, never combined",
			targets: []annotatedTarget{svc("s"), route("r1"), route("r2")},
			want:    []managedBinding{b("s", "", "", ""), b("", "r1", "", ""), b("", "r2", "", "")},
		},
		{name: "consumers only: one each", targets: []annotatedTarget{consumer("c1"), consumer("c2")},
			want: []managedBinding{b("", "", "c1", ""), b("", "", "c2", "")}},
		{
			name:    "consumers with routes and services: every pair",
			targets: []annotatedTarget{consumer("c1"), consumer("c2"), route("r"), svc("s")},
			want: []managedBinding{
				b("", "r", "c1", ""), b("s", "", "c1", ""), b("", "r", "c2", ""), b("s", "", "c2", ""),
			},
		},
		{name: "groups only: one each", targets: []annotatedTarget{group("g1"), group("g2")},
			want: []managedBinding{b("", "", "", "g1"), b("", "", "", "g2")}},
		{
			name:    "groups with routes and services: every pair",
			targets: []annotatedTarget{group("g"), route("r"), svc("s")},
			want:    []managedBinding{b("", "r", "", "g"), b("s", "", "", "g")},
		},
		{
			name:    "groups are ignored when consumers name the plugin too",
			targets: []annotatedTarget{group("g"), consumer("c"), svc("s")},
			want:    []managedBinding{b("s", "", "c", "")},
		},
		{
			name:    "groups ignored with consumers and nothing else",
			targets: []annotatedTarget{group("g"), consumer("c")},
			want:    []managedBinding{b("", "", "c", "")},
		},
		{
			name:    "each control plane on its own",
			targets: []annotatedTarget{consumer("c"), {kind: targetService, name: "s", cp: other}},
			want:    []managedBinding{b("", "", "c", ""), {cp: other, service: "s"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := managedBindings(tc.targets)
			keys := func(bs []managedBinding) []string {
				var out []string
				for _, m := range bs {
					out = append(out, m.key())
				}
				slices.Sort(out)
				return out
			}
			if !slices.Equal(keys(got), keys(tc.want)) {
				t.Fatalf("bindings\n got %v\nwant %v", keys(got), keys(tc.want))
			}
		})
	}
}

func TestManagedBindingSpecReadsBackAsTheSameKey(t *testing.T) {
	for _, m := range []managedBinding{
		{cp: controlPlaneName{"ns", "cp"}, service: "s"},
		{cp: controlPlaneName{"ns", "cp"}, route: "r", consumer: "c"},
		{cp: controlPlaneName{"elsewhere", "cp"}, consumerGroup: "g", service: "s"},
	} {
		b := &configurationv1alpha1.KongPluginBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: m.spec("p", "ns")}
		got, ok := existingBindingKey(b, "p")
		if !ok || got != m.key() {
			t.Errorf("spec of %s reads back as %q (%v)", m.key(), got, ok)
		}
		if _, ok := existingBindingKey(b, "another"); ok {
			t.Errorf("spec of %s matched another plugin", m.key())
		}
		if ns := b.Spec.ControlPlaneRef.KonnectNamespacedRef.Namespace; (ns == "") != (m.cp.namespace == "ns") {
			t.Errorf("%s: control plane namespace %q, want it only when not the binding's", m.key(), ns)
		}
	}
	global := &configurationv1alpha1.KongPluginBinding{Spec: configurationv1alpha1.KongPluginBindingSpec{
		PluginRef: configurationv1alpha1.PluginRef{Name: "p"},
		Scope:     configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane, ControlPlaneRef: (managedBinding{}).spec("p", "").ControlPlaneRef,
	}}
	if _, ok := existingBindingKey(global, "p"); ok {
		t.Error("a global binding matched an annotation")
	}
}
