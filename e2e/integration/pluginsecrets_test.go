package integration

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// createSecretPlugin creates a KongPlugin of the given plugin shaped by
// mutate.
func (e *env) createSecretPlugin(name, plugin string, mutate func(*configurationv1.KongPlugin)) {
	e.t.Helper()
	p := &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Name: name}, PluginName: plugin}
	mutate(p)
	if _, err := e.cs.ConfigurationV1().KongPlugins(e.ns).Create(e.ctx, p, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func configFromSecret(secret, key string) func(*configurationv1.KongPlugin) {
	return func(p *configurationv1.KongPlugin) {
		p.ConfigFrom = &configurationv1.ConfigSource{SecretValue: configurationv1.SecretValueFromSource{Secret: secret, Key: key}}
	}
}

func patchedFromSecret(config, path, secret, key string) func(*configurationv1.KongPlugin) {
	return func(p *configurationv1.KongPlugin) {
		p.Config = &apiextensionsv1.JSON{Raw: []byte(config)}
		p.ConfigPatches = []configurationv1.ConfigPatch{{Path: path, ValueFrom: configurationv1.ConfigSource{
			SecretValue: configurationv1.SecretValueFromSource{Secret: secret, Key: key},
		}}}
	}
}

func global(b *configurationv1alpha1.KongPluginBinding) {
	b.Spec.Scope = configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane
}

// pluginConfig is the config of the plugin in Konnect, as JSON.
func (e *env) pluginConfig(cpID, id string) string {
	ent, ok := e.entity(cpID, "plugins", id)
	if !ok {
		return "(no plugin " + id + ")"
	}
	raw, _ := json.Marshal(ent["config"])
	return string(raw)
}

// TestPluginConfigurationFromSecrets: a KongPlugin whose configuration
// comes from a Secret (configFrom), or is patched from one
// (configPatches), reaches Konnect with the Secret's values, through a
// binding and through the konghq.com/plugins annotation, from Secrets
// labelled konghq.com/secret=true (an unlabelled one is never read: see
// TestUnlabelledSecretsAreNeverRead); a change of the Secret reaches
// Konnect, and a restart with the Secret unchanged writes nothing.
func TestPluginConfigurationFromSecrets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.secret(e.ns, "cors", map[string]string{"config": "origins:\n- https://a.example\ncredentials: true\n"})
	e.secret(e.ns, "redis", map[string]string{"password": `"first-password"`})
	e.createSecretPlugin("from-secret", "cors", configFromSecret("cors", "config"))
	e.createSecretPlugin("patched", "rate-limiting", patchedFromSecret(`{"minute": 5, "redis": {"host": "redis.local"}}`, "/redis/password", "redis", "password"))
	e.createBinding("from-secret", "from-secret", global)
	e.createBinding("patched", "patched", global)
	e.createService("svc")
	e.annotate("KongService", "svc", "patched")

	ids := map[string]string{}
	wantConfigs := func(want map[string]string) func() error {
		return func() error {
			for name, fragment := range want {
				b := e.binding(name)
				if err := programmed(b); err != nil {
					return err
				}
				ids[name] = b.Status.Konnect.ID
				if got := e.pluginConfig(cpID, ids[name]); !strings.Contains(got, fragment) {
					return fmt.Errorf("binding %s: config %s lacks %s", name, got, fragment)
				}
			}
			return nil
		}
	}
	var managed string
	e.eventually("the annotation's binding exists", func() error {
		list, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, b := range list.Items {
			if b.Spec.Targets != nil && b.Spec.Targets.ServiceRef != nil {
				managed = b.Name
				return nil
			}
		}
		return fmt.Errorf("none among %d bindings", len(list.Items))
	})
	e.eventually("the Secrets' values reach Konnect", wantConfigs(map[string]string{
		"from-secret": `"origins":["https://a.example"]`,
		"patched":     `"redis":{"host":"redis.local","password":"first-password"}`,
		managed:       `"redis":{"host":"redis.local","password":"first-password"}`,
	}))
	if got := e.pluginConfig(cpID, ids["from-secret"]); !strings.Contains(got, `"credentials":true`) {
		t.Errorf("the YAML configuration reached Konnect as %s", got)
	}

	e.updateSecret(e.ns, "cors", map[string]string{"config": `{"origins": ["https://b.example"]}`})
	e.updateSecret(e.ns, "redis", map[string]string{"password": `"second-password"`})
	e.eventually("a change of the Secrets reaches Konnect", wantConfigs(map[string]string{
		"from-secret": `"origins":["https://b.example"]`,
		"patched":     `"password":"second-password"`,
		managed:       `"password":"second-password"`,
	}))

	e.settle()
	writes := e.calls("PUT", "plugins") + e.calls("POST", "plugins")
	e.stopOperator()
	e.startOperator()
	e.stays("a restart with the Secrets unchanged writes nothing", func() error {
		if n := e.calls("PUT", "plugins") + e.calls("POST", "plugins"); n != writes {
			return fmt.Errorf("%d plugin writes after the restart", n-writes)
		}
		return nil
	})
}

