package companions

import (
	"context"
	"errors"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// Indexes of the plugin-annotation controller.
const (
	indexByPluginAnnotation = "byPluginAnnotation" // annotated objects by the plugins they name
	indexRoutesByService    = "routesByService"    // routes by the key of their KongService
	indexBindingsByPlugin   = "bindingsByPlugin"   // bindings by the KongPlugin they use or belong to
)

var pluginGVK = schema.GroupVersionKind{Group: configurationv1.GroupVersion.Group, Version: configurationv1.GroupVersion.Version, Kind: "KongPlugin"}

// PluginAnnotationReconciler makes the KongPluginBindings that the
// konghq.com/plugins annotations of Konnect-bound KongServices, KongRoutes,
// KongConsumers and KongConsumerGroups ask for. The bindings belong to the
// KongPlugin (a controller ownerReference); those that no longer match an
// annotation are deleted, and bindings without that owner are never
// touched. It also keeps each KongPlugin with the plugin-in-use finalizer
// while a binding or an annotation uses it.
type PluginAnnotationReconciler struct {
	Plugins        *controller.Informer[kongPlugin]
	Bindings       *controller.Informer[kongPluginBinding]
	Services       *controller.Informer[kongService]
	Routes         *controller.Informer[kongRoute]
	Consumers      *controller.Informer[kongConsumer]
	ConsumerGroups *controller.Informer[kongConsumerGroup]
	PluginClients  controller.ClientGetter[kongPlugin]
	BindingClients func(namespace string) entities.ObjectWriter[kongPluginBinding]

	created *entities.Creations
}

// NewPluginAnnotationController returns the controller of plugin
// annotations. Its queue holds KongPlugins.
func NewPluginAnnotationController(r *PluginAnnotationReconciler, opts controller.Options) (*controller.Controller[kongPlugin], error) {
	r.created = entities.NewCreations()
	for _, err := range []error{
		r.Services.AddIndex(indexByPluginAnnotation, func(s kongService) []string { return pluginKeys(s) }),
		r.Routes.AddIndex(indexByPluginAnnotation, func(rt kongRoute) []string { return pluginKeys(rt) }),
		r.Consumers.AddIndex(indexByPluginAnnotation, func(c kongConsumer) []string { return pluginKeys(c) }),
		r.ConsumerGroups.AddIndex(indexByPluginAnnotation, func(g kongConsumerGroup) []string { return pluginKeys(g) }),
		r.Routes.AddIndex(indexRoutesByService, func(rt kongRoute) []string {
			if namespace, name, ok := entities.ServiceRefOf(rt); ok && len(pluginNames(rt)) > 0 {
				return []string{key(namespace, name)}
			}
			return nil
		}),
		r.Bindings.AddIndex(indexBindingsByPlugin, bindingPluginKeys),
	} {
		if err != nil {
			return nil, err
		}
	}
	c, err := controller.NewSelective("KongPluginAnnotations", r.Plugins, r.concerns, r, opts)
	if err != nil {
		return nil, err
	}
	self := func(p kongPlugin) []string { return []string{key(p.Namespace, p.Name)} }
	deps := []controller.Dependency[kongPlugin]{
		{Name: "self", Source: pluginsAnnotatedOn(r.Services), Keys: self},
		{Name: "self", Source: pluginsAnnotatedOn(r.Routes), Keys: self},
		{Name: "self", Source: pluginsAnnotatedOn(r.Consumers), Keys: self},
		{Name: "self", Source: pluginsAnnotatedOn(r.ConsumerGroups), Keys: self},
		{Name: "self", Source: pluginsNamedBy(r.Bindings, bindingPluginKeys), Keys: self},
		// A route with a KongService lives in the service's control plane:
		// the service coming or changing decides the route's bindings.
		{Name: "self", Source: pluginsNamedBy(r.Services, func(svc kongService) []string {
			routes, _ := r.Routes.ByIndex(indexRoutesByService, key(svc.Namespace, svc.Name))
			var keys []string
			for _, rt := range routes {
				keys = append(keys, pluginKeys(rt)...)
			}
			return keys
		}), Keys: self},
	}
	for _, dep := range deps {
		if err := c.Watch(dep); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// pluginsNamedBy is objects as a source of the plugins that keys names.
// Only the objects' specs and metadata decide the bindings and the
// finalizer, not the status their own controllers write.
func pluginsNamedBy[S controller.Object](objects *controller.Informer[S], keys func(obj S) []string) controller.SourceOf[S] {
	return controller.SourceOf[S]{Informer: objects, Keys: keys, Updates: controller.SpecOrMetadataChanged[S]}
}

// pluginsAnnotatedOn is objects as a source of the plugins that their
// konghq.com/plugins annotations name.
func pluginsAnnotatedOn[S controller.Object](objects *controller.Informer[S]) controller.SourceOf[S] {
	return pluginsNamedBy(objects, func(obj S) []string { return pluginKeys(obj) })
}

// concerns reports whether a plugin has anything for the controller: it
// carries the plugin-in-use finalizer, bindings use it or belong to it, or
// annotations name it. A plugin nothing uses yet is left alone until a
// binding or an annotation names it (a dependency).
func (r *PluginAnnotationReconciler) concerns(p kongPlugin) bool {
	if slices.Contains(p.Finalizers, commonv1alpha1.FinalizerPluginInUse) {
		return true
	}
	k := key(p.Namespace, p.Name)
	bindings, err := r.Bindings.ByIndex(indexBindingsByPlugin, k)
	if err != nil || len(bindings) > 0 {
		return true
	}
	return annotationsName(r.Services, k) || annotationsName(r.Routes, k) ||
		annotationsName(r.Consumers, k) || annotationsName(r.ConsumerGroups, k)
}

// annotationsName reports whether plugin annotations of objects in the
// cache name the plugin with the given key (or the cache cannot tell).
func annotationsName[T controller.Object](objects *controller.Informer[T], plugin string) bool {
	objs, err := objects.ByIndex(indexByPluginAnnotation, plugin)
	return err != nil || len(objs) > 0
}

// bindingPluginKeys returns the KongPlugins a binding uses (pluginRef) or
// belongs to (its controller).
func bindingPluginKeys(b kongPluginBinding) []string {
	var keys []string
	if !entities.IsClusterPluginRef(b) {
		keys = append(keys, key(namespaceOr(b.Spec.PluginRef.Namespace, b.Namespace), b.Spec.PluginRef.Name))
	}
	if owner := controllerOwner(b); owner != nil && owner.Kind == pluginGVK.Kind {
		if k := key(b.Namespace, owner.Name); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// Reconcile implements controller.Reconciler.
func (r *PluginAnnotationReconciler) Reconcile(ctx context.Context, k cache.ObjectName) (controller.Result, error) {
	cached, err := r.Plugins.Get(k.Namespace, k.Name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil // its bindings go with it (ownerReferences)
	}
	if err != nil {
		return controller.Result{}, err
	}
	plugin := cached.DeepCopy()
	targets, err := r.annotatedTargets(k)
	if err != nil {
		return controller.Result{}, err
	}
	bindings, err := r.Bindings.ByIndex(indexBindingsByPlugin, k.String())
	if err != nil {
		return controller.Result{}, err
	}
	want := map[string]managedBinding{}
	for _, m := range managedBindings(targets) {
		want[m.key()] = m
	}
	// The bindings of this plugin, by what they bind.
	owned := map[string][]kongPluginBinding{}
	inUse := len(targets) > 0
	for _, b := range bindings {
		if isBeingDeleted(b) {
			continue
		}
		if !ownedByPlugin(b, plugin) {
			inUse = true // a user's binding
			continue
		}
		bindingKey, _ := existingBindingKey(b, plugin.Name)
		owned[bindingKey] = append(owned[bindingKey], b)
	}

	client := r.BindingClients(k.Namespace)
	var errs []error
	for bindingKey, bs := range owned {
		entities.SortOldestFirst(bs)
		if _, ok := want[bindingKey]; ok && bindingKey != "" {
			r.created.Seen(string(plugin.UID) + "|" + bindingKey)
			inUse = true
			bs = bs[1:] // the others are duplicates
		}
		for _, b := range bs {
			if moved, err := r.targetElsewhere(ctx, b); moved || err != nil {
				// Not this shard's to remove: its target moved to another.
				errs = append(errs, err)
				inUse = true
				continue
			}
			if err := client.Delete(ctx, b.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
				inUse = true
			}
		}
	}
	pending := false
	if !isBeingDeleted(plugin) {
		for bindingKey, m := range want {
			if len(owned[bindingKey]) > 0 {
				continue
			}
			if r.created.InFlight(string(plugin.UID) + "|" + bindingKey) {
				pending = true
				continue
			}
			if err := r.createBinding(ctx, client, plugin, m); err != nil {
				errs = append(errs, err)
				continue
			}
			r.created.Expect(string(plugin.UID) + "|" + bindingKey)
		}
	}
	// A plugin being deleted can lose the finalizer but not gain it.
	if inUse = inUse || pending; !inUse || !isBeingDeleted(plugin) {
		errs = append(errs, controller.SetFinalizer(ctx, r.PluginClients(k.Namespace), plugin, commonv1alpha1.FinalizerPluginInUse, inUse))
	}
	if err := errors.Join(errs...); err != nil {
		return controller.Result{}, err
	}
	if pending {
		return controller.Result{RequeueAfter: time.Second}, nil
	}
	return controller.Result{}, nil
}

func ownedByPlugin(b kongPluginBinding, plugin kongPlugin) bool {
	owner := controllerOwner(b)
	return owner != nil && owner.Kind == pluginGVK.Kind && owner.UID == plugin.UID
}

func (r *PluginAnnotationReconciler) createBinding(ctx context.Context, client entities.ObjectWriter[kongPluginBinding], plugin kongPlugin, m managedBinding) error {
	b := &configurationv1alpha1.KongPluginBinding{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    plugin.Name + "-",
			Namespace:       plugin.Namespace,
			Labels:          entities.WithShardOf(plugin, nil),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(plugin, pluginGVK)},
		},
		Spec: m.spec(plugin.Name, plugin.Namespace),
	}
	_, err := client.Create(ctx, b, metav1.CreateOptions{FieldManager: controller.FieldManager})
	return err
}

// annotatedTargets returns the Konnect-bound objects, not being deleted,
// whose annotation names the plugin.
func (r *PluginAnnotationReconciler) annotatedTargets(plugin cache.ObjectName) ([]annotatedTarget, error) {
	var out []annotatedTarget
	add := func(kind targetKind, obj metav1.Object, ref *commonv1alpha1.ControlPlaneRef, namespace string) {
		if !isBeingDeleted(obj) && ref.IsKonnect() {
			cp := controlPlaneName{namespace: namespaceOr(ref.KonnectNamespacedRef.Namespace, namespace), name: ref.KonnectNamespacedRef.Name}
			out = append(out, annotatedTarget{kind: kind, name: obj.GetName(), cp: cp})
		}
	}
	services, err := r.Services.ByIndex(indexByPluginAnnotation, plugin.String())
	if err != nil {
		return nil, err
	}
	for _, s := range services {
		add(targetService, s, s.Spec.ControlPlaneRef, s.Namespace)
	}
	routes, err := r.Routes.ByIndex(indexByPluginAnnotation, plugin.String())
	if err != nil {
		return nil, err
	}
	for _, rt := range routes {
		namespace, name, hasService := entities.ServiceRefOf(rt)
		if !hasService {
			add(targetRoute, rt, rt.Spec.ControlPlaneRef, rt.Namespace)
			continue
		}
		// The route lives where its service does.
		if svc, err := r.Services.Get(namespace, name); err == nil {
			add(targetRoute, rt, svc.Spec.ControlPlaneRef, svc.Namespace)
		}
	}
	consumers, err := r.Consumers.ByIndex(indexByPluginAnnotation, plugin.String())
	if err != nil {
		return nil, err
	}
	for _, c := range consumers {
		add(targetConsumer, c, c.Spec.ControlPlaneRef, c.Namespace)
	}
	groups, err := r.ConsumerGroups.ByIndex(indexByPluginAnnotation, plugin.String())
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		add(targetConsumerGroup, g, g.Spec.ControlPlaneRef, g.Namespace)
	}
	return out, nil
}

// targetElsewhere reports whether a binding's target, missing from this
// shard's caches, exists in another shard: the binding is not unwanted
// then, only left behind by a move (see commonv1alpha1.LabelShard).
func (r *PluginAnnotationReconciler) targetElsewhere(ctx context.Context, b kongPluginBinding) (bool, error) {
	t := b.Spec.Targets
	if t == nil {
		return false, nil
	}
	type target struct {
		name    string
		present func(namespace, name string) bool
		locate  func(ctx context.Context, namespace, name string, fresh bool) (*controller.OtherShard, error)
	}
	var targets []target
	if t.ServiceRef != nil {
		targets = append(targets, target{t.ServiceRef.Name, cached(r.Services), r.Services.Elsewhere})
	}
	if t.RouteRef != nil {
		targets = append(targets, target{t.RouteRef.Name, cached(r.Routes), r.Routes.Elsewhere})
	}
	if t.ConsumerRef != nil {
		targets = append(targets, target{t.ConsumerRef.Name, cached(r.Consumers), r.Consumers.Elsewhere})
	}
	if t.ConsumerGroupRef != nil {
		targets = append(targets, target{t.ConsumerGroupRef.Name, cached(r.ConsumerGroups), r.ConsumerGroups.Elsewhere})
	}
	for _, target := range targets {
		if target.present(b.Namespace, target.name) {
			continue
		}
		other, err := target.locate(ctx, b.Namespace, target.name, true)
		if err != nil || other != nil {
			return other != nil, err
		}
	}
	return false, nil
}

// cached reports whether an object is in a view's caches.
func cached[T controller.Object](inf *controller.Informer[T]) func(namespace, name string) bool {
	return func(namespace, name string) bool {
		_, err := inf.Get(namespace, name)
		return err == nil
	}
}

// controllerOwner returns the controller ownerReference of obj, if any.
func controllerOwner(obj metav1.Object) *metav1.OwnerReference {
	for i, ref := range obj.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			return &obj.GetOwnerReferences()[i]
		}
	}
	return nil
}
