package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
)

func setPluginsAnnotation(obj metav1.Object, plugins string) {
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	if plugins == "" {
		delete(a, commonv1alpha1.AnnotationPlugins)
	} else {
		a[commonv1alpha1.AnnotationPlugins] = plugins
	}
	obj.SetAnnotations(a)
}

// annotate sets (or, with "", removes) the konghq.com/plugins annotation of
// a KongService, KongRoute, KongConsumer or KongConsumerGroup.
func (e *env) annotate(kind, name, plugins string) {
	e.t.Helper()
	switch kind {
	case "KongService":
		e.updateService(name, func(s *configurationv1alpha1.KongService) { setPluginsAnnotation(s, plugins) })
	case "KongConsumer":
		e.updateConsumer(name, func(c *configurationv1.KongConsumer) { setPluginsAnnotation(c, plugins) })
	case "KongRoute":
		e.retryUpdate(func() error {
			r, err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Get(e.ctx, name, metav1.GetOptions{})
			if err == nil {
				setPluginsAnnotation(r, plugins)
				_, err = e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Update(e.ctx, r, metav1.UpdateOptions{})
			}
			return err
		})
	case "KongConsumerGroup":
		e.retryUpdate(func() error {
			g, err := e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Get(e.ctx, name, metav1.GetOptions{})
			if err == nil {
				setPluginsAnnotation(g, plugins)
				_, err = e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Update(e.ctx, g, metav1.UpdateOptions{})
			}
			return err
		})
	default:
		e.t.Fatalf("cannot annotate a %s", kind)
	}
}

func (e *env) retryUpdate(update func() error) {
	e.t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, update); err != nil {
		e.t.Fatal(err)
	}
}

// bindingTargets describes what a binding binds: "s=…,r=…,c=…,g=…".
func bindingTargets(b *configurationv1alpha1.KongPluginBinding) string {
	var parts []string
	if t := b.Spec.Targets; t != nil {
		if t.ServiceRef != nil {
			parts = append(parts, "s="+t.ServiceRef.Name)
		}
		if t.RouteRef != nil {
			parts = append(parts, "r="+t.RouteRef.Name)
		}
		if t.ConsumerRef != nil {
			parts = append(parts, "c="+t.ConsumerRef.Name)
		}
		if t.ConsumerGroupRef != nil {
			parts = append(parts, "g="+t.ConsumerGroupRef.Name)
		}
	}
	return strings.Join(parts, ",")
}

// managedBindings returns the live bindings that belong to the plugin.
func (e *env) managedBindings(plugin string) []configurationv1alpha1.KongPluginBinding {
	e.t.Helper()
	list, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []configurationv1alpha1.KongPluginBinding
	for _, b := range list.Items {
		if owner := metav1.GetControllerOf(&b); b.DeletionTimestamp == nil && owner != nil && owner.Kind == "KongPlugin" && owner.Name == plugin {
			out = append(out, b)
		}
	}
	return out
}

// eventuallyBindings waits until the plugin's managed bindings bind exactly
// want, each once and Programmed, and returns them by what they bind.
func (e *env) eventuallyBindings(cpID, plugin string, want ...string) map[string]configurationv1alpha1.KongPluginBinding {
	e.t.Helper()
	slices.Sort(want)
	byTargets := map[string]configurationv1alpha1.KongPluginBinding{}
	e.eventually("bindings of "+plugin+" are "+strings.Join(want, " "), func() error {
		clear(byTargets)
		var got []string
		for _, b := range e.managedBindings(plugin) {
			got = append(got, bindingTargets(&b))
			byTargets[bindingTargets(&b)] = b
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			return fmt.Errorf("bindings %v", got)
		}
		for _, b := range byTargets {
			if err := programmed(&b); err != nil {
				return err
			}
		}
		return nil
	})
	for _, b := range byTargets {
		owner := metav1.GetControllerOf(&b)
		if owner.BlockOwnerDeletion == nil || !*owner.BlockOwnerDeletion || b.GenerateName != plugin+"-" {
			e.t.Errorf("binding %s: owner %+v, generateName %q", b.Name, owner, b.GenerateName)
		}
		if ref := b.Spec.ControlPlaneRef; !ref.IsKonnect() || ref.KonnectNamespacedRef.Name != "cp" || ref.KonnectNamespacedRef.Namespace != "" {
			e.t.Errorf("binding %s: controlPlaneRef %+v, want the control plane cp by name", b.Name, ref)
		}
		if _, ok := e.entity(cpID, "plugins", b.Status.Konnect.ID); !ok {
			e.t.Errorf("binding %s: plugin %s not in Konnect", b.Name, b.Status.Konnect.ID)
		}
	}
	return byTargets
}

