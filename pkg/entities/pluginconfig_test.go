package entities

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// secretMarker is in every value the plugin tests put in Secrets: no
// message may carry it.
const secretMarker = "s3cr3t-marker"

// pluginSecret is an Opaque Secret labelled for the operator.
func pluginSecret(namespace, name string, data map[string]string) *corev1.Secret {
	s := tlsSecret(namespace, name, data)
	s.Type = corev1.SecretTypeOpaque
	return s
}

func configFrom(name, key string) *configurationv1.ConfigSource {
	return &configurationv1.ConfigSource{SecretValue: configurationv1.SecretValueFromSource{Secret: name, Key: key}}
}

func configPatch(path, name, key string) configurationv1.ConfigPatch {
	return configurationv1.ConfigPatch{Path: path, ValueFrom: *configFrom(name, key)}
}

func TestPluginConfigComesFromSecrets(t *testing.T) {
	inline := &apiextensionsv1.JSON{Raw: []byte(`{"minute": 5, "redis": {"host": "r"}, "list": ["a", "c"]}`)}
	cases := []struct {
		name    string
		plugin  func(p kongPlugin)
		want    map[string]any
		message string // of PluginRefValid=False, "" when ready
	}{
		{name: "configFrom: the whole configuration as JSON", plugin: func(p kongPlugin) {
			p.Config, p.ConfigFrom = nil, configFrom("conf", "json")
		}, want: map[string]any{"minute": 10, "redis_password": secretMarker}},
		{name: "configFrom: the whole configuration as YAML", plugin: func(p kongPlugin) {
			p.Config, p.ConfigFrom = nil, configFrom("conf", "yaml")
		}, want: map[string]any{"minute": 10, "redis_password": secretMarker}},
		{name: "configPatches set values on top of config", plugin: func(p kongPlugin) {
			p.ConfigPatches = []configurationv1.ConfigPatch{
				configPatch("/redis/password", "values", "string"),
				configPatch("/minute", "values", "number"),
				configPatch("/list/1", "values", "string"),
				configPatch("/list/-", "values", "object"),
			}
		}, want: map[string]any{"minute": 7, "redis": map[string]any{"host": "r", "password": secretMarker},
			"list": []any{"a", secretMarker, "c", map[string]any{"k": secretMarker}}}},
		{name: "configPatches without inline config", plugin: func(p kongPlugin) {
			p.Config, p.ConfigPatches = nil, []configurationv1.ConfigPatch{configPatch("/a~1b", "values", "string")}
		}, want: map[string]any{"a/b": secretMarker}},
		{name: "a missing Secret", plugin: func(p kongPlugin) { p.Config, p.ConfigFrom = nil, configFrom("missing", "json") },
			message: `KongPlugin ns/rate: configFrom: Secret ns/missing not found`},
		{name: "a Secret without the label konghq.com/secret=true is not read", plugin: func(p kongPlugin) { p.Config, p.ConfigFrom = nil, configFrom("unlabelled", "json") },
			message: `configFrom: Secret ns/unlabelled lacks the label konghq.com/secret=true`},
		{name: "a missing key", plugin: func(p kongPlugin) { p.Config, p.ConfigFrom = nil, configFrom("conf", "nope") },
			message: `configFrom: Secret ns/conf has no data key "nope"`},
		{name: "a configuration that is not an object", plugin: func(p kongPlugin) { p.Config, p.ConfigFrom = nil, configFrom("values", "string") },
			message: `configFrom: the data key "string" of Secret ns/values is not a JSON (or YAML) object`},
		{name: "a configuration that does not parse", plugin: func(p kongPlugin) { p.Config, p.ConfigFrom = nil, configFrom("bad", "config") },
			message: `configFrom: the data key "config" of Secret ns/bad is neither JSON nor YAML`},
		{name: "a patch value that is not JSON", plugin: func(p kongPlugin) {
			p.ConfigPatches = []configurationv1.ConfigPatch{configPatch("/minute", "values", "unquoted")}
		}, message: `configPatches[0]: the data key "unquoted" of Secret ns/values is not a JSON value (a string needs its quotes)`},
		{name: "a patch under a field config lacks", plugin: func(p kongPlugin) {
			p.ConfigPatches = []configurationv1.ConfigPatch{configPatch("/minute", "values", "number"), configPatch("/absent/password", "values", "string")}
		}, message: `configPatches[1]: path "/absent/password" names "/absent", which config does not have`},
		{name: "a patch through a value", plugin: func(p kongPlugin) {
			p.ConfigPatches = []configurationv1.ConfigPatch{configPatch("/minute/x", "values", "string")}
		}, message: `configPatches[0]: path "/minute/x" goes through "/minute", which is neither an object nor an array`},
		{name: "a patch past the end of an array", plugin: func(p kongPlugin) {
			p.ConfigPatches = []configurationv1.ConfigPatch{configPatch("/list/3", "values", "string")}
		}, message: `configPatches[0]: path "/list/3" at "/list/3": index 3 is past the end of the array`},
		{name: "a path that is not a pointer", plugin: func(p kongPlugin) {
			p.ConfigPatches = []configurationv1.ConfigPatch{configPatch("minute", "values", "number")}
		}, message: `configPatches[0]: path "minute" is not a JSON pointer`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newBindingFixture(t)
			withSecrets(f.refs)
			put(t, f.refs.Secrets,
				pluginSecret(testNamespace, "conf", map[string]string{
					"json": `{"minute": 10, "redis_password": "` + secretMarker + `"}`,
					"yaml": "minute: 10\nredis_password: " + secretMarker + "\n",
				}),
				pluginSecret(testNamespace, "values", map[string]string{
					"string": `"` + secretMarker + `"`, "number": "7", "object": `{"k": "` + secretMarker + `"}`, "unquoted": secretMarker,
				}),
				pluginSecret(testNamespace, "bad", map[string]string{"config": "{" + secretMarker + ": [\n"}),
				labelledFalse(pluginSecret(testNamespace, "unlabelled", map[string]string{"json": "{}"})),
			)
			p := &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "rate"}, PluginName: "rate-limiting", Config: inline}
			tc.plugin(p)
			put(t, f.src.Plugins, p)

			pb := testBinding("b", nil)
			res, err := f.kind.Resolve(t.Context(), pb, controller.ForSync)
			if err != nil {
				t.Fatal(err)
			}
			messages := falseMessages(res.Conditions)
			if strings.Contains(messages, secretMarker) {
				t.Fatalf("a condition carries a value from a Secret: %q", messages)
			}
			body, bodyErr := f.kind.Desired(t.Context(), pb, res.Placement)
			if tc.message != "" {
				if res.Ready || conditionStatus(res, commonv1alpha1.ConditionPluginRefValid) != "False" || !strings.Contains(messages, tc.message) {
					t.Fatalf("ready=%v, messages %q; want PluginRefValid=False with %q", res.Ready, messages, tc.message)
				}
				if bodyErr == nil || strings.Contains(bodyErr.Error(), secretMarker) {
					t.Fatalf("a body was built (%v), or its error carries a value: %v", body.Config, bodyErr)
				}
				return
			}
			if !res.Ready || bodyErr != nil {
				t.Fatalf("ready=%v, %q, %v", res.Ready, messages, bodyErr)
			}
			if !jsonEqual(body.Config, tc.want) {
				t.Errorf("config %v, want %v", body.Config, tc.want)
			}
		})
	}
}