// TestPluginSecretProblemsAreReportedWithoutValues: a Secret that is
// missing, lacks the key, or holds what does not parse makes the binding
// PluginRefValid=False with a message (and a Warning) naming the Secret and
// key, and nothing reaches Konnect; no value from a Secret appears in a
// condition, an Event or a log line; once the Secret is fixed the plugin
// is created.
func TestPluginSecretProblemsAreReportedWithoutValues(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{bufferLogs: true})
	cpID := e.ready()
	const marker = "do-not-show-this"
	e.secret(e.ns, "values", map[string]string{
		"unquoted": marker,                        // a patch value must be JSON
		"list":     `["` + marker + `"]`,          // a whole configuration must be an object
		"broken":   "{" + marker + ": [\n  - x\n", // neither JSON nor YAML
	})
	// A Secret that is not there yet is waited for; the others need a
	// change.
	const waits, refused = commonv1alpha1.ReasonWaitingForReferences, commonv1alpha1.ReasonConditionWithStatusFalseExists
	cases := []struct{ binding, message, programmed string }{
		{"missing-secret", `configFrom: Secret ` + e.ns + `/absent not found`, waits},
		{"missing-key", `configFrom: Secret ` + e.ns + `/values has no data key "nope"`, refused},
		{"not-an-object", `configFrom: the data key "list" of Secret ` + e.ns + `/values is not a JSON (or YAML) object`, refused},
		{"does-not-parse", `configFrom: the data key "broken" of Secret ` + e.ns + `/values is neither JSON nor YAML`, refused},
		{"unquoted-patch", `configPatches[0]: the data key "unquoted" of Secret ` + e.ns + `/values is not a JSON value`, refused},
	}
	e.createSecretPlugin("missing-secret", "rate-limiting", configFromSecret("absent", "config"))
	e.createSecretPlugin("missing-key", "rate-limiting", configFromSecret("values", "nope"))
	e.createSecretPlugin("not-an-object", "rate-limiting", configFromSecret("values", "list"))
	e.createSecretPlugin("does-not-parse", "rate-limiting", configFromSecret("values", "broken"))
	e.createSecretPlugin("unquoted-patch", "rate-limiting", patchedFromSecret(`{"minute": 1}`, "/error_message", "values", "unquoted"))
	for _, tc := range cases {
		e.createBinding(tc.binding, tc.binding, global)
	}
	for _, tc := range cases {
		e.eventually(tc.binding+" reports its Secret", func() error {
			b := e.binding(tc.binding)
			if err := conditionIs(b, commonv1alpha1.ConditionPluginRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
				return err
			}
			if msg := conditionMessage(b, commonv1alpha1.ConditionPluginRefValid); !strings.Contains(msg, tc.message) {
				return fmt.Errorf("message %q, want %q", msg, tc.message)
			}
			return conditionIs(b, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, tc.programmed)
		})
		e.eventuallyEvent("KongPluginBinding", tc.binding, "Warning", "ReferencesNotReady")
	}
	if n := len(e.entities(cpID, "plugins")); n != 0 {
		t.Fatalf("%d plugins in Konnect, none of whose configuration could be read", n)
	}

	// Fixing the Secret (it appears) creates the plugin at once.
	e.secret(e.ns, "absent", map[string]string{"config": `{"minute": 3, "error_message": "` + marker + `"}`})
	e.eventually("the plugin is created once its Secret exists", func() error {
		b := e.binding("missing-secret")
		if err := programmed(b); err != nil {
			return err
		}
		if got := e.pluginConfig(cpID, b.Status.Konnect.ID); !strings.Contains(got, marker) {
			return fmt.Errorf("config %s", got)
		}
		return nil
	})

	for _, tc := range cases {
		b := e.binding(tc.binding)
		for _, c := range b.Status.Conditions {
			if strings.Contains(c.Message, marker) {
				t.Errorf("binding %s: condition %s carries a value from a Secret: %q", tc.binding, c.Type, c.Message)
			}
		}
		for _, ev := range e.events("KongPluginBinding", tc.binding) {
			if strings.Contains(ev.Message, marker) {
				t.Errorf("binding %s: Event %s carries a value from a Secret: %q", tc.binding, ev.Reason, ev.Message)
			}
		}
	}
	logs := e.logs()
	if !strings.Contains(logs, "unquoted-patch") {
		t.Error("no log line names the bindings: the check of the logs below would prove nothing")
	}
	if strings.Contains(logs, marker) {
		for _, line := range strings.Split(logs, "\n") {
			if strings.Contains(line, marker) {
				t.Errorf("a log line carries a value from a Secret: %s", line)
			}
		}
	}
	if c := meta.FindStatusCondition(e.binding("missing-secret").Status.Conditions, commonv1alpha1.ConditionPluginRefValid); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("PluginRefValid %+v once the Secret exists", c)
	}
}
