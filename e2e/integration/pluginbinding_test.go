package integration

import (
	"fmt"

	"github.com/Kong/sdk-konnect-go/models/components"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// KongPluginBindings through the shared per-kind harness
// (kindcase_test.go). Konnect takes one plugin of a name per service, so
// each binding targets a service of its own ("t-" and its name); the
// change binds another KongPlugin, of another configuration. The targets
// a binding may have are tested in kinds_test.go.

type pluginBindingObj = *configurationv1alpha1.KongPluginBinding

// serviceFor creates the service a binding named name targets, once.
func (e *env) serviceFor(name string) string {
	e.t.Helper()
	service := "t-" + name
	if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, service, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		e.createService(service)
	}
	return service
}

// minuteOf is the minute setting of a rate-limiting plugin.
func minuteOf(ent map[string]any) string {
	config, _ := ent["config"].(map[string]any)
	return fmt.Sprint(config["minute"])
}

var pluginBindings = kindCase[pluginBindingObj]{
	kind: "KongPluginBinding", collection: "plugins", path: "core-entities/plugins",
	client: func(e *env) objectClient[pluginBindingObj] {
		return e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns)
	},
	setup: func(e *env) {
		e.createPlugin("rate", "rate-limiting", `{"minute": 5}`)
		e.createPlugin("rate-7", "rate-limiting", `{"minute": 7}`)
	},
	object: func(e *env, name string) pluginBindingObj {
		return &configurationv1alpha1.KongPluginBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: configurationv1alpha1.KongPluginBindingSpec{
				PluginRef:       configurationv1alpha1.PluginRef{Name: "rate"},
				ControlPlaneRef: cpRef("cp"),
				Targets: &configurationv1alpha1.KongPluginBindingTargets{
					ServiceRef: &configurationv1alpha1.TargetRefWithGroupKind{Name: e.serviceFor(name), Kind: "KongService", Group: "configuration.konghq.com"},
				},
			},
		}
	},
	setControlPlane: func(b pluginBindingObj, ref *commonv1alpha1.ControlPlaneRef) { b.Spec.ControlPlaneRef = ref },
	change:          func(b pluginBindingObj) { b.Spec.PluginRef.Name = "rate-7" },
	changed: func(ent map[string]any) error {
		if got := minuteOf(ent); got != "7" {
			return fmt.Errorf("config minute = %s, want 7", got)
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["config"].(map[string]any)["minute"] = 9
		e.reput(cpID, "plugins", ent)
	},
	adopt: func(b pluginBindingObj, opts *commonv1alpha1.AdoptOptions) { b.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		minute := 5
		if !matching {
			minute = 6
		}
		serviceID := e.ensureService(e.serviceFor(name))
		p, err := e.konnect().Plugins.CreatePlugin(e.ctx, cpID, components.Plugin{
			Name: "rate-limiting", Config: map[string]any{"minute": minute}, Service: &components.PluginService{ID: &serviceID},
		})
		if err != nil {
			e.t.Fatal(err)
		}
		return *p.GetPlugin().ID
	},
	differs: "config",
}

// The bindings are walked with services and routes (TestServiceKinds).
