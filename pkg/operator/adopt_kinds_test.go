package operator_test

import (
	"fmt"
	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
)

// variant says how an entity made behind the operator's back relates to
// the spec of the object that adopts it.
type variant int

const (
	// equalToSpec: every field match mode compares agrees.
	equalToSpec variant = iota
	// differsFromSpec: one compared field differs (adoptable.differs).
	differsFromSpec
	// ownedByAnother: equal, but tagged with another object's UID.
	ownedByAnother
)

// adoptable describes one kind for the adoption tests.
type adoptable struct {
	kind, collection string
	// existing creates, through the Konnect API, the entity that the
	// object called name will adopt, and returns its ID.
	existing func(e *env, cpID, name string, v variant) string
	// adopting creates the object called name with spec.adopt = opts.
	adopting func(e *env, name string, opts *commonv1alpha1.AdoptOptions)
	get      func(e *env, name string) konnectObject
	// differs is the field match mode must name for differsFromSpec.
	differs string
	// overridden checks that override wrote the spec of name over id.
	overridden func(e *env, cpID, id, name string) error
}

func foreignTags(v variant) []string {
	if v == ownedByAnother {
		return []string{"k8s-uid:someone-else"}
	}
	return nil
}

// ensureService returns the Konnect ID of the KongService called name,
// creating it first when needed.
func (e *env) ensureService(name string) string {
	e.t.Helper()
	if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		e.createService(name)
	}
	return e.programmedService(name).Status.Konnect.ID
}

func adoptableKinds() []adoptable {
	return []adoptable{
		{
			kind: "KongRoute", collection: "routes", differs: "paths",
			existing: func(e *env, cpID, name string, v variant) string {
				path := "/" + name
				if v == differsFromSpec {
					path = "/elsewhere-" + name
				}
				serviceID := e.ensureService("svc")
				r, err := e.konnect().Routes.CreateRoute(e.ctx, cpID, components.CreateRouteRouteJSON(components.RouteJSON{
					Name: &name, Paths: []string{path}, Service: &components.RouteJSONService{ID: &serviceID}, Tags: foreignTags(v),
				}))
				if err != nil {
					e.t.Fatal(err)
				}
				return *r.GetRoute().RouteJSON.ID
			},
			adopting: func(e *env, name string, opts *commonv1alpha1.AdoptOptions) {
				e.createRoute(name, withService("svc"), func(r *configurationv1alpha1.KongRoute) { r.Spec.Adopt = opts })
			},
			get: func(e *env, name string) konnectObject { return e.route(name) },
			overridden: func(e *env, cpID, id, name string) error {
				ent, _ := e.entity(cpID, "routes", id)
				if paths := fmt.Sprint(ent["paths"]); paths != "[/"+name+"]" {
					return fmt.Errorf("paths %s, want [/%s]", paths, name)
				}
				return nil
			},
		},
		{
			kind: "KongConsumer", collection: "consumers", differs: "consumer_groups",
			existing: func(e *env, cpID, name string, v variant) string {
				api := e.konnect()
				res, err := api.Consumers.CreateConsumer(e.ctx, cpID, components.Consumer{Username: &name, Tags: foreignTags(v)})
				if err != nil {
					e.t.Fatal(err)
				}
				consumerID := res.GetConsumer().ID
				group := e.consumerGroup("gold")
				if v == differsFromSpec {
					group = e.consumerGroup("silver")
				}
				if _, err := api.ConsumerGroups.AddConsumerToGroup(e.ctx, operations.AddConsumerToGroupRequest{
					ControlPlaneID: cpID, ConsumerGroupID: group.Status.Konnect.ID, RequestBody: &operations.AddConsumerToGroupRequestBody{ConsumerID: consumerID},
				}); err != nil {
					e.t.Fatal(err)
				}
				return *consumerID
			},
			adopting: func(e *env, name string, opts *commonv1alpha1.AdoptOptions) {
				c := &configurationv1.KongConsumer{
					ObjectMeta:     metav1.ObjectMeta{Name: name},
					Username:       name,
					ConsumerGroups: []string{"gold"},
					Spec:           configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef("cp"), Adopt: opts},
				}
				if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, c, metav1.CreateOptions{}); err != nil {
					e.t.Fatal(err)
				}
			},
			get: func(e *env, name string) konnectObject { return e.consumer(name) },
			overridden: func(e *env, cpID, id, _ string) error {
				gold := e.sim.ConsumerGroupMembers(e.orgID, cpID, e.consumerGroup("gold").Status.Konnect.ID)
				silver := e.sim.ConsumerGroupMembers(e.orgID, cpID, e.consumerGroup("silver").Status.Konnect.ID)
				if !slices.Contains(gold, id) || slices.Contains(silver, id) {
					return fmt.Errorf("memberships not overwritten: gold %v, silver %v", gold, silver)
				}
				return nil
			},
		},
		{
			kind: "KongConsumerGroup", collection: "consumer_groups", differs: "name",
			existing: func(e *env, cpID, name string, v variant) string {
				groupName := name
				if v == differsFromSpec {
					groupName = "other-" + name
				}
				g, err := e.konnect().ConsumerGroups.CreateConsumerGroup(e.ctx, cpID, components.ConsumerGroup{Name: groupName, Tags: foreignTags(v)})
				if err != nil {
					e.t.Fatal(err)
				}
				return *g.GetConsumerGroup().ID
			},
			adopting: func(e *env, name string, opts *commonv1alpha1.AdoptOptions) {
				g := &configurationv1beta1.KongConsumerGroup{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec:       configurationv1beta1.KongConsumerGroupSpec{Name: name, ControlPlaneRef: cpRef("cp"), Adopt: opts},
				}
				if _, err := e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Create(e.ctx, g, metav1.CreateOptions{}); err != nil {
					e.t.Fatal(err)
				}
			},
			get: func(e *env, name string) konnectObject { return e.consumerGroup(name) },
			overridden: func(e *env, cpID, id, name string) error {
				if ent, _ := e.entity(cpID, "consumer_groups", id); ent["name"] != name {
					return fmt.Errorf("name %v, want %s", ent["name"], name)
				}
				return nil
			},
		},
		{
			kind: "KongPluginBinding", collection: "plugins", differs: "config",
			existing: func(e *env, cpID, name string, v variant) string {
				minute := 5
				if v == differsFromSpec {
					minute = 6
				}
				serviceID := e.ensureService("t-" + name)
				p, err := e.konnect().Plugins.CreatePlugin(e.ctx, cpID, components.Plugin{
					Name: "rate-limiting", Config: map[string]any{"minute": minute}, Service: &components.PluginService{ID: &serviceID}, Tags: foreignTags(v),
				})
				if err != nil {
					e.t.Fatal(err)
				}
				return *p.GetPlugin().ID
			},
			adopting: func(e *env, name string, opts *commonv1alpha1.AdoptOptions) {
				e.ensureService("t-" + name)
				e.createBinding(name, "rate", func(b *configurationv1alpha1.KongPluginBinding) {
					b.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{
						ServiceRef: &configurationv1alpha1.TargetRefWithGroupKind{Name: "t-" + name, Kind: "KongService", Group: "configuration.konghq.com"},
					}
					b.Spec.Adopt = opts
				})
			},
			get: func(e *env, name string) konnectObject { return e.binding(name) },
			overridden: func(e *env, cpID, id, _ string) error {
				ent, _ := e.entity(cpID, "plugins", id)
				if config, _ := ent["config"].(map[string]any); fmt.Sprint(config["minute"]) != "5" {
					return fmt.Errorf("config %v, want minute 5", ent["config"])
				}
				return nil
			},
		},
	}
}

