package entities

import (
	"slices"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// bindingFixture is the plugin-binding kind over hand-filled caches, with
// a Programmed control plane and, in the test namespace, a KongPlugin
// "rate", a KongClusterPlugin "global-rate" and Programmed targets named
// "svc", "route", "alice" and "gold".
type bindingFixture struct {
	refs *Refs
	src  PluginBindingSources
	kind controller.Kind[kongPluginBinding, components.Plugin]
}

func newBindingFixture(t *testing.T) bindingFixture {
	t.Helper()
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	src := PluginBindingSources{
		Plugins:        cacheOf[kongPlugin]("kongplugins"),
		ClusterPlugins: cacheOf[kongClusterPlugin]("kongclusterplugins"),
		Services:       cacheOf[kongService]("kongservices"),
		Routes:         cacheOf[kongRoute]("kongroutes"),
		Consumers:      cacheOf[kongConsumer]("kongconsumers"),
		ConsumerGroups: cacheOf[kongConsumerGroup]("kongconsumergroups"),
	}
	put(t, src.Plugins, &configurationv1.KongPlugin{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "rate", Annotations: map[string]string{commonv1alpha1.AnnotationTags: "from-plugin"}},
		PluginName: "rate-limiting", Config: &apiextensionsv1.JSON{Raw: []byte(`{"minute": 5, "policy": {"local": true}}`)},
		Tags:         []string{"from-plugin-spec", "from-binding-spec"},
		InstanceName: "rate-1", Disabled: true, Protocols: []configurationv1.KongProtocol{"https"},
	})
	put(t, src.ClusterPlugins, &configurationv1.KongClusterPlugin{ObjectMeta: metav1.ObjectMeta{Name: "global-rate"}, PluginName: "cors"})
	put(t, src.Services, programmedIn(&configurationv1alpha1.KongService{ObjectMeta: objectMeta("svc")}, "", "svc-id"))
	put(t, src.Routes, programmedIn(&configurationv1alpha1.KongRoute{ObjectMeta: objectMeta("route")}, "", "route-id"),
		&configurationv1alpha1.KongRoute{ObjectMeta: objectMeta("new-route")})
	put(t, src.Consumers, programmedConsumer("alice", "alice-id"))
	put(t, src.ConsumerGroups, programmedConsumerGroup("gold", "gold-id"))
	return bindingFixture{refs: refs, src: src, kind: PluginBindingKind(refs, src)}
}

func testBinding(name string, targets *configurationv1alpha1.KongPluginBindingTargets) kongPluginBinding {
	return &configurationv1alpha1.KongPluginBinding{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongPluginBindingSpec{
			PluginRef: configurationv1alpha1.PluginRef{Name: "rate"}, ControlPlaneRef: konnectRef("cp"), Targets: targets,
		},
	}
}

func kongTargetRef(kind, name string) *configurationv1alpha1.TargetRefWithGroupKind {
	return &configurationv1alpha1.TargetRefWithGroupKind{Kind: kind, Name: name, Group: groupConfiguration}
}

