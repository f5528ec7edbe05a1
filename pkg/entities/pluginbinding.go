package entities

import (
	"context"
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type (
	kongPluginBinding = *configurationv1alpha1.KongPluginBinding
	kongPlugin        = *configurationv1.KongPlugin
	kongClusterPlugin = *configurationv1.KongClusterPlugin
)

// ConditionTargetRefsValid says whether every target of a KongPluginBinding
// exists in Konnect.
const ConditionTargetRefsValid = "TargetRefsValid"

// PluginBindingAdapter reconciles KongPluginBindings into Konnect plugins:
// the configuration of a KongPlugin (or KongClusterPlugin) attached to its
// targets, or to the whole control plane.
type PluginBindingAdapter struct {
	Refs           *Refs
	Plugins        *controller.Informer[kongPlugin]
	ClusterPlugins *controller.Informer[kongClusterPlugin]
	Services       *controller.Informer[kongService]
	Routes         *controller.Informer[kongRoute]
	Consumers      *controller.Informer[kongConsumer]
	ConsumerGroups *controller.Informer[kongConsumerGroup]
}

var _ controller.DependentAdapter[kongPluginBinding, konnect.Plugin] = (*PluginBindingAdapter)(nil)

// GroupVersionKind implements controller.Adapter.
func (a *PluginBindingAdapter) GroupVersionKind() schema.GroupVersionKind {
	return gvk(configurationv1alpha1.GroupVersion, "KongPluginBinding")
}

// Managed implements controller.Adapter.
func (a *PluginBindingAdapter) Managed(pb kongPluginBinding) bool {
	return pb.Spec.ControlPlaneRef.IsKonnect()
}

// ConditionTypes implements controller.Adapter.
func (a *PluginBindingAdapter) ConditionTypes() []string {
	return append([]string{commonv1alpha1.ConditionPluginRefValid, ConditionTargetRefsValid}, controlPlaneConditionTypes...)
}

// pluginTemplate is what a binding takes from its KongPlugin or
// KongClusterPlugin.
type pluginTemplate struct {
	object       metav1.Object
	name         string
	config       *apiextensionsv1.JSON
	disabled     bool
	instanceName string
	protocols    []configurationv1.KongProtocol
}

func isClusterPluginRef(pb kongPluginBinding) bool {
	return pb.Spec.PluginRef.Kind != nil && *pb.Spec.PluginRef.Kind == configurationv1alpha1.PluginRefKindKongClusterPlugin
}

// plugin resolves the binding's pluginRef and sets PluginRefValid.
func (a *PluginBindingAdapter) plugin(b *resolver, pb kongPluginBinding) *pluginTemplate {
	ref := pb.Spec.PluginRef
	if isClusterPluginRef(pb) {
		p, err := a.ClusterPlugins.Get("", ref.Name)
		if err != nil {
			b.invalid(commonv1alpha1.ConditionPluginRefValid, commonv1alpha1.ReasonInvalid, "KongClusterPlugin %s not found", ref.Name)
			return nil
		}
		b.valid(commonv1alpha1.ConditionPluginRefValid, "")
		return &pluginTemplate{object: p, name: p.PluginName, config: p.Config, disabled: p.Disabled, instanceName: p.InstanceName, protocols: p.Protocols}
	}
	namespace := namespaceOr(ref.Namespace, pb.Namespace)
	from := referrerOf(a.GroupVersionKind(), pb)
	if namespace != pb.Namespace && !b.forDelete() &&
		!a.Refs.permitted(from, groupConfiguration, "KongPlugin", namespace, ref.Name) {
		b.invalid(commonv1alpha1.ConditionPluginRefValid, commonv1alpha1.ReasonRefNotPermitted,
			"no KongReferenceGrant allows the reference to %s", grantFor(from, groupConfiguration, "KongPlugin", namespace, ref.Name))
		return nil
	}
	p, err := a.Plugins.Get(namespace, ref.Name)
	if err != nil {
		b.invalid(commonv1alpha1.ConditionPluginRefValid, commonv1alpha1.ReasonInvalid, "KongPlugin %s/%s not found", namespace, ref.Name)
		return nil
	}
	b.valid(commonv1alpha1.ConditionPluginRefValid, "")
	return &pluginTemplate{object: p, name: p.PluginName, config: p.Config, disabled: p.Disabled, instanceName: p.InstanceName, protocols: p.Protocols}
}

// targetIDs are the Konnect IDs of a binding's targets.
type targetIDs struct {
	service, route, consumer, consumerGroup string
}

// targets resolves the binding's targets, all in its own namespace, and
// sets TargetRefsValid when it has any.
func (a *PluginBindingAdapter) targets(b *resolver, pb kongPluginBinding) (targetIDs, bool) {
	var ids targetIDs
	t := pb.Spec.Targets
	if t == nil || (t.ServiceRef == nil && t.RouteRef == nil && t.ConsumerRef == nil && t.ConsumerGroupRef == nil) {
		return ids, true
	}
	// Targets are checked without conditions of their own and reported
	// together under TargetRefsValid.
	sub := newResolver(b.purpose)
	if ref := t.ServiceRef; ref != nil {
		if ref.Kind != "KongService" {
			sub.invalid(ConditionTargetRefsValid, commonv1alpha1.ReasonInvalid, "serviceRef of kind %s is not supported with Konnect; use a KongService", ref.Kind)
		} else {
			_, ids.service = parent(sub, a.Services, ConditionTargetRefsValid, "KongService", pb.Namespace, ref.Name)
		}
	}
	if ref := t.RouteRef; ref != nil {
		if ref.Kind != "KongRoute" {
			sub.invalid(ConditionTargetRefsValid, commonv1alpha1.ReasonInvalid, "routeRef of kind %s is not supported with Konnect; use a KongRoute", ref.Kind)
		} else {
			_, ids.route = parent(sub, a.Routes, ConditionTargetRefsValid, "KongRoute", pb.Namespace, ref.Name)
		}
	}
	if ref := t.ConsumerRef; ref != nil {
		_, ids.consumer = parent(sub, a.Consumers, ConditionTargetRefsValid, "KongConsumer", pb.Namespace, ref.Name)
	}
	if ref := t.ConsumerGroupRef; ref != nil {
		_, ids.consumerGroup = parent(sub, a.ConsumerGroups, ConditionTargetRefsValid, "KongConsumerGroup", pb.Namespace, ref.Name)
	}
	if sub.res.Gone {
		// Konnect deletes a plugin with any of its targets.
		b.gone()
		return ids, false
	}
	if b.forDelete() {
		return ids, true
	}
	if !sub.res.Ready {
		b.invalid(ConditionTargetRefsValid, commonv1alpha1.ReasonInvalid, "%s", falseMessages(sub.res.Conditions))
		return ids, false
	}
	b.valid(ConditionTargetRefsValid, "")
	return ids, true
}

// Resolve implements controller.Adapter.
func (a *PluginBindingAdapter) Resolve(_ context.Context, pb kongPluginBinding, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	a.Refs.placeUnderControlPlane(b, referrerOf(a.GroupVersionKind(), pb), pb.Spec.ControlPlaneRef, pb.ControlPlaneStatus(true))
	if purpose == controller.ForSync {
		a.plugin(b, pb)
	}
	if !b.res.Gone {
		a.targets(b, pb)
	}
	return b.done(), nil
}

// Desired implements controller.Adapter. The tags are the binding's own
// identity tags and the konghq.com/tags annotations of the plugin and of
// the binding; the binding's spec.tags are not sent.
func (a *PluginBindingAdapter) Desired(_ context.Context, pb kongPluginBinding, _ controller.Placement) (konnect.Plugin, error) {
	b := newResolver(controller.ForSync)
	tmpl := a.plugin(b, pb)
	ids, ok := a.targets(b, pb)
	if tmpl == nil || !ok {
		return konnect.Plugin{}, fmt.Errorf("references changed while reconciling: %s", falseMessages(b.res.Conditions))
	}
	config := map[string]any{}
	if tmpl.config != nil && len(tmpl.config.Raw) > 0 {
		if err := json.Unmarshal(tmpl.config.Raw, &config); err != nil {
			return konnect.Plugin{}, fmt.Errorf("the config of plugin %s is not a JSON object: %w", tmpl.object.GetName(), err)
		}
	}
	enabled := !tmpl.disabled
	desired := konnect.Plugin{
		Name:            tmpl.name,
		InstanceName:    tmpl.instanceName,
		Config:          config,
		Enabled:         &enabled,
		Tags:            controller.Tags(pb, a.GroupVersionKind(), nil, tmpl.object, pb),
		ServiceID:       ids.service,
		RouteID:         ids.route,
		ConsumerID:      ids.consumer,
		ConsumerGroupID: ids.consumerGroup,
	}
	for _, p := range tmpl.protocols {
		desired.Protocols = append(desired.Protocols, string(p))
	}
	return desired, nil
}

// Create implements controller.Adapter.
func (a *PluginBindingAdapter) Create(ctx context.Context, c *konnect.Client, _ kongPluginBinding, p controller.Placement, desired konnect.Plugin) (string, error) {
	created, err := c.CreatePlugin(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *PluginBindingAdapter) Update(ctx context.Context, c *konnect.Client, _ kongPluginBinding, p controller.Placement, id string, desired konnect.Plugin) error {
	_, err := c.UpsertPlugin(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter.
func (a *PluginBindingAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongPluginBinding, p controller.Placement, id string) error {
	return c.DeletePlugin(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *PluginBindingAdapter) FindByUID(ctx context.Context, c *konnect.Client, pb kongPluginBinding, p controller.Placement) (string, error) {
	found, err := c.ListPlugins(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(pb)}})
	return firstID(found, func(p konnect.Plugin) string { return p.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *PluginBindingAdapter) Dependencies() []controller.Dependency[kongPluginBinding] {
	target := func(kind string) func(kongPluginBinding) []string {
		return func(pb kongPluginBinding) []string { return targetKeys(pb, kind) }
	}
	return []controller.Dependency[kongPluginBinding]{
		controlPlaneDependency(a.Refs, func(pb kongPluginBinding) []string {
			return controlPlaneKeys(pb.Spec.ControlPlaneRef, pb.Namespace)
		}),
		{Name: "plugin", Source: a.Plugins, Keys: func(pb kongPluginBinding) []string {
			if isClusterPluginRef(pb) {
				return nil
			}
			return []string{key(namespaceOr(pb.Spec.PluginRef.Namespace, pb.Namespace), pb.Spec.PluginRef.Name)}
		}},
		{Name: "clusterPlugin", Source: a.ClusterPlugins, Keys: func(pb kongPluginBinding) []string {
			if !isClusterPluginRef(pb) {
				return nil
			}
			return []string{pb.Spec.PluginRef.Name}
		}},
		{Name: "service", Source: a.Services, Keys: target("KongService")},
		{Name: "route", Source: a.Routes, Keys: target("KongRoute")},
		{Name: "consumer", Source: a.Consumers, Keys: target("KongConsumer")},
		{Name: "consumerGroup", Source: a.ConsumerGroups, Keys: target("KongConsumerGroup")},
		grantDependency(a.Refs, func(pb kongPluginBinding) []string {
			pluginNamespace := ""
			if !isClusterPluginRef(pb) {
				pluginNamespace = namespaceOr(pb.Spec.PluginRef.Namespace, pb.Namespace)
			}
			return otherNamespaces(pb.Namespace, pluginNamespace, controlPlaneNamespace(pb.Spec.ControlPlaneRef, pb.Namespace))
		}),
	}
}

// targetKeys returns the key of the object of the given kind (KongService,
// KongRoute, KongConsumer or KongConsumerGroup) that pb targets, if any.
func targetKeys(pb kongPluginBinding, kind string) []string {
	t := pb.Spec.Targets
	if t == nil {
		return nil
	}
	name := ""
	switch {
	case kind == "KongService" && t.ServiceRef != nil && t.ServiceRef.Kind == kind:
		name = t.ServiceRef.Name
	case kind == "KongRoute" && t.RouteRef != nil && t.RouteRef.Kind == kind:
		name = t.RouteRef.Name
	case kind == "KongConsumer" && t.ConsumerRef != nil:
		name = t.ConsumerRef.Name
	case kind == "KongConsumerGroup" && t.ConsumerGroupRef != nil:
		name = t.ConsumerGroupRef.Name
	}
	if name == "" {
		return nil
	}
	return []string{key(pb.Namespace, name)}
}

// falseMessages joins the messages of the False conditions.
func falseMessages(conditions []metav1.Condition) string {
	msg := ""
	for _, c := range conditions {
		if c.Status != metav1.ConditionFalse {
			continue
		}
		if msg != "" {
			msg += "; "
		}
		msg += c.Message
	}
	return msg
}
