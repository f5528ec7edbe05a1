package companions

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// pluginNames returns the KongPlugin names of an object's
// konghq.com/plugins annotation: comma separated, spaces trimmed, empty
// entries skipped.
func pluginNames(obj metav1.Object) []string {
	value := obj.GetAnnotations()[commonv1alpha1.AnnotationPlugins]
	var names []string
	for _, n := range strings.Split(value, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// pluginKeys returns the keys of the KongPlugins an object's annotation
// names, all in the object's namespace.
func pluginKeys(obj metav1.Object) []string {
	names := pluginNames(obj)
	keys := make([]string, 0, len(names))
	for _, n := range names {
		keys = append(keys, key(obj.GetNamespace(), n))
	}
	return keys
}

// Kinds of objects the konghq.com/plugins annotation attaches plugins to.
type targetKind int

const (
	targetService targetKind = iota
	targetRoute
	targetConsumer
	targetConsumerGroup
)

// controlPlaneName names a KonnectGatewayControlPlane.
type controlPlaneName struct{ namespace, name string }

// annotatedTarget is a Konnect-bound object whose annotation names a
// plugin, with the control plane it lives in.
type annotatedTarget struct {
	kind targetKind
	name string
	cp   controlPlaneName
}

// managedBinding is the part of a managed KongPluginBinding the
// annotations decide: its control plane and its targets.
type managedBinding struct {
	cp                                      controlPlaneName
	service, route, consumer, consumerGroup string
}

// key identifies a binding by what it binds, so that the bindings that
// exist can be matched with those the annotations ask for.
func (m managedBinding) key() string {
	return fmt.Sprintf("%s/%s|service=%s|route=%s|consumer=%s|group=%s", m.cp.namespace, m.cp.name, m.service, m.route, m.consumer, m.consumerGroup)
}

// managedBindings returns the bindings that the annotated objects ask for,
// per control plane: consumers (or, when no consumer names the plugin,
// consumer groups) are paired with every route and service; alone, each
// gets a binding of its own; routes and services without them each get
// one (never a combined route and service).
func managedBindings(targets []annotatedTarget) []managedBinding {
	type byKind struct{ services, routes, consumers, groups []string }
	perCP := map[controlPlaneName]*byKind{}
	for _, t := range targets {
		k := perCP[t.cp]
		if k == nil {
			k = &byKind{}
			perCP[t.cp] = k
		}
		switch t.kind {
		case targetService:
			k.services = append(k.services, t.name)
		case targetRoute:
			k.routes = append(k.routes, t.name)
		case targetConsumer:
			k.consumers = append(k.consumers, t.name)
		case targetConsumerGroup:
			k.groups = append(k.groups, t.name)
		}
	}
	var out []managedBinding
	for cp, k := range perCP {
		for _, names := range [][]string{k.services, k.routes, k.consumers, k.groups} {
			slices.Sort(names)
		}
		// Each entity alone, or each paired with every consumer (group).
		pairs := func(with func(*managedBinding, string), owners []string) {
			for _, owner := range owners {
				if len(k.routes)+len(k.services) == 0 {
					b := managedBinding{cp: cp}
					with(&b, owner)
					out = append(out, b)
					continue
				}
				for _, r := range k.routes {
					b := managedBinding{cp: cp, route: r}
					with(&b, owner)
					out = append(out, b)
				}
				for _, s := range k.services {
					b := managedBinding{cp: cp, service: s}
					with(&b, owner)
					out = append(out, b)
				}
			}
		}
		switch {
		case len(k.consumers) > 0:
			pairs(func(b *managedBinding, c string) { b.consumer = c }, k.consumers)
		case len(k.groups) > 0:
			pairs(func(b *managedBinding, g string) { b.consumerGroup = g }, k.groups)
		default:
			pairs(func(*managedBinding, string) {}, []string{""})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out
}

// existingBindingKey returns the key of what an existing binding binds,
// in the terms of managedBinding.key, or false when it is not a binding of
// the plugin that the annotations could have asked for.
func existingBindingKey(b kongPluginBinding, plugin string) (string, bool) {
	spec := b.Spec
	if spec.PluginRef.Name != plugin ||
		spec.PluginRef.Kind != nil && *spec.PluginRef.Kind != configurationv1alpha1.PluginRefKindKongPlugin ||
		namespaceOr(spec.PluginRef.Namespace, b.Namespace) != b.Namespace ||
		spec.Scope == configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane ||
		!spec.ControlPlaneRef.IsKonnect() || spec.Targets == nil {
		return "", false
	}
	m := managedBinding{cp: controlPlaneName{
		namespace: namespaceOr(spec.ControlPlaneRef.KonnectNamespacedRef.Namespace, b.Namespace),
		name:      spec.ControlPlaneRef.KonnectNamespacedRef.Name,
	}}
	t := spec.Targets
	if t.ServiceRef != nil {
		if t.ServiceRef.Kind != "KongService" {
			return "", false
		}
		m.service = t.ServiceRef.Name
	}
	if t.RouteRef != nil {
		if t.RouteRef.Kind != "KongRoute" {
			return "", false
		}
		m.route = t.RouteRef.Name
	}
	if t.ConsumerRef != nil {
		m.consumer = t.ConsumerRef.Name
	}
	if t.ConsumerGroupRef != nil {
		m.consumerGroup = t.ConsumerGroupRef.Name
	}
	return m.key(), true
}

// spec returns the spec of the managed binding of a plugin in namespace.
// The control plane is named without a namespace when it is the
// binding's own, as Kong Operator writes it.
func (m managedBinding) spec(plugin, namespace string) configurationv1alpha1.KongPluginBindingSpec {
	cpRef := &commonv1alpha1.KonnectNamespacedRef{Name: m.cp.name}
	if m.cp.namespace != namespace {
		cpRef.Namespace = m.cp.namespace
	}
	spec := configurationv1alpha1.KongPluginBindingSpec{
		PluginRef:       configurationv1alpha1.PluginRef{Name: plugin},
		ControlPlaneRef: &commonv1alpha1.ControlPlaneRef{Type: commonv1alpha1.ControlPlaneRefKonnectNamespacedRef, KonnectNamespacedRef: cpRef},
		Targets:         &configurationv1alpha1.KongPluginBindingTargets{},
	}
	if m.service != "" {
		spec.Targets.ServiceRef = &configurationv1alpha1.TargetRefWithGroupKind{Name: m.service, Kind: "KongService", Group: configurationv1alpha1.GroupName}
	}
	if m.route != "" {
		spec.Targets.RouteRef = &configurationv1alpha1.TargetRefWithGroupKind{Name: m.route, Kind: "KongRoute", Group: configurationv1alpha1.GroupName}
	}
	if m.consumer != "" {
		spec.Targets.ConsumerRef = &configurationv1alpha1.TargetRef{Name: m.consumer}
	}
	if m.consumerGroup != "" {
		spec.Targets.ConsumerGroupRef = &configurationv1alpha1.TargetRef{Name: m.consumerGroup}
	}
	return spec
}
