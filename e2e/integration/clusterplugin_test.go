package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// createClusterPlugin creates a KongClusterPlugin, cluster-scoped and so
// named after the test's namespace, and deletes it at the end.
func (e *env) createClusterPlugin(name string, mutate func(*configurationv1.KongClusterPlugin)) {
	e.t.Helper()
	p := &configurationv1.KongClusterPlugin{ObjectMeta: metav1.ObjectMeta{Name: name}, PluginName: "rate-limiting"}
	mutate(p)
	if _, err := e.cs.ConfigurationV1().KongClusterPlugins().Create(e.ctx, p, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		err := e.cs.ConfigurationV1().KongClusterPlugins().Delete(context.WithoutCancel(e.ctx), name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			e.t.Error(err)
		}
	})
}

func clusterPluginRef(name string) func(*configurationv1alpha1.KongPluginBinding) {
	return func(b *configurationv1alpha1.KongPluginBinding) {
		kind := configurationv1alpha1.PluginRefKindKongClusterPlugin
		b.Spec.PluginRef = configurationv1alpha1.PluginRef{Kind: &kind, Name: name}
		b.Spec.Scope = configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane
	}
}

func TestBindingOfAKongClusterPlugin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	name := e.ns + "-limits"
	// A KongPlugin of the same name must not be taken instead.
	e.createPlugin(name, "cors", `{}`)
	e.createBinding("cluster", name, clusterPluginRef(name))

	e.eventually("the missing KongClusterPlugin is reported", func() error {
		b := e.binding("cluster")
		if err := conditionIs(b, commonv1alpha1.ConditionPluginRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
			return err
		}
		if msg := meta.FindStatusCondition(b.Status.Conditions, commonv1alpha1.ConditionPluginRefValid).Message; !strings.Contains(msg, "KongClusterPlugin "+name) {
			return fmt.Errorf("message %q does not name the KongClusterPlugin", msg)
		}
		return conditionIs(b, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonWaitingForReferences)
	})
	if n := len(e.entities(cpID, "plugins")); n != 0 {
		t.Fatalf("%d plugins in Konnect while the KongClusterPlugin was missing", n)
	}

	e.createClusterPlugin(name, func(p *configurationv1.KongClusterPlugin) {
		p.Config = &apiextensionsv1.JSON{Raw: []byte(`{"minute": 3}`)}
		p.Disabled = true
		p.InstanceName = e.ns + "-instance"
		p.Protocols = []configurationv1.KongProtocol{"https"}
		p.Annotations = map[string]string{commonv1alpha1.AnnotationTags: "from-cluster-plugin"}
	})
	var id string
	e.eventually("binding Programmed once the KongClusterPlugin exists", func() error {
		b := e.binding("cluster")
		id = b.KonnectStatus(false).GetKonnectID()
		if err := conditionIs(b, commonv1alpha1.ConditionPluginRefValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid); err != nil {
			return err
		}
		return programmed(b)
	})
	ent, ok := e.entity(cpID, "plugins", id)
	if !ok {
		t.Fatalf("plugin %s not in Konnect", id)
	}
	config, _ := ent["config"].(map[string]any)
	switch {
	case ent["name"] != "rate-limiting":
		t.Errorf("name %v, want the KongClusterPlugin's plugin", ent["name"])
	case fmt.Sprint(config["minute"]) != "3":
		t.Errorf("config %v", config)
	case ent["enabled"] != false:
		t.Errorf("enabled %v, want false for a disabled plugin", ent["enabled"])
	case ent["instance_name"] != e.ns+"-instance":
		t.Errorf("instance_name %v", ent["instance_name"])
	case fmt.Sprint(ent["protocols"]) != "[https]":
		t.Errorf("protocols %v", ent["protocols"])
	case !slices.Contains(tagsOf(ent), "from-cluster-plugin"):
		t.Errorf("tags %v lack the KongClusterPlugin's annotation tag", tagsOf(ent))
	}

	// A change of the KongClusterPlugin reaches the plugin.
	p, err := e.cs.ConfigurationV1().KongClusterPlugins().Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Config.Raw, p.Disabled = []byte(`{"minute": 9}`), false
	if _, err := e.cs.ConfigurationV1().KongClusterPlugins().Update(e.ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("the KongClusterPlugin's change reaches Konnect", func() error {
		ent, _ := e.entity(cpID, "plugins", id)
		config, _ := ent["config"].(map[string]any)
		if fmt.Sprint(config["minute"]) != "9" || ent["enabled"] != true {
			return fmt.Errorf("config %v, enabled %v", config, ent["enabled"])
		}
		return nil
	})
}