var adoptSerial atomic.Int64

// adoptionFails waits until the object reports the adoption failure.
func (e *env) adoptionFails(k adoptable, name, reason, mentions string) {
	e.t.Helper()
	e.eventually(k.kind+" "+name+" refused with "+reason, func() error {
		obj := k.get(e, name)
		if err := conditionIs(obj, commonv1alpha1.ConditionAdopted, metav1.ConditionFalse, reason); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(obj.GetConditions(), commonv1alpha1.ConditionAdopted); !strings.Contains(c.Message, mentions) {
			return fmt.Errorf("message %q does not mention %q", c.Message, mentions)
		}
		return conditionIs(obj, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonFailedToAdopt)
	})
}

// adopted waits until the object has adopted id.
func (e *env) adopted(k adoptable, name, id string) konnectObject {
	e.t.Helper()
	var obj konnectObject
	e.eventually(k.kind+" "+name+" adopted", func() error {
		obj = k.get(e, name)
		if err := conditionIs(obj, commonv1alpha1.ConditionAdopted, metav1.ConditionTrue, commonv1alpha1.ReasonAdopted); err != nil {
			return err
		}
		if err := programmed(obj); err != nil {
			return err
		}
		if got := obj.KonnectStatus(false).GetKonnectID(); got != id {
			return fmt.Errorf("status ID %q, want %q", got, id)
		}
		return nil
	})
	return obj
}

