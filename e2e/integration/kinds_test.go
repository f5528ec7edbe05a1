package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

func refID(ent map[string]any, field string) string {
	ref, _ := ent[field].(map[string]any)
	id, _ := ref["id"].(string)
	return id
}

// TestRoutesWithAndWithoutAService: a route of a service is placed in its
// service, one without names its control plane, one whose service is
// missing waits for it, and one of a service never adopts a route of none.
func TestRoutesWithAndWithoutAService(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createService("svc")
	e.createRoute("with-service", withService("svc"))
	e.createRoute("service-less", func(r *configurationv1alpha1.KongRoute) { r.Spec.ControlPlaneRef = cpRef("cp") })
	serviceID := e.programmedService("svc").Status.Konnect.ID

	var withSvc, without *configurationv1alpha1.KongRoute
	e.eventually("routes Programmed", func() error {
		withSvc, without = e.route("with-service"), e.route("service-less")
		if err := programmed(withSvc); err != nil {
			return err
		}
		return programmed(without)
	})
	if withSvc.Status.Konnect.ServiceID != serviceID || withSvc.Status.Konnect.ControlPlaneID != cpID {
		t.Fatalf("route status %+v, want service %s in control plane %s", withSvc.Status.Konnect, serviceID, cpID)
	}
	if err := conditionIs(withSvc, commonv1alpha1.ConditionKongServiceRefValid, metav1.ConditionTrue, ""); err != nil {
		t.Fatal(err)
	}
	ent, ok := e.entity(cpID, "routes", withSvc.Status.Konnect.ID)
	if !ok || refID(ent, "service") != serviceID {
		t.Fatalf("Konnect route %v, want service %s", ent, serviceID)
	}
	ent, ok = e.entity(cpID, "routes", without.Status.Konnect.ID)
	if !ok || refID(ent, "service") != "" {
		t.Fatalf("Konnect route %v, want no service", ent)
	}

	// A route whose service is missing says so and waits for it.
	e.createRoute("orphan", withService("missing"))
	e.eventually("missing service reported", func() error {
		return conditionIs(e.route("orphan"), commonv1alpha1.ConditionKongServiceRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
	})
	e.createService("missing")
	e.eventually("orphan route Programmed once its service exists", func() error { return programmed(e.route("orphan")) })

	// A route of no service in Konnect is not adopted by a route of a
	// service, even to override it: it would move to the service.
	name := "serviceless-in-konnect"
	res, err := e.konnect().Routes.CreateRoute(e.ctx, cpID, components.CreateRouteRouteJSON(components.RouteJSON{
		Name: &name, Paths: []string{"/" + name},
	}))
	if err != nil {
		t.Fatal(err)
	}
	routeID := *res.GetRoute().RouteJSON.ID
	e.createRoute(name, withService("svc"), func(r *configurationv1alpha1.KongRoute) {
		r.Spec.Adopt = adoptOptions(routeID, commonv1alpha1.AdoptModeOverride)
	})
	refused := routes.condition(e, name, commonv1alpha1.ConditionAdopted, metav1.ConditionFalse, commonv1alpha1.ReasonNotMatch)
	if msg := conditionMessage(refused, commonv1alpha1.ConditionAdopted); !strings.Contains(msg, "service") {
		t.Fatalf("Adopted says %q; want it to name the service", msg)
	}
	routes.condition(e, name, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonFailedToAdopt)
	if ent, _ := e.entity(cpID, "routes", routeID); refID(ent, "service") != "" {
		t.Fatalf("the route was moved to a service: %v", ent)
	}
}

func TestConsumerGroupMembershipFollowsTheConsumer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createConsumerGroup("gold")
	e.createConsumerGroup("silver")
	e.createConsumer("alice", "gold")

	groupID := func(name string) string {
		var id string
		e.eventually("group "+name+" Programmed", func() error {
			g := e.consumerGroup(name)
			id = g.KonnectStatus(false).GetKonnectID()
			return programmed(g)
		})
		return id
	}
	gold, silver := groupID("gold"), groupID("silver")
	var consumerID string
	e.eventually("consumer Programmed", func() error {
		c := e.consumer("alice")
		consumerID = c.KonnectStatus(false).GetKonnectID()
		if err := conditionIs(c, commonv1alpha1.ConditionKongConsumerGroupRefsValid, metav1.ConditionTrue, ""); err != nil {
			return err
		}
		return programmed(c)
	})
	members := func(groupID string) []string { return e.sim.ConsumerGroupMembers(e.orgID, cpID, groupID) }
	if !slices.Contains(members(gold), consumerID) {
		t.Fatalf("alice is not a member of gold in Konnect: %v", members(gold))
	}

	e.updateConsumer("alice", func(c *configurationv1.KongConsumer) { c.ConsumerGroups = []string{"silver"} })
	e.eventually("membership moved to silver", func() error {
		if slices.Contains(members(gold), consumerID) || !slices.Contains(members(silver), consumerID) {
			return fmt.Errorf("gold %v, silver %v", members(gold), members(silver))
		}
		return nil
	})

	e.updateConsumer("alice", func(c *configurationv1.KongConsumer) { c.ConsumerGroups = []string{"silver", "platinum"} })
	e.eventually("a missing group is reported by name", func() error {
		c := e.consumer("alice")
		return conditionIs(c, commonv1alpha1.ConditionKongConsumerGroupRefsValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
	})
}

func TestPluginBindingTargets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createService("svc")
	e.createRoute("route", withService("svc"))
	e.createConsumer("consumer")
	e.createConsumerGroup("group")
	e.createPlugin("rate", "rate-limiting", `{"minute": 5}`)

	type targets struct{ service, route, consumer, group bool }
	cases := []struct {
		name   string
		global bool
		t      targets
	}{
		{name: "global", global: true},
		{name: "service", t: targets{service: true}},
		{name: "route", t: targets{route: true}},
		{name: "consumer", t: targets{consumer: true}},
		{name: "group", t: targets{group: true}},
		{name: "route-service", t: targets{route: true, service: true}},
		{name: "consumer-service", t: targets{consumer: true, service: true}},
		{name: "consumer-route", t: targets{consumer: true, route: true}},
		{name: "consumer-route-service", t: targets{consumer: true, route: true, service: true}},
		{name: "group-service", t: targets{group: true, service: true}},
		{name: "group-route", t: targets{group: true, route: true}},
		{name: "group-route-service", t: targets{group: true, route: true, service: true}},
	}
	for _, tc := range cases {
		e.createBinding(tc.name, "rate", func(b *configurationv1alpha1.KongPluginBinding) {
			if tc.global {
				b.Spec.Scope = configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane
				return
			}
			b.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{}
			if tc.t.service {
				b.Spec.Targets.ServiceRef = &configurationv1alpha1.TargetRefWithGroupKind{Name: "svc", Kind: "KongService", Group: "configuration.konghq.com"}
			}
			if tc.t.route {
				b.Spec.Targets.RouteRef = &configurationv1alpha1.TargetRefWithGroupKind{Name: "route", Kind: "KongRoute", Group: "configuration.konghq.com"}
			}
			if tc.t.consumer {
				b.Spec.Targets.ConsumerRef = &configurationv1alpha1.TargetRef{Name: "consumer"}
			}
			if tc.t.group {
				b.Spec.Targets.ConsumerGroupRef = &configurationv1alpha1.TargetRef{Name: "group"}
			}
		})
	}
	ids := map[string]string{
		"service":        e.programmedService("svc").Status.Konnect.ID,
		"route":          "",
		"consumer":       "",
		"consumer_group": "",
	}
	e.eventually("targets Programmed", func() error {
		r, c, g := e.route("route"), e.consumer("consumer"), e.consumerGroup("group")
		for _, obj := range []conditioned{r, c, g} {
			if err := programmed(obj); err != nil {
				return err
			}
		}
		ids["route"], ids["consumer"], ids["consumer_group"] = r.Status.Konnect.ID, c.Status.Konnect.ID, g.Status.Konnect.ID
		return nil
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			var b *configurationv1alpha1.KongPluginBinding
			e.eventually("binding "+tc.name+" Programmed", func() error {
				b = e.binding(tc.name)
				return programmed(b)
			})
			ent, ok := e.entity(cpID, "plugins", b.Status.Konnect.ID)
			if !ok {
				t.Fatalf("plugin %s not in Konnect", b.Status.Konnect.ID)
			}
			want := map[string]bool{"service": tc.t.service, "route": tc.t.route, "consumer": tc.t.consumer, "consumer_group": tc.t.group}
			for field, set := range want {
				got := refID(ent, field)
				if set && got != ids[field] || !set && got != "" {
					t.Errorf("plugin %s = %q, want set=%v (%s)", field, got, set, ids[field])
				}
			}
			if ent["name"] != "rate-limiting" {
				t.Errorf("plugin name %v", ent["name"])
			}
		})
	}

	// A change of the KongPlugin reaches every plugin made from it.
	p, err := e.cs.ConfigurationV1().KongPlugins(e.ns).Get(e.ctx, "rate", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Config.Raw = []byte(`{"minute": 7}`)
	if _, err := e.cs.ConfigurationV1().KongPlugins(e.ns).Update(e.ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("plugin config updated in Konnect", func() error {
		for _, ent := range e.entities(cpID, "plugins") {
			config, _ := ent["config"].(map[string]any)
			if fmt.Sprint(config["minute"]) != "7" {
				return fmt.Errorf("plugin %v has config %v", ent["id"], config)
			}
		}
		return nil
	})
}

func TestDeletionInAnyOrderFinishes(t *testing.T) {
	t.Parallel()
	// Each order deletes one object first and then the rest; the test
	// environment's cleanup deletes everything left and checks that nothing
	// is left in Konnect.
	orders := []struct {
		name string
		// tokenInSecret keeps the token in a Secret rather than inline.
		tokenInSecret bool
		first         func(e *env) error
		then          func(e *env)
	}{
		{
			name:  "namespace at once",
			first: func(*env) error { return nil },
			then:  (*env).deleteNamespace,
		},
		{
			name:          "namespace at once, token in a Secret",
			tokenInSecret: true,
			first:         func(*env) error { return nil },
			then:          (*env).deleteNamespace,
		},
		{
			name:          "token Secret first",
			tokenInSecret: true,
			first: func(e *env) error {
				return e.kube.CoreV1().Secrets(e.ns).Delete(e.ctx, "token", metav1.DeleteOptions{})
			},
			then: func(e *env) {
				// Kept by its finalizer while the auth configuration reads it.
				s, err := e.kube.CoreV1().Secrets(e.ns).Get(e.ctx, "token", metav1.GetOptions{})
				if err != nil || s.DeletionTimestamp == nil || !slices.Contains(s.Finalizers, commonv1alpha1.FinalizerSecretInUse) {
					e.t.Fatalf("the token Secret should wait for its auth configuration: %v", err)
				}
			},
		},
		{
			name: "auth configuration first",
			first: func(e *env) error {
				return e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Delete(e.ctx, "auth", metav1.DeleteOptions{})
			},
			then: func(e *env) {
				// Kept by its finalizer while the control plane uses it.
				ac, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Get(e.ctx, "auth", metav1.GetOptions{})
				if err != nil || ac.DeletionTimestamp == nil || !slices.Contains(ac.Finalizers, commonv1alpha1.FinalizerAPIAuthInUse) {
					e.t.Fatalf("the auth configuration should wait for its control plane: %v", err)
				}
			},
		},
		{
			name: "control plane first",
			first: func(e *env) error {
				return e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Delete(e.ctx, "cp", metav1.DeleteOptions{})
			},
			then: func(e *env) {
				e.eventually("control plane and its entities gone", func() error {
					if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Get(e.ctx, "cp", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("control plane still there")
					}
					if n := e.sim.Count(e.orgID); n != 0 {
						return fmt.Errorf("%d entities left", n)
					}
					return nil
				})
			},
		},
		{
			name: "service before its routes",
			first: func(e *env) error {
				return e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(e.ctx, "svc", metav1.DeleteOptions{})
			},
			then: func(e *env) {
				e.eventually("service gone while its route stays", func() error {
					if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, "svc", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("service still there")
					}
					return conditionIs(e.route("route"), commonv1alpha1.ConditionKongServiceRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
				})
			},
		},
		{
			name: "consumer group before its members",
			first: func(e *env) error {
				return e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Delete(e.ctx, "group", metav1.DeleteOptions{})
			},
			then: func(e *env) {
				e.eventually("group gone while its member stays", func() error {
					if _, err := e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Get(e.ctx, "group", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("group still there")
					}
					return conditionIs(e.consumer("member"), commonv1alpha1.ConditionKongConsumerGroupRefsValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
				})
			},
		},
	}
	for _, order := range orders {
		t.Run(order.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{})
			if order.tokenInSecret {
				e.readyFromSecret()
			} else {
				e.ready()
			}
			e.createService("svc")
			e.createRoute("route", withService("svc"))
			e.createConsumerGroup("group")
			e.createConsumer("member", "group")
			e.createPlugin("rate", "rate-limiting", `{"minute": 5}`)
			e.createBinding("binding", "rate", func(b *configurationv1alpha1.KongPluginBinding) {
				b.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{
					ServiceRef: &configurationv1alpha1.TargetRefWithGroupKind{Name: "svc", Kind: "KongService", Group: "configuration.konghq.com"},
				}
			})
			e.eventually("everything Programmed", func() error {
				for _, obj := range []conditioned{e.service("svc"), e.route("route"), e.consumerGroup("group"), e.consumer("member"), e.binding("binding")} {
					if err := programmed(obj); err != nil {
						return err
					}
				}
				return nil
			})
			if err := order.first(e); err != nil {
				t.Fatal(err)
			}
			if order.then != nil {
				order.then(e)
			}
		})
	}
}