func (e *env) plugin(name string) *configurationv1.KongPlugin {
	e.t.Helper()
	p, err := e.cs.ConfigurationV1().KongPlugins(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func TestPluginAnnotations(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	// One plugin per row of the table of annotation-driven bindings.
	plugins := map[string]string{
		"entities":       "rate-limiting",
		"consumers":      "cors",
		"consumer-pairs": "acl",
		"groups":         "ip-restriction",
		"group-pairs":    "request-termination",
		"groups-ignored": "response-transformer",
	}
	for name, plugin := range plugins {
		config := `{}`
		if plugin == "rate-limiting" {
			config = `{"minute": 5}` // Konnect refuses it without a limit
		}
		e.createPlugin(name, plugin, config)
	}
	e.createService("s1")
	e.createService("s2")
	e.createRoute("r1", withService("s1"))
	e.createRoute("r2", func(r *configurationv1alpha1.KongRoute) { r.Spec.ControlPlaneRef = cpRef("cp") })
	for _, c := range []string{"c1", "c2"} {
		e.createConsumer(c)
	}
	for _, g := range []string{"g1", "g2"} {
		e.createConsumerGroup(g)
	}
	annotations := map[[2]string]string{
		{"KongService", "s1"}:       "entities, group-pairs",
		{"KongService", "s2"}:       "consumer-pairs,groups-ignored",
		{"KongRoute", "r1"}:         "entities,consumer-pairs",
		{"KongRoute", "r2"}:         " entities ,group-pairs,",
		{"KongConsumer", "c1"}:      "consumers,consumer-pairs",
		{"KongConsumer", "c2"}:      "consumers,groups-ignored",
		{"KongConsumerGroup", "g1"}: "groups,group-pairs",
		{"KongConsumerGroup", "g2"}: "groups,groups-ignored",
	}
	for obj, value := range annotations {
		e.annotate(obj[0], obj[1], value)
	}

	// A user's binding of an annotated plugin is never touched.
	e.createBinding("users", "consumers", func(b *configurationv1alpha1.KongPluginBinding) {
		b.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{
			ServiceRef: &configurationv1alpha1.TargetRefWithGroupKind{Name: "s2", Kind: "KongService", Group: "configuration.konghq.com"},
		}
	})
	e.eventually("the user's binding Programmed", func() error { return programmed(e.binding("users")) })

	var entities map[string]configurationv1alpha1.KongPluginBinding
	t.Run("every combination of the table", func(t *testing.T) {
		e := e.with(t)
		entities = e.eventuallyBindings(cpID, "entities", "s=s1", "r=r1", "r=r2")
		e.eventuallyBindings(cpID, "consumers", "c=c1", "c=c2")
		e.eventuallyBindings(cpID, "consumer-pairs", "r=r1,c=c1", "s=s2,c=c1")
		e.eventuallyBindings(cpID, "groups", "g=g1", "g=g2")
		e.eventuallyBindings(cpID, "group-pairs", "s=s1,g=g1", "r=r2,g=g1")
		e.eventuallyBindings(cpID, "groups-ignored", "s=s2,c=c2")
		for name := range plugins {
			if !slices.Contains(e.plugin(name).Finalizers, commonv1alpha1.FinalizerPluginInUse) {
				t.Errorf("KongPlugin %s lacks the %s finalizer", name, commonv1alpha1.FinalizerPluginInUse)
			}
		}
	})

	t.Run("a changed annotation moves the binding and leaves the others", func(t *testing.T) {
		e := e.with(t)
		e.annotate("KongRoute", "r2", "group-pairs")
		e.annotate("KongService", "s2", "consumer-pairs,groups-ignored,entities")
		now := e.eventuallyBindings(cpID, "entities", "s=s1", "r=r1", "s=s2")
		for _, kept := range []string{"s=s1", "r=r1"} {
			if now[kept].UID != entities[kept].UID {
				t.Errorf("the binding of %s was replaced, want it kept", kept)
			}
		}
		if _, ok := e.entity(cpID, "plugins", entities["r=r2"].Status.Konnect.ID); ok {
			t.Error("the plugin of the binding no longer asked for is still in Konnect")
		}
	})

	t.Run("a duplicate is reduced to the oldest", func(t *testing.T) {
		e := e.with(t)
		original := e.eventuallyBindings(cpID, "consumers", "c=c1", "c=c2")["c=c1"]
		// Creation times count whole seconds: the duplicate must be younger.
		e.serverTimePast(original.CreationTimestamp.Time)
		dup := &configurationv1alpha1.KongPluginBinding{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "consumers-", OwnerReferences: original.OwnerReferences},
			Spec:       original.Spec,
		}
		if _, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).Create(e.ctx, dup, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("one binding of c1 left", func() error {
			var names []string
			for _, b := range e.managedBindings("consumers") {
				if bindingTargets(&b) == "c=c1" {
					names = append(names, b.Name)
				}
			}
			if len(names) != 1 || names[0] != original.Name {
				return fmt.Errorf("bindings of c1: %v, want only %s", names, original.Name)
			}
			return nil
		})
	})

	t.Run("a removed annotation removes its bindings", func(t *testing.T) {
		e := e.with(t)
		e.annotate("KongConsumerGroup", "g1", "")
		e.annotate("KongConsumerGroup", "g2", "groups-ignored")
		e.eventuallyBindings(cpID, "groups")
		e.eventuallyBindings(cpID, "group-pairs", "s=s1", "r=r2")
		e.eventually("the unused plugin loses its finalizer", func() error {
			if slices.Contains(e.plugin("groups").Finalizers, commonv1alpha1.FinalizerPluginInUse) {
				return fmt.Errorf("finalizers %v", e.plugin("groups").Finalizers)
			}
			return nil
		})
		if err := e.cs.ConfigurationV1().KongPlugins(e.ns).Delete(e.ctx, "groups", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("the unused plugin is deleted at once", func() error {
			if _, err := e.cs.ConfigurationV1().KongPlugins(e.ns).Get(e.ctx, "groups", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("still there (%w)", err)
			}
			return nil
		})
	})

	t.Run("a plugin in use is kept while it is", func(t *testing.T) {
		e := e.with(t)
		if err := e.cs.ConfigurationV1().KongPlugins(e.ns).Delete(e.ctx, "consumers", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.annotate("KongConsumer", "c1", "consumer-pairs")
		e.annotate("KongConsumer", "c2", "groups-ignored")
		e.eventuallyBindings(cpID, "consumers")
		if p := e.plugin("consumers"); p.DeletionTimestamp == nil || !slices.Contains(p.Finalizers, commonv1alpha1.FinalizerPluginInUse) {
			t.Fatalf("the plugin a user's binding uses was not kept: %v", p.Finalizers)
		}
		// The user's binding went through every change above untouched.
		if now := e.binding("users"); now.Generation != 1 || now.DeletionTimestamp != nil || len(now.OwnerReferences) != 0 || programmed(now) != nil {
			t.Fatalf("the user's binding was changed: generation %d, owners %v", now.Generation, now.OwnerReferences)
		}
		if err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).Delete(e.ctx, "users", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("the plugin goes with its last user", func() error {
			if _, err := e.cs.ConfigurationV1().KongPlugins(e.ns).Get(e.ctx, "consumers", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("still there (%w)", err)
			}
			return nil
		})
	})

}

// TestAnnotationsOfNonKonnectObjectsAreIgnored: objects that are not bound
// to a Konnect control plane get no bindings.
func TestAnnotationsOfNonKonnectObjectsAreIgnored(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.ready()
	e.createPlugin("rate", "rate-limiting", `{"minute": 5}`)
	g := &configurationv1beta1.KongConsumerGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "kic-group", Annotations: map[string]string{commonv1alpha1.AnnotationPlugins: "rate"}},
		Spec:       configurationv1beta1.KongConsumerGroupSpec{Name: "kic-group"},
	}
	if _, err := e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Create(e.ctx, g, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.createConsumerGroup("konnect-group")
	e.annotate("KongConsumerGroup", "konnect-group", "rate")
	e.eventuallyBindings(e.controlPlane("cp").Status.ID, "rate", "g=konnect-group")
	e.annotate("KongConsumerGroup", "konnect-group", "")
	e.eventuallyBindings(e.controlPlane("cp").Status.ID, "rate")
	e.stays("no binding for the KIC group", func() error {
		if n := len(e.managedBindings("rate")); n != 0 {
			return fmt.Errorf("%d bindings", n)
		}
		return nil
	})
}

// TestNamespaceWithEverythingIsDeleted deletes a namespace holding
// credentials (written and made from Secrets), annotation-driven and user
// bindings, and the objects they hang on, all at once.
func TestNamespaceWithEverythingIsDeleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{keepNamespace: true})
	cpID := e.ready()
	cases := credentialCases()
	var secrets []string
	for _, c := range cases {
		e.createCredentialSecret("secret-"+c.label, c.label, c.secretData("from-secret-"+c.label))
		secrets = append(secrets, "secret-"+c.label)
	}
	e.createConsumerGroup("group")
	e.createConsumer("alice", "group")
	e.updateConsumer("alice", func(k *configurationv1.KongConsumer) {
		k.Credentials = secrets
		setPluginsAnnotation(k, "per-consumer")
	})
	for _, c := range cases {
		c.create(e, strings.ToLower(c.kind), "alice", "written-"+c.label, nil)
	}
	e.createService("svc")
	e.createRoute("route", withService("svc"))
	e.createPlugin("per-consumer", "rate-limiting", `{"minute": 5}`)
	e.createPlugin("per-entity", "cors", `{}`)
	e.annotate("KongService", "svc", "per-entity,per-consumer")
	e.annotate("KongRoute", "route", "per-entity")
	e.annotate("KongConsumerGroup", "group", "per-entity")
	e.createBinding("user", "per-entity", func(b *configurationv1alpha1.KongPluginBinding) {
		b.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{ConsumerRef: &configurationv1alpha1.TargetRef{Name: "alice"}}
	})

	e.eventuallyBindings(cpID, "per-consumer", "s=svc,c=alice")
	e.eventuallyBindings(cpID, "per-entity", "r=route,g=group", "s=svc,g=group")
	for _, c := range cases {
		e.programmedCredential(c, strings.ToLower(c.kind))
		obj := e.managedCredential(c, "alice", "secret-"+c.label)
		e.programmedCredential(c, obj.meta.GetName())
	}
	e.eventually("the user's binding Programmed", func() error { return programmed(e.binding("user")) })
	if n := e.sim.Count(e.orgID); n < 1+1+1+1+1+2*len(cases)+3 {
		t.Fatalf("only %d entities in Konnect", n)
	}

	e.deleteNamespace() // fails the test unless it finishes with Konnect empty
}
