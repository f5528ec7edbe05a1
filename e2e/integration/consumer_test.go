package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
)

// KongConsumers and KongConsumerGroups through the shared per-kind harness
// (kindcase_test.go). A consumer's groups are part of what it asks of
// Konnect: adopting one compares and writes its memberships too.

type (
	kongConsumer      = *configurationv1.KongConsumer
	kongConsumerGroup = *configurationv1beta1.KongConsumerGroup
)

// hasPrefix checks that a string field of an entity starts with prefix.
func hasPrefix(ent map[string]any, field, prefix string) error {
	if s, _ := ent[field].(string); !strings.HasPrefix(s, prefix) {
		return fmt.Errorf("%s = %v, want %s…", field, ent[field], prefix)
	}
	return nil
}

// consumers are members of the group "gold"; a seed that differs is a
// member of "silver" instead.
var consumers = kindCase[kongConsumer]{
	kind: "KongConsumer", collection: "consumers", path: "core-entities/consumers",
	client: func(e *env) objectClient[kongConsumer] { return e.cs.ConfigurationV1().KongConsumers(e.ns) },
	setup: func(e *env) {
		e.createConsumerGroup("gold")
		e.createConsumerGroup("silver")
		e.programmedConsumerGroup("gold")
		e.programmedConsumerGroup("silver")
	},
	object: func(_ *env, name string) kongConsumer {
		return &configurationv1.KongConsumer{
			ObjectMeta:     metav1.ObjectMeta{Name: name},
			Username:       name,
			ConsumerGroups: []string{"gold"},
			Spec:           configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef("cp")},
		}
	},
	setControlPlane: func(c kongConsumer, ref *commonv1alpha1.ControlPlaneRef) { c.Spec.ControlPlaneRef = ref },
	change:          func(c kongConsumer) { c.CustomID = "custom-" + c.Name },
	changed:         func(ent map[string]any) error { return hasPrefix(ent, "custom_id", "custom-") },
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["custom_id"] = "drifted-" + fmt.Sprint(ent["id"])
		e.reput(cpID, "consumers", ent)
	},
	adopt: func(c kongConsumer, opts *commonv1alpha1.AdoptOptions) { c.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		api := e.konnect()
		res, err := api.Consumers.CreateConsumer(e.ctx, cpID, components.Consumer{Username: &name})
		if err != nil {
			e.t.Fatal(err)
		}
		group := "gold"
		if !matching {
			group = "silver"
		}
		if _, err := api.ConsumerGroups.AddConsumerToGroup(e.ctx, operations.AddConsumerToGroupRequest{
			ControlPlaneID: cpID, ConsumerGroupID: e.programmedConsumerGroup(group),
			RequestBody: &operations.AddConsumerToGroupRequestBody{ConsumerID: res.GetConsumer().ID},
		}); err != nil {
			e.t.Fatal(err)
		}
		return *res.GetConsumer().ID
	},
	differs: "consumer_groups",
	overridden: func(e *env, cpID string, c kongConsumer) error {
		id := c.Status.Konnect.ID
		gold := e.sim.ConsumerGroupMembers(e.orgID, cpID, e.programmedConsumerGroup("gold"))
		silver := e.sim.ConsumerGroupMembers(e.orgID, cpID, e.programmedConsumerGroup("silver"))
		if !slices.Contains(gold, id) || slices.Contains(silver, id) {
			return fmt.Errorf("memberships not overwritten: gold %v, silver %v", gold, silver)
		}
		return nil
	},
}

var consumerGroups = kindCase[kongConsumerGroup]{
	kind: "KongConsumerGroup", collection: "consumer_groups", path: "core-entities/consumer_groups",
	client: func(e *env) objectClient[kongConsumerGroup] {
		return e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns)
	},
	object: func(_ *env, name string) kongConsumerGroup {
		return &configurationv1beta1.KongConsumerGroup{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       configurationv1beta1.KongConsumerGroupSpec{Name: name, ControlPlaneRef: cpRef("cp")},
		}
	},
	setControlPlane: func(g kongConsumerGroup, ref *commonv1alpha1.ControlPlaneRef) { g.Spec.ControlPlaneRef = ref },
	change:          func(g kongConsumerGroup) { g.Spec.Name = "changed-" + g.Name },
	changed:         func(ent map[string]any) error { return hasPrefix(ent, "name", "changed-") },
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["name"] = "drifted-" + fmt.Sprint(ent["id"])
		e.reput(cpID, "consumer_groups", ent)
	},
	adopt: func(g kongConsumerGroup, opts *commonv1alpha1.AdoptOptions) { g.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		groupName := name
		if !matching {
			groupName = "other-" + name
		}
		g, err := e.konnect().ConsumerGroups.CreateConsumerGroup(e.ctx, cpID, components.ConsumerGroup{Name: groupName})
		if err != nil {
			e.t.Fatal(err)
		}
		return *g.GetConsumerGroup().ID
	},
	differs: "name",
}

// TestConsumerKinds walks consumers and consumer groups in one
// environment.
func TestConsumerKinds(t *testing.T) { testTogether(t, consumers, consumerGroups) }
