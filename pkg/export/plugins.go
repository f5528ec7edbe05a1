package export

import (
	"encoding/json"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// plugins writes each plugin as a KongPlugin (its configuration) and a
// KongPluginBinding of the same name (where it applies, adopting it). Its
// tags go into the binding's konghq.com/tags annotation, which is what the
// operator sends (a binding's spec.tags are not).
func (b *builder) plugins(c entities.Contents) error {
	for _, p := range sortedByID(c.Plugins, func(p *components.Plugin) *string { return p.ID }) {
		id := deref(p.ID)
		targets, ok := b.pluginTargets(p, id)
		if !ok {
			continue
		}
		name := b.names.name("KongPlugin", deref(p.InstanceName), p.Name, id)
		plugin := &configurationv1.KongPlugin{
			TypeMeta:     typeMeta(configurationv1.GroupVersion, "KongPlugin"),
			ObjectMeta:   b.meta(name),
			PluginName:   p.Name,
			InstanceName: deref(p.InstanceName),
			Disabled:     p.Enabled != nil && !*p.Enabled,
		}
		for _, protocol := range p.Protocols {
			plugin.Protocols = append(plugin.Protocols, configurationv1.KongProtocol(protocol))
		}
		if config := withoutNulls(p.Config); len(config) > 0 {
			raw, err := json.Marshal(config)
			if err != nil {
				return err
			}
			plugin.Config = &apiextensionsv1.JSON{Raw: raw}
		}
		if p.Ordering != nil || len(p.Partials) > 0 || p.Condition != nil {
			b.note("KongPlugin %s: the ordering, partials or condition of plugin %s are not sent by the operator; its next write of the plugin clears them", name, id)
		}
		binding := &configurationv1alpha1.KongPluginBinding{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, "KongPluginBinding"),
			ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.KongPluginBindingSpec{
				PluginRef:       configurationv1alpha1.PluginRef{Name: name},
				ControlPlaneRef: b.controlPlaneRef(),
				Adopt:           adopt(id),
				Targets:         targets,
			},
		}
		if targets == nil {
			binding.Spec.Scope = configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane
		}
		if tags := b.userTags("plugin", id, p.Tags); len(tags) > 0 {
			binding.Annotations = map[string]string{commonv1alpha1.AnnotationTags: strings.Join(tags, ",")}
		}
		b.add(plugin, "KongPlugin", "", name)
		b.add(binding, "KongPluginBinding", id, name)
	}
	return nil
}

// pluginTargets refers to what a plugin applies to, nil for a global
// plugin; ok is false when one of them is not exported.
func (b *builder) pluginTargets(p components.Plugin, id string) (*configurationv1alpha1.KongPluginBindingTargets, bool) {
	var targets configurationv1alpha1.KongPluginBindingTargets
	targeted := false
	ref := func(kind string, target *string) string {
		if target == nil || *target == "" {
			return ""
		}
		targeted = true
		return b.nameOf(kind, *target)
	}
	missing := ""
	if name := ref(kindService, p.GetService().GetID()); name != "" {
		targets.ServiceRef = &configurationv1alpha1.TargetRefWithGroupKind{Name: name, Kind: kindService, Group: configurationv1alpha1.GroupName}
	} else if p.GetService().GetID() != nil {
		missing = "service " + deref(p.GetService().GetID())
	}
	if name := ref(kindRoute, p.GetRoute().GetID()); name != "" {
		targets.RouteRef = &configurationv1alpha1.TargetRefWithGroupKind{Name: name, Kind: kindRoute, Group: configurationv1alpha1.GroupName}
	} else if p.GetRoute().GetID() != nil {
		missing = "route " + deref(p.GetRoute().GetID())
	}
	if name := ref(kindConsumer, p.GetConsumer().GetID()); name != "" {
		targets.ConsumerRef = &configurationv1alpha1.TargetRef{Name: name}
	} else if p.GetConsumer().GetID() != nil {
		missing = "consumer " + deref(p.GetConsumer().GetID())
	}
	if name := ref(kindConsumerGroup, p.GetConsumerGroup().GetID()); name != "" {
		targets.ConsumerGroupRef = &configurationv1alpha1.TargetRef{Name: name}
	} else if p.GetConsumerGroup().GetID() != nil {
		missing = "consumer group " + deref(p.GetConsumerGroup().GetID())
	}
	if missing != "" {
		b.skip("plugin "+p.Name, id, "it applies to "+missing+", which is not exported")
		return nil, false
	}
	if !targeted {
		return nil, true
	}
	return &targets, true
}

// withoutNulls drops the fields Konnect answers null (unset), which a
// KongPlugin need not state: the operator compares only the fields its
// config sets.
func withoutNulls(config map[string]any) map[string]any {
	out := make(map[string]any, len(config))
	for k, v := range config {
		switch value := v.(type) {
		case nil:
		case map[string]any:
			out[k] = withoutNulls(value)
		default:
			out[k] = v
		}
	}
	return out
}