func TestAdoptExistingEntitiesOfEveryKind(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.ensureService("svc")
	e.createPlugin("rate", "rate-limiting", `{"minute": 5}`)
	e.createConsumerGroup("gold")
	e.createConsumerGroup("silver")
	e.eventually("consumer groups Programmed", func() error {
		if err := programmed(e.consumerGroup("gold")); err != nil {
			return err
		}
		return programmed(e.consumerGroup("silver"))
	})

	for _, k := range adoptableKinds() {
		name := func(what string) string {
			return fmt.Sprintf("%s-%s-%d", strings.ToLower(strings.TrimPrefix(k.kind, "Kong")), what, adoptSerial.Add(1))
		}
		t.Run(k.kind, func(t *testing.T) {
			e := e.with(t)
			t.Run("override takes the entity over and writes the spec", func(t *testing.T) {
				e := e.with(t)
				n := name("override")
				id := k.existing(e, cpID, n, differsFromSpec)
				k.adopting(e, n, adoptOptions(id, commonv1alpha1.AdoptModeOverride))
				obj := e.adopted(k, n, id)
				e.eventually("spec written over the entity", func() error { return k.overridden(e, cpID, id, n) })
				ent, _ := e.entity(cpID, k.collection, id)
				if !slices.Contains(tagsOf(ent), "k8s-uid:"+string(obj.GetUID())) {
					t.Fatalf("the entity does not carry the object's UID: %v", tagsOf(ent))
				}
			})

			t.Run("match adopts an equal entity without writing it", func(t *testing.T) {
				e := e.with(t)
				n := name("match")
				id := k.existing(e, cpID, n, equalToSpec)
				puts := e.calls("PUT", "core-entities/"+k.collection+"/")
				k.adopting(e, n, adoptOptions(id, commonv1alpha1.AdoptModeMatch))
				e.adopted(k, n, id)
				if got := e.calls("PUT", "core-entities/"+k.collection+"/"); got != puts {
					t.Fatalf("match mode wrote the entity (%d PUTs)", got-puts)
				}
			})

			t.Run("match refuses an entity that differs and names the field", func(t *testing.T) {
				e := e.with(t)
				n := name("differs")
				id := k.existing(e, cpID, n, differsFromSpec)
				k.adopting(e, n, adoptOptions(id, commonv1alpha1.AdoptModeMatch))
				e.adoptionFails(k, n, commonv1alpha1.ReasonNotMatch, k.differs)
				ent, _ := e.entity(cpID, k.collection, id)
				if slices.ContainsFunc(tagsOf(ent), func(tag string) bool { return strings.HasPrefix(tag, "k8s-uid:") }) {
					t.Fatalf("match mode wrote the entity: %v", tagsOf(ent))
				}
			})

			t.Run("an entity owned by another object is not taken", func(t *testing.T) {
				e := e.with(t)
				n := name("owned")
				id := k.existing(e, cpID, n, ownedByAnother)
				k.adopting(e, n, adoptOptions(id, commonv1alpha1.AdoptModeOverride))
				e.adoptionFails(k, n, commonv1alpha1.ReasonUIDConflict, "someone-else")
			})

			t.Run("a missing entity cannot be fetched", func(t *testing.T) {
				e := e.with(t)
				n := name("missing")
				missing := fmt.Sprintf("0000dddd-0000-4000-8000-%012d", adoptSerial.Add(1))
				k.adopting(e, n, adoptOptions(missing, commonv1alpha1.AdoptModeOverride))
				e.adoptionFails(k, n, commonv1alpha1.ReasonFetchFailed, missing)
			})
		})
	}

	t.Run("a route that leads elsewhere is not adopted, even to override it", func(t *testing.T) {
		e := e.with(t)
		k := adoptableKinds()[0]
		name := "serviceless"
		res, err := e.konnect().Routes.CreateRoute(e.ctx, cpID, components.CreateRouteRouteJSON(components.RouteJSON{
			Name: &name, Paths: []string{"/serviceless"},
		}))
		if err != nil {
			t.Fatal(err)
		}
		routeID := *res.GetRoute().RouteJSON.ID
		k.adopting(e, "serviceless", adoptOptions(routeID, commonv1alpha1.AdoptModeOverride))
		e.adoptionFails(k, "serviceless", commonv1alpha1.ReasonNotMatch, "service")
		if ent, _ := e.entity(cpID, "routes", routeID); refID(ent, "service") != "" {
			t.Fatalf("the route was moved to a service: %v", ent)
		}
	})
	// Adopting writes nothing, ever, when Konnect matches: the listings of
	// the next sync periods find the adopted entities (which carry none of
	// the operator's tags) and compare them with their specs.
	t.Run("the next periods write nothing", func(t *testing.T) {
		e := e.with(t)
		before := e.writes()
		lists := e.calls("GET", "core-entities/services")
		e.step(time.Hour)
		e.step(time.Hour)
		if got := e.writes() - before; got != 0 {
			t.Fatalf("%d writes to Konnect in two periods after the adoptions: %v", got, e.sim.Calls())
		}
		if e.calls("GET", "core-entities/services") == lists {
			t.Fatal("the services were not listed: the periods proved nothing")
		}
	})
}

// writes counts the simulator's writes: every request but a GET.
func (e *env) writes() int {
	n := 0
	for op, count := range e.sim.Calls() {
		if !strings.HasPrefix(op, "GET ") {
			n += count
		}
	}
	return n
}
