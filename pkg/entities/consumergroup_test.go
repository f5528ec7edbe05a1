package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

func testConsumerGroup(name string) kongConsumerGroup {
	return &configurationv1beta1.KongConsumerGroup{
		ObjectMeta: objectMeta(name),
		Spec:       configurationv1beta1.KongConsumerGroupSpec{ControlPlaneRef: konnectRef("cp"), Name: "group-" + name, Tags: []string{"team:a"}},
	}
}

// programmedConsumerGroup is a group that exists in Konnect with ID id.
func programmedConsumerGroup(name, id string) kongConsumerGroup {
	return programmedIn(testConsumerGroup(name), "", id)
}

func TestConsumerGroupIsPlacedInItsControlPlane(t *testing.T) {
	refs := testRefs()
	kind := ConsumerGroupKind(refs)
	g := testConsumerGroup("gold")

	res, err := kind.Resolve(t.Context(), g, controller.ForSync)
	if err != nil || res.Ready || conditionStatus(res, commonv1alpha1.ConditionControlPlaneRefValid) != "False" {
		t.Fatalf("without its control plane: ready=%v err=%v conditions=%v", res.Ready, err, res.Conditions)
	}
	if res, _ := kind.Resolve(t.Context(), g, controller.ForDelete); !res.Gone {
		t.Fatal("deleting without its control plane: not gone; Konnect deleted the group with it")
	}
	programmedControlPlane(t, refs, "cp", "cp-id")
	res, err = kind.Resolve(t.Context(), g, controller.ForSync)
	if err != nil || !res.Ready || res.Placement.ControlPlaneID != "cp-id" || g.Status.Konnect.ControlPlaneID != "cp-id" {
		t.Fatalf("with a Programmed control plane: ready=%v err=%v placement=%+v", res.Ready, err, res.Placement)
	}
	if kind.IsManaged(&configurationv1beta1.KongConsumerGroup{ObjectMeta: objectMeta("kic")}) {
		t.Fatal("a group without a Konnect control-plane reference is managed")
	}
}

func TestConsumerGroupBodyCarriesNameAndTags(t *testing.T) {
	g := testConsumerGroup("gold")
	body, err := ConsumerGroupKind(testRefs()).Desired(t.Context(), g, controller.Placement{})
	if err != nil || body.Name != "group-gold" {
		t.Fatalf("body %+v, %v", body, err)
	}
	for _, want := range []string{"team:a", controller.UIDTag(g), "k8s-kind:KongConsumerGroup", "k8s-group:configuration.konghq.com"} {
		if !slices.Contains(body.Tags, want) {
			t.Errorf("tags %v lack %q", body.Tags, want)
		}
	}
}

func TestConsumerGroupMatchComparesTheName(t *testing.T) {
	desired := components.ConsumerGroup{Name: "gold", Tags: []string{"team:a"}}
	if got := consumerGroupMatches(desired, &components.ConsumerGroup{Name: "gold"}); len(got) != 0 {
		t.Errorf("same name, other tags: differences %v", got)
	}
	if got := consumerGroupMatches(desired, &components.ConsumerGroup{Name: "silver"}); !slices.Equal(got, []string{"name"}) {
		t.Errorf("another name: differences %v", got)
	}
}

func TestConsumerGroupCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, consumerGroupCalls,
		components.ConsumerGroup{Name: "gold", Tags: []string{uid}},
		components.ConsumerGroup{Name: "platinum", Tags: []string{uid}}, uid)
}
