package integration

import (
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// helperControllers are the controllers that help the per-kind ones: the
// binding-cleanup finalizer of each binding target, credentials made from
// Secrets, bindings made from plugin annotations, token Secrets.
var helperControllers = []string{
	"KongServicePluginBindingCleanup", "KongRoutePluginBindingCleanup",
	"KongConsumerPluginBindingCleanup", "KongConsumerGroupPluginBindingCleanup",
	"KongConsumerCredentialSecrets", "KongPluginAnnotations", "TokenSecret",
}

// helperReconciles returns the reconciles of each helper controller so
// far, from the konnect_operator_reconcile_total counter.
func (e *env) helperReconciles() map[string]float64 {
	out := map[string]float64{}
	for _, kind := range helperControllers {
		out[kind] = e.metricValue("konnect_operator_reconcile_total", map[string]string{"kind": kind})
	}
	return out
}

// helpersIdle waits until the operator has no work at hand, and returns
// the helper controllers' reconcile counts.
func (e *env) helpersIdle() map[string]float64 {
	e.t.Helper()
	e.settle()
	return e.helperReconciles()
}

// allProgrammed checks that every service, route, consumer and consumer
// group of the namespace is Programmed at its generation, and that there
// are want of them.
func (e *env) allProgrammed(want int) error {
	var objs []conditioned
	services, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range services.Items {
		objs = append(objs, &services.Items[i])
	}
	routes, err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range routes.Items {
		objs = append(objs, &routes.Items[i])
	}
	consumers, err := e.cs.ConfigurationV1().KongConsumers(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range consumers.Items {
		objs = append(objs, &consumers.Items[i])
	}
	groups, err := e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range groups.Items {
		objs = append(objs, &groups.Items[i])
	}
	if len(objs) != want {
		return fmt.Errorf("%d objects, want %d", len(objs), want)
	}
	for _, obj := range objs {
		if err := programmed(obj); err != nil {
			return err
		}
	}
	return nil
}

// TestHelperControllersLeavePlainObjectsAlone: services, routes, consumers
// and consumer groups that no binding targets and that list no Secrets, a
// plugin that nothing uses and a credential Secret that no consumer lists
// are created, changed and deleted without a single reconcile of a helper
// controller, while their own controllers program them.
func TestHelperControllersLeavePlainObjectsAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	before := e.helpersIdle()

	const n = 10
	for i := range n {
		e.createService(fmt.Sprintf("svc-%d", i))
		e.createRoute(fmt.Sprintf("route-%d", i), withService(fmt.Sprintf("svc-%d", i)))
		e.createConsumer(fmt.Sprintf("consumer-%d", i))
		e.createConsumerGroup(fmt.Sprintf("group-%d", i))
	}
	e.createPlugin("unused", "cors", `{}`)
	basicAuth := credentialCases()[0]
	e.createCredentialSecret("unlisted", basicAuth.label, basicAuth.secretData("nobody"))
	e.eventually("every object Programmed", func() error { return e.allProgrammed(4 * n) })

	for i := range n {
		e.updateService(fmt.Sprintf("svc-%d", i), func(s *configurationv1alpha1.KongService) { s.Spec.Host = "changed.example.com" })
		e.updateConsumer(fmt.Sprintf("consumer-%d", i), func(c *configurationv1.KongConsumer) { c.CustomID = c.Name + "-changed" })
	}
	e.eventually("the changes Programmed", func() error { return e.allProgrammed(4 * n) })
	for _, svc := range e.entities(cpID, "services") {
		if svc["host"] != "changed.example.com" {
			t.Fatalf("Konnect holds service %v, want host changed.example.com", svc)
		}
	}

	for i := range n {
		for _, err := range []error{
			e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Delete(e.ctx, fmt.Sprintf("route-%d", i), metav1.DeleteOptions{}),
			e.cs.ConfigurationV1().KongConsumers(e.ns).Delete(e.ctx, fmt.Sprintf("consumer-%d", i), metav1.DeleteOptions{}),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	e.eventually("routes and consumers gone from Konnect", func() error {
		if left := len(e.entities(cpID, "routes")) + len(e.entities(cpID, "consumers")); left > 0 {
			return fmt.Errorf("%d left", left)
		}
		return e.allProgrammed(2 * n)
	})

	after := e.helpersIdle()
	for _, kind := range helperControllers {
		if d := after[kind] - before[kind]; d != 0 {
			t.Errorf("%s reconciled %.0f times, want none", kind, d)
		}
	}
}

// TestHelperControllersActOnWhatConcernsThem: objects that do concern a
// helper controller are still reconciled by it, whichever comes first,
// and an object it marked before a restart is reconciled after it.
func TestHelperControllersActOnWhatConcernsThem(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.ready()
	e.createPlugin("cors", "cors", `{}`)
	basicAuth := credentialCases()[0]

	t.Run("a service created after the binding that targets it holds the finalizer until deleted", func(t *testing.T) {
		e := e.with(t)
		e.createBinding("early", "cors", targeting("s=late"))
		e.createService("late")
		e.eventually("the finalizer on the service", func() error {
			if got := e.bindingTargetFinalizers("s=late"); !got["s=late"] {
				return fmt.Errorf("finalizers: %v", got)
			}
			return nil
		})
		if err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(e.ctx, "late", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("the service and its binding gone", func() error {
			if left := e.bindingTargetFinalizers("s=late"); len(left) > 0 || slices.Contains(e.bindingsLeft(), "early") {
				return fmt.Errorf("service %v, bindings %v", left, e.bindingsLeft())
			}
			return nil
		})
	})

	t.Run("a consumer created listing a Secret gets its credential", func(t *testing.T) {
		e := e.with(t)
		e.createCredentialSecret("alice-basic", basicAuth.label, basicAuth.secretData("alice"))
		c := &configurationv1.KongConsumer{
			ObjectMeta:  metav1.ObjectMeta{Name: "alice"},
			Username:    "alice",
			Credentials: []string{"alice-basic"},
			Spec:        configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef("cp")},
		}
		if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.managedCredential(basicAuth, "alice", "alice-basic")
	})

	t.Run("what a helper left while the operator was down is taken back after a restart", func(t *testing.T) {
		e := e.with(t)
		e.createService("marked")
		e.programmedService("marked")
		e.stopOperator()
		// As if a binding had targeted it and gone while the operator was
		// down: the finalizer is left on a service nothing targets.
		e.updateService("marked", func(s *configurationv1alpha1.KongService) {
			s.Finalizers = append(s.Finalizers, commonv1alpha1.FinalizerCleanupPluginBinding)
		})
		// The consumer stops listing its Secret: its credential must go.
		e.updateConsumer("alice", func(c *configurationv1.KongConsumer) { c.Credentials = nil })
		e.startOperator()
		e.eventually("the finalizer taken off the service", func() error {
			if got := e.bindingTargetFinalizers("s=marked"); got["s=marked"] {
				return fmt.Errorf("finalizers: %v", got)
			}
			return nil
		})
		e.eventually("the credential made from the Secret gone", func() error {
			for _, obj := range basicAuth.list(e) {
				if ownedBy(obj.meta, "Secret", "alice-basic") {
					return fmt.Errorf("%s still there", obj.meta.GetName())
				}
			}
			return nil
		})
	})
}
