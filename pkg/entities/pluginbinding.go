package entities

import (
	"errors"
	"fmt"
	"slices"

	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

type (
	kongPluginBinding = *configurationv1alpha1.KongPluginBinding
	kongPlugin        = *configurationv1.KongPlugin
	kongClusterPlugin = *configurationv1.KongClusterPlugin
)

// ConditionTargetRefsValid says whether every target of a KongPluginBinding
// exists in Konnect.
const ConditionTargetRefsValid = "TargetRefsValid"

var pluginBindingGVK = configurationGVK("KongPluginBinding")

// PluginBindingSources are the objects KongPluginBindings refer to: the
// plugins whose configuration they bind and the entities they bind it to.
type PluginBindingSources struct {
	Plugins        *controller.Informer[kongPlugin]
	ClusterPlugins *controller.Informer[kongClusterPlugin]
	Services       *controller.Informer[kongService]
	Routes         *controller.Informer[kongRoute]
	Consumers      *controller.Informer[kongConsumer]
	ConsumerGroups *controller.Informer[kongConsumerGroup]
}

// PluginBindingKind describes KongPluginBindings: Konnect plugins made from
// the configuration of a KongPlugin (or KongClusterPlugin) and attached to
// their targets — any combination of a service, a route, a consumer and a
// consumer group — or to the whole control plane.
func PluginBindingKind(refs *Refs, src PluginBindingSources) controller.Kind[kongPluginBinding, components.Plugin] {
	placed := underControlPlane(refs, pluginBindingGVK, func(pb kongPluginBinding) *cpRef { return pb.Spec.ControlPlaneRef }).
		with(reference[kongPluginBinding]{
			conditions: []string{commonv1alpha1.ConditionPluginRefValid, ConditionTargetRefsValid},
			resolve: func(b *resolver, pb kongPluginBinding) {
				if !b.forDelete() {
					src.plugin(b, refs, pb)
				}
				if !b.res.Gone {
					src.targets(b, pb)
				}
			},
			dependencies: src.dependencies(refs),
			namespaces:   func(pb kongPluginBinding) []string { return []string{pluginNamespace(pb)} },
		})
	return core[kongPluginBinding, components.Plugin, components.Plugin]{
		gvk:    pluginBindingGVK,
		placed: placed,
		calls:  pluginCalls,
		desired: func(pb kongPluginBinding, p controller.Placement) (components.Plugin, error) {
			return src.body(refs, pb, p.Cluster)
		},
		adopt:   func(pb kongPluginBinding) *adoptOptions { return pb.Spec.Adopt },
		matches: pluginMatches,
		// A plugin without an instance name is unique by its name and
		// targets, which no path names: its conflict names no entity in the way.
		uniqueKey: func(body components.Plugin) string { return deref(body.InstanceName) },
	}.kind()
}

// pluginTemplate is what a binding takes from its KongPlugin or
// KongClusterPlugin.
type pluginTemplate struct {
	object metav1.Object
	name   string
	// config is the configuration, with the values read from Secrets.
	config       map[string]any
	disabled     bool
	instanceName string
	protocols    []configurationv1.KongProtocol
	tags         []string
}

// template reads what a binding takes from a KongPlugin or a
// KongClusterPlugin (describing it as what), its configuration from the
// Secrets it names included, and sets PluginRefValid: a configuration
// that cannot be read makes the plugin unusable, and nothing is written
// rather than a plugin without it. (PluginRefValid rather than a
// SecretRefValid of its own: a binding may already carry the eight
// conditions its CRD allows.)
func (r *Refs) template(b *resolver, what string, tmpl pluginTemplate, inline *apiextensionsv1.JSON, secrets []pluginSecretValue) *pluginTemplate {
	config, err := r.pluginConfig(b.ctx, inline, secrets)
	var refused *pluginSecretRefusedError
	switch {
	case errors.As(err, &refused):
		b.refuse(commonv1alpha1.ConditionPluginRefValid, commonv1alpha1.ReasonRefNotPermitted, "%s: %v", what, err)
		return nil
	case err != nil && secretAbsent(err):
		b.invalid(commonv1alpha1.ConditionPluginRefValid, commonv1alpha1.ReasonInvalid, "%s: %v", what, err)
		return nil
	case err != nil:
		// A configuration that does not parse, or a Secret without the
		// data it names: only a change helps.
		b.refuse(commonv1alpha1.ConditionPluginRefValid, commonv1alpha1.ReasonInvalid, "%s: %v", what, err)
		return nil
	}
	b.valid(commonv1alpha1.ConditionPluginRefValid, "")
	tmpl.config = config
	return &tmpl
}

// IsClusterPluginRef reports whether pb applies a KongClusterPlugin
// rather than a KongPlugin.
func IsClusterPluginRef(pb kongPluginBinding) bool {
	return pb.Spec.PluginRef.Kind != nil && *pb.Spec.PluginRef.Kind == configurationv1alpha1.PluginRefKindKongClusterPlugin
}

// pluginNamespace is the namespace of the binding's KongPlugin, "" for a
// KongClusterPlugin.
func pluginNamespace(pb kongPluginBinding) string {
	if IsClusterPluginRef(pb) {
		return ""
	}
	return namespaceOr(pb.Spec.PluginRef.Namespace, pb.Namespace)
}

// plugin resolves the binding's pluginRef and sets PluginRefValid.
func (src PluginBindingSources) plugin(b *resolver, refs *Refs, pb kongPluginBinding) *pluginTemplate {
	ref := pb.Spec.PluginRef
	if IsClusterPluginRef(pb) {
		p, err := src.ClusterPlugins.Get("", ref.Name)
		if err != nil {
			b.invalid(commonv1alpha1.ConditionPluginRefValid, commonv1alpha1.ReasonInvalid, "KongClusterPlugin %s not found", ref.Name)
			return nil
		}
		return refs.template(b, "KongClusterPlugin "+p.Name, pluginTemplate{
			object: p, name: p.PluginName, disabled: p.Disabled, instanceName: p.InstanceName, protocols: p.Protocols, tags: p.Tags,
		}, p.Config, refs.clusterPluginSecretsFor(p, referrerOf(pluginBindingGVK, pb)))
	}
	namespace := pluginNamespace(pb)
	from := referrerOf(pluginBindingGVK, pb)
	if namespace != pb.Namespace && !b.forDelete() &&
		!refs.permitted(from, groupConfiguration, "KongPlugin", namespace, ref.Name) {
		b.refuse(commonv1alpha1.ConditionPluginRefValid, commonv1alpha1.ReasonRefNotPermitted,
			"no KongReferenceGrant allows the reference to %s", grantFor(from, groupConfiguration, "KongPlugin", namespace, ref.Name))
		return nil
	}
	p, err := src.Plugins.Get(namespace, ref.Name)
	if err != nil {
		absent(b, src.Plugins, commonv1alpha1.ConditionPluginRefValid, describe("KongPlugin", namespace, ref.Name), namespace, ref.Name, func() {
			b.invalid(commonv1alpha1.ConditionPluginRefValid, commonv1alpha1.ReasonInvalid, "KongPlugin %s/%s not found", namespace, ref.Name)
		})
		return nil
	}
	return refs.template(b, describe("KongPlugin", p.Namespace, p.Name), pluginTemplate{
		object: p, name: p.PluginName, disabled: p.Disabled, instanceName: p.InstanceName, protocols: p.Protocols, tags: p.Tags,
	}, p.Config, kongPluginSecrets(p))
}

// targetIDs are the Konnect IDs of a binding's targets.
type targetIDs struct {
	service, route, consumer, consumerGroup string
}

// targets resolves the binding's targets, all in its own namespace, and
// sets TargetRefsValid when it has any.
func (src PluginBindingSources) targets(b *resolver, pb kongPluginBinding) (targetIDs, bool) {
	var ids targetIDs
	t := pb.Spec.Targets
	if t == nil || (t.ServiceRef == nil && t.RouteRef == nil && t.ConsumerRef == nil && t.ConsumerGroupRef == nil) {
		return ids, true
	}
	// Targets are checked without conditions of their own and reported
	// together under TargetRefsValid.
	sub := newResolver(b.ctx, b.purpose)
	if ref := t.ServiceRef; ref != nil {
		if ref.Kind != "KongService" {
			sub.refuse(ConditionTargetRefsValid, commonv1alpha1.ReasonInvalid, "serviceRef of kind %s is not supported with Konnect; use a KongService", ref.Kind)
		} else {
			_, ids.service = parent(sub, src.Services, ConditionTargetRefsValid, "KongService", pb.Namespace, ref.Name)
		}
	}
	if ref := t.RouteRef; ref != nil {
		if ref.Kind != "KongRoute" {
			sub.refuse(ConditionTargetRefsValid, commonv1alpha1.ReasonInvalid, "routeRef of kind %s is not supported with Konnect; use a KongRoute", ref.Kind)
		} else {
			_, ids.route = parent(sub, src.Routes, ConditionTargetRefsValid, "KongRoute", pb.Namespace, ref.Name)
		}
	}
	if ref := t.ConsumerRef; ref != nil {
		_, ids.consumer = parent(sub, src.Consumers, ConditionTargetRefsValid, "KongConsumer", pb.Namespace, ref.Name)
	}
	if ref := t.ConsumerGroupRef; ref != nil {
		_, ids.consumerGroup = parent(sub, src.ConsumerGroups, ConditionTargetRefsValid, "KongConsumerGroup", pb.Namespace, ref.Name)
	}
	if b.err == nil {
		b.err = sub.err
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
		b.summarize(ConditionTargetRefsValid, commonv1alpha1.ReasonInvalid, sub)
		return ids, false
	}
	b.valid(ConditionTargetRefsValid, "")
	return ids, true
}

// dependencies reconcile a binding again when its plugin, a Secret its
// plugin reads, one of its targets, or a grant in its plugin's namespace
// changes.
func (src PluginBindingSources) dependencies(refs *Refs) []controller.Dependency[kongPluginBinding] {
	target := func(kind string) func(kongPluginBinding) []string {
		return func(pb kongPluginBinding) []string { return TargetKeys(pb, kind) }
	}
	return []controller.Dependency[kongPluginBinding]{
		// Bindings are indexed under their plugin's key; a Secret maps to
		// the plugins that read it now, so that a plugin starting or
		// stopping to read one needs no index of the bindings to change.
		{Name: "pluginSecrets", Source: controller.SourceOf[*corev1.Secret]{Informer: refs.Secrets, Keys: src.pluginsReading}, Keys: bindingPluginKey},
		// A grant in a namespace whose Secrets a KongClusterPlugin reads
		// decides which bindings may apply it.
		{Name: "clusterPluginSecretGrants", Source: controller.SourceOf[*configurationv1alpha1.KongReferenceGrant]{
			Informer: refs.Grants, Keys: src.clusterPluginsReadingIn,
		}, Keys: bindingPluginKey},
		{Name: "plugin", Source: src.Plugins, Keys: func(pb kongPluginBinding) []string {
			if IsClusterPluginRef(pb) {
				return nil
			}
			return []string{key(pluginNamespace(pb), pb.Spec.PluginRef.Name)}
		}},
		{Name: "clusterPlugin", Source: src.ClusterPlugins, Keys: func(pb kongPluginBinding) []string {
			if !IsClusterPluginRef(pb) {
				return nil
			}
			return []string{pb.Spec.PluginRef.Name}
		}},
		{Name: "service", Source: src.Services, Keys: target("KongService")},
		{Name: "route", Source: src.Routes, Keys: target("KongRoute")},
		{Name: "consumer", Source: src.Consumers, Keys: target("KongConsumer")},
		{Name: "consumerGroup", Source: src.ConsumerGroups, Keys: target("KongConsumerGroup")},
	}
}

// bindingPluginKey is the key of the binding's KongPlugin, or the name of
// its KongClusterPlugin.
func bindingPluginKey(pb kongPluginBinding) []string {
	if IsClusterPluginRef(pb) {
		return []string{pb.Spec.PluginRef.Name}
	}
	return []string{key(pluginNamespace(pb), pb.Spec.PluginRef.Name)}
}

// pluginsReading returns the keys of the KongPlugins (namespace/name) and
// KongClusterPlugins (name) whose configuration reads the Secret. It scans
// the plugins of the Secret's namespace and the cluster plugins, which are
// few next to the Secrets whose changes call it.
func (src PluginBindingSources) pluginsReading(secret *corev1.Secret) []string {
	var keys []string
	plugins, err := src.Plugins.ByIndex(cache.NamespaceIndex, secret.Namespace)
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("finding the KongPlugins that read %s %s/%s: %w", kindSecret, secret.Namespace, secret.Name, err))
	}
	for _, p := range plugins {
		if readsSecret(kongPluginSecrets(p), secret) {
			keys = append(keys, key(p.Namespace, p.Name))
		}
	}
	for _, p := range src.ClusterPlugins.List() {
		if readsSecret(clusterPluginSecrets(p), secret) {
			keys = append(keys, p.Name)
		}
	}
	return keys
}

// clusterPluginsReadingIn returns the names of the KongClusterPlugins that
// read Secrets of the grant's namespace.
func (src PluginBindingSources) clusterPluginsReadingIn(grant *configurationv1alpha1.KongReferenceGrant) []string {
	var names []string
	for _, p := range src.ClusterPlugins.List() {
		if slices.ContainsFunc(clusterPluginSecrets(p), func(v pluginSecretValue) bool { return v.namespace == grant.Namespace }) {
			names = append(names, p.Name)
		}
	}
	return names
}

// TargetKeys returns the key of the object of the given kind (KongService,
// KongRoute, KongConsumer or KongConsumerGroup) that pb targets, if any.
func TargetKeys(pb kongPluginBinding, kind string) []string {
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