func TestPluginBindingChecksItsPluginAndTargets(t *testing.T) {
	clusterPlugin := configurationv1alpha1.PluginRefKindKongClusterPlugin
	cases := []struct {
		name    string
		edit    func(pb kongPluginBinding)
		grant   bool
		failing string // the condition that is False, "" when ready
		message string
		gone    bool // deleting finds the plugin gone with a target
	}{
		{name: "a global plugin: no targets to check"},
		{name: "every kind of target, Programmed", edit: func(pb kongPluginBinding) {
			pb.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{
				ServiceRef: kongTargetRef("KongService", "svc"), RouteRef: kongTargetRef("KongRoute", "route"),
				ConsumerRef: &configurationv1alpha1.TargetRef{Name: "alice"}, ConsumerGroupRef: &configurationv1alpha1.TargetRef{Name: "gold"},
			}
		}},
		{name: "a missing KongPlugin", edit: func(pb kongPluginBinding) { pb.Spec.PluginRef.Name = "missing" },
			failing: commonv1alpha1.ConditionPluginRefValid, message: "KongPlugin ns/missing not found"},
		{name: "a KongClusterPlugin", edit: func(pb kongPluginBinding) {
			pb.Spec.PluginRef = configurationv1alpha1.PluginRef{Kind: &clusterPlugin, Name: "global-rate"}
		}},
		{name: "a missing KongClusterPlugin", edit: func(pb kongPluginBinding) {
			pb.Spec.PluginRef = configurationv1alpha1.PluginRef{Kind: &clusterPlugin, Name: "missing"}
		}, failing: commonv1alpha1.ConditionPluginRefValid, message: "KongClusterPlugin missing not found"},
		{name: "a KongPlugin of another namespace without a grant", edit: func(pb kongPluginBinding) { pb.Spec.PluginRef.Namespace = "other" },
			failing: commonv1alpha1.ConditionPluginRefValid, message: "needs a KongReferenceGrant in namespace other"},
		{name: "a KongPlugin of another namespace with a grant", edit: func(pb kongPluginBinding) { pb.Spec.PluginRef.Namespace = "other" }, grant: true},
		{name: "a missing service", edit: func(pb kongPluginBinding) {
			pb.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{ServiceRef: kongTargetRef("KongService", "missing")}
		}, failing: ConditionTargetRefsValid, message: "KongService ns/missing not found", gone: true},
		{name: "a route not yet in Konnect", edit: func(pb kongPluginBinding) {
			pb.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{RouteRef: kongTargetRef("KongRoute", "new-route")}
		}, failing: ConditionTargetRefsValid, message: "KongRoute ns/new-route is not Programmed", gone: true},
		{name: "a Service of the core group", edit: func(pb kongPluginBinding) {
			pb.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{ServiceRef: &configurationv1alpha1.TargetRefWithGroupKind{Kind: "Service", Name: "svc"}}
		}, failing: ConditionTargetRefsValid, message: "serviceRef of kind Service is not supported with Konnect"},
		{name: "a missing consumer among Programmed targets", edit: func(pb kongPluginBinding) {
			pb.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{
				ServiceRef: kongTargetRef("KongService", "svc"), ConsumerRef: &configurationv1alpha1.TargetRef{Name: "bob"},
			}
		}, failing: ConditionTargetRefsValid, message: "KongConsumer ns/bob not found", gone: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newBindingFixture(t)
			put(t, f.src.Plugins, &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "rate"}, PluginName: "rate-limiting"})
			if tc.grant {
				put(t, f.refs.Grants, &configurationv1alpha1.KongReferenceGrant{
					ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "plugins"},
					Spec: configurationv1alpha1.KongReferenceGrantSpec{
						From: []configurationv1alpha1.ReferenceGrantFrom{{Group: groupConfiguration, Kind: "KongPluginBinding", Namespace: testNamespace}},
						To:   []configurationv1alpha1.ReferenceGrantTo{{Group: groupConfiguration, Kind: "KongPlugin"}},
					},
				})
			}
			pb := testBinding("b", nil)
			if tc.edit != nil {
				tc.edit(pb)
			}
			res, err := f.kind.Resolve(t.Context(), pb, controller.ForSync)
			if err != nil {
				t.Fatal(err)
			}
			if tc.failing == "" {
				if !res.Ready || res.Placement.ControlPlaneID != "cp-id" {
					t.Fatalf("ready=%v placement=%+v conditions %v", res.Ready, res.Placement, res.Conditions)
				}
			} else if res.Ready || conditionStatus(res, tc.failing) != "False" || !strings.Contains(falseMessages(res.Conditions), tc.message) {
				t.Fatalf("ready=%v, %s=%q, messages %q; want %q", res.Ready, tc.failing, conditionStatus(res, tc.failing), falseMessages(res.Conditions), tc.message)
			}
			if pb.Spec.Targets == nil && conditionStatus(res, ConditionTargetRefsValid) != "" {
				t.Errorf("a binding without targets reports TargetRefsValid")
			}
			res, err = f.kind.Resolve(t.Context(), pb, controller.ForDelete)
			if err != nil || res.Gone != tc.gone {
				t.Fatalf("deleting: gone=%v, %v; want %v", res.Gone, err, tc.gone)
			}
		})
	}
}

func TestPluginBindingBodyTakesThePluginAndTheTargetsIDs(t *testing.T) {
	f := newBindingFixture(t)
	pb := testBinding("b", &configurationv1alpha1.KongPluginBindingTargets{
		RouteRef: kongTargetRef("KongRoute", "route"), ConsumerGroupRef: &configurationv1alpha1.TargetRef{Name: "gold"},
	})
	pb.Annotations = map[string]string{commonv1alpha1.AnnotationTags: "from-binding"}
	pb.Spec.Tags = []string{"from-binding-spec"}
	body, err := f.kind.Desired(t.Context(), pb, controller.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	if body.Name != "rate-limiting" || deref(body.InstanceName) != "rate-1" || body.Enabled == nil || *body.Enabled {
		t.Errorf("name %q, instance %v, enabled %v; the plugin is disabled", body.Name, deref(body.InstanceName), body.Enabled)
	}
	if !jsonEqual(body.Config, map[string]any{"minute": 5, "policy": map[string]any{"local": true}}) {
		t.Errorf("config %v", body.Config)
	}
	if !slices.Equal(body.Protocols, []components.Protocols{"https"}) {
		t.Errorf("protocols %v", body.Protocols)
	}
	if deref(body.GetRoute().GetID()) != "route-id" || deref(body.GetConsumerGroup().GetID()) != "gold-id" || body.Service != nil || body.Consumer != nil {
		t.Errorf("scope: service %v, route %v, consumer %v, group %v", body.Service, body.Route, body.Consumer, body.ConsumerGroup)
	}
	for _, want := range []string{"from-plugin", "from-plugin-spec", "from-binding", "from-binding-spec", controller.UIDTag(pb), "k8s-kind:KongPluginBinding"} {
		if !slices.Contains(body.Tags, want) {
			t.Errorf("tags %v lack %q", body.Tags, want)
		}
	}
	if len(slices.Compact(slices.Clone(body.Tags))) != len(body.Tags) {
		t.Errorf("tags %v repeat one", body.Tags)
	}

	global, err := f.kind.Desired(t.Context(), testBinding("g", nil), controller.Placement{})
	if err != nil || global.Service != nil || global.Route != nil || global.Consumer != nil || global.ConsumerGroup != nil {
		t.Errorf("a global plugin has a scope: %+v, %v", global, err)
	}
	put(t, f.src.Plugins, &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "rate"}, PluginName: "rate-limiting", Config: &apiextensionsv1.JSON{Raw: []byte(`[1]`)}})
	if _, err := f.kind.Desired(t.Context(), testBinding("b", nil), controller.Placement{}); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("a config that is not an object: %v", err)
	}
}