// Any namespace may bind a KongClusterPlugin, and its values reach the
// binding's control plane: a Secret of another namespace is read only for
// the namespaces it allows (a grant), or those the plugin lists.
func TestClusterPluginSecretsReachOnlyTheNamespacesAllowed(t *testing.T) {
	for _, tc := range []struct {
		name         string
		annotation   string
		grant        bool
		secretInSelf bool
		ready        bool
	}{
		{name: "another namespace's Secret, no grant, not listed", ready: false},
		{name: "another namespace's Secret, listed by the plugin", annotation: "team-x, " + testNamespace, ready: true},
		{name: "another namespace's Secret, every namespace listed", annotation: "*", ready: true},
		{name: "another namespace's Secret, another namespace listed", annotation: "team-x", ready: false},
		{name: "another namespace's Secret, granted to the binding's namespace", grant: true, ready: true},
		{name: "the binding's own namespace's Secret", secretInSelf: true, ready: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newBindingFixture(t)
			withSecrets(f.refs)
			secretNamespace := "vault"
			if tc.secretInSelf {
				secretNamespace = testNamespace
			}
			put(t, f.refs.Secrets, pluginSecret(secretNamespace, "conf", map[string]string{"config": `{"origins": ["` + secretMarker + `"]}`}))
			if tc.grant {
				grant(t, f.refs, "vault", "KongPluginBinding", testNamespace, groupCore, kindSecret)
			}
			plugin := &configurationv1.KongClusterPlugin{
				ObjectMeta: metav1.ObjectMeta{Name: "global-rate"}, PluginName: "cors",
				ConfigFrom: &configurationv1.NamespacedConfigSource{SecretValue: configurationv1.NamespacedSecretValueFromSource{Namespace: secretNamespace, Secret: "conf", Key: "config"}},
			}
			if tc.annotation != "" {
				plugin.Annotations = map[string]string{AnnotationClusterPluginNamespaces: tc.annotation}
			}
			put(t, f.src.ClusterPlugins, plugin)
			clusterPlugin := configurationv1alpha1.PluginRefKindKongClusterPlugin
			pb := testBinding("b", nil)
			pb.Spec.PluginRef = configurationv1alpha1.PluginRef{Kind: &clusterPlugin, Name: "global-rate"}
			res, err := f.kind.Resolve(t.Context(), pb, controller.ForSync)
			if err != nil || res.Ready != tc.ready {
				t.Fatalf("ready=%v, %v, %q; want ready=%v", res.Ready, err, falseMessages(res.Conditions), tc.ready)
			}
			body, err := f.kind.Desired(t.Context(), pb, res.Placement)
			if !tc.ready {
				messages := falseMessages(res.Conditions)
				if !strings.Contains(messages, AnnotationClusterPluginNamespaces) || !strings.Contains(messages, "KongReferenceGrant") || strings.Contains(messages, secretMarker) {
					t.Errorf("the refusal %q does not name both ways to allow it, or carries the Secret's value", messages)
				}
				if err == nil {
					t.Errorf("a body was built with a Secret the binding may not read: %v", body.Config)
				}
				return
			}
			if err != nil || !jsonEqual(body.Config, map[string]any{"origins": []any{secretMarker}}) {
				t.Errorf("config %v, %v", body.Config, err)
			}
		})
	}
}

