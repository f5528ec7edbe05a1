package integration

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/companions"
)

// targeting returns a binding mutator that sets its targets; each argument
// is "s=", "r=", "c=" or "g=" followed by a name.
func targeting(targets ...string) func(*configurationv1alpha1.KongPluginBinding) {
	return func(b *configurationv1alpha1.KongPluginBinding) {
		t := &configurationv1alpha1.KongPluginBindingTargets{}
		for _, target := range targets {
			name := target[2:]
			switch target[:2] {
			case "s=":
				t.ServiceRef = &configurationv1alpha1.TargetRefWithGroupKind{Name: name, Kind: "KongService", Group: "configuration.konghq.com"}
			case "r=":
				t.RouteRef = &configurationv1alpha1.TargetRefWithGroupKind{Name: name, Kind: "KongRoute", Group: "configuration.konghq.com"}
			case "c=":
				t.ConsumerRef = &configurationv1alpha1.TargetRef{Name: name}
			case "g=":
				t.ConsumerGroupRef = &configurationv1alpha1.TargetRef{Name: name}
			}
		}
		b.Spec.Targets = t
	}
}

// bindingTargetFinalizers returns, for each named KongService (s=),
// KongRoute (r=), KongConsumer (c=) or KongConsumerGroup (g=), whether it
// carries the cleanup-plugin-binding finalizer; a missing object is absent
// from the map.
func (e *env) bindingTargetFinalizers(objs ...string) map[string]bool {
	e.t.Helper()
	out := map[string]bool{}
	for _, o := range objs {
		name := o[2:]
		var obj metav1.Object
		var err error
		switch o[:2] {
		case "s=":
			obj, err = e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		case "r=":
			obj, err = e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		case "c=":
			obj, err = e.cs.ConfigurationV1().KongConsumers(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		case "g=":
			obj, err = e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		}
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			e.t.Fatal(err)
		}
		out[o] = slices.Contains(obj.GetFinalizers(), commonv1alpha1.FinalizerCleanupPluginBinding)
	}
	return out
}

// bindingsLeft returns the names of the bindings in the namespace.
func (e *env) bindingsLeft() []string {
	e.t.Helper()
	list, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, b := range list.Items {
		names = append(names, b.Name)
	}
	slices.Sort(names)
	return names
}

func TestDeletingABindingTargetDeletesTheBindingsThatTargetIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createPlugin("cors", "cors", `{}`)
	for _, s := range []string{"s", "s2", "lonely"} {
		e.createService(s)
	}
	e.createRoute("r", withService("s"))
	e.createConsumer("c")
	e.createConsumerGroup("g")
	bindings := map[string][]string{
		"on-s":    {"s=s"},
		"on-r":    {"r=r"},
		"on-c":    {"c=c"},
		"on-g":    {"g=g"},
		"on-s2-c": {"s=s2", "c=c"},
	}
	for name, targets := range bindings {
		e.createBinding(name, "cors", targeting(targets...))
	}
	pluginIDs := map[string]string{}
	e.eventually("every binding Programmed", func() error {
		for name := range bindings {
			b := e.binding(name)
			if err := programmed(b); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			pluginIDs[name] = b.Status.Konnect.ID
		}
		return nil
	})
	all := []string{"s=s", "s=s2", "s=lonely", "r=r", "c=c", "g=g"}
	e.eventually("the targets, and only they, carry the finalizer", func() error {
		want := map[string]bool{"s=s": true, "s=s2": true, "s=lonely": false, "r=r": true, "c=c": true, "g=g": true}
		if got := e.bindingTargetFinalizers(all...); !maps.Equal(got, want) {
			return fmt.Errorf("finalizers %v, want %v", got, want)
		}
		return nil
	})

	t.Run("an object no binding targets any more lets the finalizer go", func(t *testing.T) {
		e := e.with(t)
		if err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).Delete(e.ctx, "on-g", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("g without the finalizer", func() error {
			if got := e.bindingTargetFinalizers("g=g"); got["g=g"] {
				return fmt.Errorf("finalizers of g: %v", e.consumerGroup("g").Finalizers)
			}
			return nil
		})
		if e.consumerGroup("g").DeletionTimestamp != nil {
			t.Fatal("the consumer group is being deleted")
		}
	})

	t.Run("deleting a consumer deletes every binding that targets it", func(t *testing.T) {
		e := e.with(t)
		if err := e.cs.ConfigurationV1().KongConsumers(e.ns).Delete(e.ctx, "c", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("the consumer and its bindings gone", func() error {
			if left := e.bindingsLeft(); !slices.Equal(left, []string{"on-r", "on-s"}) {
				return fmt.Errorf("bindings left: %v", left)
			}
			if _, ok := e.bindingTargetFinalizers("c=c")["c=c"]; ok {
				return fmt.Errorf("the consumer is still there")
			}
			return nil
		})
		for _, name := range []string{"on-c", "on-s2-c"} {
			if _, ok := e.entity(cpID, "plugins", pluginIDs[name]); ok {
				t.Errorf("the plugin of %s is still in Konnect", name)
			}
		}
		e.eventuallyEvent("KongConsumer", "c", corev1.EventTypeNormal, companions.ReasonPluginBindingDeleted)
		// s2 is targeted by nothing now; s still is.
		e.eventually("s2 without the finalizer", func() error {
			if got := e.bindingTargetFinalizers("s=s", "s=s2"); !got["s=s"] || got["s=s2"] {
				return fmt.Errorf("finalizers: %v", got)
			}
			return nil
		})
		if err := programmed(e.binding("on-s")); err != nil {
			t.Fatalf("the binding of another target was disturbed: %v", err)
		}
	})

	t.Run("deleting a service deletes its bindings and its route's", func(t *testing.T) {
		e := e.with(t)
		if err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Delete(e.ctx, "r", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(e.ctx, "s", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("the service, the route and their bindings gone", func() error {
			if left := e.bindingsLeft(); len(left) > 0 {
				return fmt.Errorf("bindings left: %v", left)
			}
			if got := e.bindingTargetFinalizers("s=s", "r=r"); len(got) > 0 {
				return fmt.Errorf("still there: %v", got)
			}
			return nil
		})
		if plugins := e.entities(cpID, "plugins"); len(plugins) > 0 {
			t.Errorf("plugins left in Konnect: %v", plugins)
		}
		if services := e.entities(cpID, "services"); len(services) != 2 {
			t.Errorf("%d services in Konnect, want s2 and lonely", len(services))
		}
	})
}