func TestPluginMatchAppliesKonnectsDefaults(t *testing.T) {
	enabled := true
	desired := components.Plugin{
		Name: "rate-limiting", Enabled: &enabled, Config: map[string]any{"minute": 5, "policy": map[string]any{"local": true}},
		Service: &components.PluginService{ID: ptr("svc")},
	}
	konnectCopy := func(edit func(p *components.Plugin)) components.Plugin {
		p := components.Plugin{
			Name: "rate-limiting", Protocols: []components.Protocols{"grpc", "grpcs", "http", "https"},
			Config:  map[string]any{"minute": 5.0, "hour": nil, "policy": map[string]any{"local": true, "redis": nil}},
			Service: &components.PluginService{ID: ptr("svc")},
		}
		if edit != nil {
			edit(&p)
		}
		return p
	}
	cases := []struct {
		name   string
		actual components.Plugin
		want   []string
	}{
		{"Konnect's filled-in defaults match the spec", konnectCopy(nil), nil},
		{"another config value", konnectCopy(func(p *components.Plugin) { p.Config["minute"] = 6 }), []string{"config"}},
		{"a nested field missing", konnectCopy(func(p *components.Plugin) { p.Config["policy"] = map[string]any{} }), []string{"config"}},
		{"disabled, on fewer protocols", konnectCopy(func(p *components.Plugin) {
			p.Enabled = new(bool)
			p.Protocols = []components.Protocols{"https"}
		}), []string{"enabled", "protocols"}},
		{"another scope and instance name", konnectCopy(func(p *components.Plugin) {
			p.Service, p.Consumer, p.InstanceName = nil, &components.PluginConsumer{ID: ptr("c")}, ptr("x")
		}), []string{"instance_name", "service", "consumer"}},
	}
	for _, tc := range cases {
		if got := pluginMatches(desired, &tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPluginCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	consumer := simulatedConsumer(t, s, p, "alice")
	uid := controller.TagKeyUID + ":1"
	enabled, disabled := true, false
	exerciseCalls(t, s, p, pluginCalls,
		components.Plugin{Name: "rate-limiting", Enabled: &enabled, Config: map[string]any{"minute": 5}, Tags: []string{uid}},
		components.Plugin{Name: "rate-limiting", Enabled: &disabled, Config: map[string]any{"minute": 7}, Tags: []string{uid},
			Consumer: &components.PluginConsumer{ID: &consumer}}, uid)
}

func TestPluginBindingWatchesEveryReference(t *testing.T) {
	f := newBindingFixture(t)
	pb := testBinding("b", &configurationv1alpha1.KongPluginBindingTargets{
		ServiceRef: kongTargetRef("KongService", "svc"), RouteRef: kongTargetRef("KongRoute", "route"),
		ConsumerRef: &configurationv1alpha1.TargetRef{Name: "alice"}, ConsumerGroupRef: &configurationv1alpha1.TargetRef{Name: "gold"},
	})
	pb.Spec.PluginRef.Namespace = "plugins"
	pb.Spec.ControlPlaneRef.KonnectNamespacedRef.Namespace = "planes"
	want := map[string][]string{
		"plugin": {"plugins/rate"}, "clusterPlugin": nil, "pluginSecrets": {"plugins/rate"}, "clusterPluginSecretGrants": {"plugins/rate"},
		"service": {"ns/svc"}, "route": {"ns/route"}, "consumer": {"ns/alice"}, "consumerGroup": {"ns/gold"},
		"controlPlane": {"planes/cp"}, "grants": {"planes", "plugins"},
	}
	seen := map[string]bool{}
	for _, dep := range f.kind.Dependencies {
		if seen[dep.Name] {
			t.Errorf("two dependencies are named %s: their indexes would clash", dep.Name)
		}
		seen[dep.Name] = true
		if got := dep.Keys(pb); !slices.Equal(got, want[dep.Name]) {
			t.Errorf("%s: keys %v, want %v", dep.Name, got, want[dep.Name])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("dependencies %v, want %v", seen, want)
	}
}