func TestPluginSecretsReconcileTheBindingsOfTheirPlugins(t *testing.T) {
	f := newBindingFixture(t)
	withSecrets(f.refs)
	f.kind = PluginBindingKind(f.refs, f.src)
	put(t, f.src.Plugins,
		&configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "from"}, PluginName: "a", ConfigFrom: configFrom("conf", "k")},
		&configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "patched"}, PluginName: "b",
			ConfigPatches: []configurationv1.ConfigPatch{configPatch("/x", "other", "k"), configPatch("/y", "conf", "k")}},
		&configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: "elsewhere", Name: "from"}, PluginName: "a", ConfigFrom: configFrom("conf", "k")},
	)
	put(t, f.src.ClusterPlugins, &configurationv1.KongClusterPlugin{
		ObjectMeta: metav1.ObjectMeta{Name: "global"}, PluginName: "cors",
		ConfigPatches: []configurationv1.NamespacedConfigPatch{{Path: "/x", ValueFrom: configurationv1.NamespacedConfigSource{
			SecretValue: configurationv1.NamespacedSecretValueFromSource{Namespace: testNamespace, Secret: "conf", Key: "k"}}}},
	})
	got := f.src.pluginsReading(pluginSecret(testNamespace, "conf", nil))
	slices.Sort(got)
	if want := []string{"global", "ns/from", "ns/patched"}; !slices.Equal(got, want) {
		t.Errorf("plugins reading ns/conf: %v, want %v", got, want)
	}
	clusterPlugin := configurationv1alpha1.PluginRefKindKongClusterPlugin
	global := testBinding("g", nil)
	global.Spec.PluginRef = configurationv1alpha1.PluginRef{Kind: &clusterPlugin, Name: "global"}
	for _, dep := range f.kind.Dependencies {
		if dep.Name != "pluginSecrets" {
			continue
		}
		if keys := dep.Keys(testBinding("b", nil)); !slices.Equal(keys, []string{"ns/rate"}) {
			t.Errorf("a binding of KongPlugin rate is indexed under %v", keys)
		}
		if keys := dep.Keys(global); !slices.Equal(keys, []string{"global"}) {
			t.Errorf("a binding of KongClusterPlugin global is indexed under %v", keys)
		}
		return
	}
	t.Fatal("no dependency on the plugins' Secrets")
}

func TestSetAtPointerAddsAsJSONPatchDoes(t *testing.T) {
	doc := func() map[string]any {
		return map[string]any{"a": map[string]any{"b": 1}, "l": []any{1, 2}}
	}
	cases := []struct {
		pointer string
		want    map[string]any
		fails   bool
	}{
		{pointer: "/a/b", want: map[string]any{"a": map[string]any{"b": "v"}, "l": []any{1, 2}}},
		{pointer: "/a/c", want: map[string]any{"a": map[string]any{"b": 1, "c": "v"}, "l": []any{1, 2}}},
		{pointer: "/l/0", want: map[string]any{"a": map[string]any{"b": 1}, "l": []any{"v", 1, 2}}},
		{pointer: "/l/2", want: map[string]any{"a": map[string]any{"b": 1}, "l": []any{1, 2, "v"}}},
		{pointer: "/l/-", want: map[string]any{"a": map[string]any{"b": 1}, "l": []any{1, 2, "v"}}},
		{pointer: "/l/01", fails: true},
		{pointer: "/l/-/x", fails: true},
		{pointer: "/x/y", fails: true},
		{pointer: "", fails: true},
	}
	for _, tc := range cases {
		d := doc()
		err := setAtPointer(d, tc.pointer, "v")
		if tc.fails != (err != nil) || !tc.fails && !jsonEqual(d, tc.want) {
			t.Errorf("%q: %v, %v", tc.pointer, d, err)
		}
	}
}
