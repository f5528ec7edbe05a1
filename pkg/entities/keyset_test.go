package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

func testKeySet(name string) kongKeySet {
	return &configurationv1alpha1.KongKeySet{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongKeySetSpec{
			ControlPlaneRef:   konnectRef("cp"),
			KongKeySetAPISpec: configurationv1alpha1.KongKeySetAPISpec{Name: "set-" + name, Tags: []string{"team:a"}},
		},
	}
}

func TestKeySetIsPlacedInItsControlPlane(t *testing.T) {
	refs := testRefs()
	kind := KeySetKind(refs)
	set := testKeySet("keys")

	res, err := kind.Resolve(t.Context(), set, controller.ForSync)
	if err != nil || res.Ready || conditionStatus(res, commonv1alpha1.ConditionControlPlaneRefValid) != "False" {
		t.Fatalf("without its control plane: ready=%v err=%v conditions=%v", res.Ready, err, res.Conditions)
	}
	res, err = kind.Resolve(t.Context(), set, controller.ForDelete)
	if err != nil || !res.Gone {
		t.Fatalf("deleting without its control plane: gone=%v err=%v; Konnect deleted the set with it", res.Gone, err)
	}

	programmedControlPlane(t, refs, "cp", "cp-id")
	res, err = kind.Resolve(t.Context(), set, controller.ForSync)
	if err != nil || !res.Ready {
		t.Fatalf("with a Programmed control plane: ready=%v err=%v conditions=%v", res.Ready, err, res.Conditions)
	}
	if res.Placement.ControlPlaneID != "cp-id" || res.Placement.Auth.ServerURL != testServerURL || res.Placement.Auth.Token != "kpat_test" {
		t.Fatalf("placement %+v", res.Placement)
	}
	if got := set.Status.Konnect.ControlPlaneID; got != "cp-id" {
		t.Fatalf("status records control plane %q", got)
	}
	if kind.IsManaged(&configurationv1alpha1.KongKeySet{ObjectMeta: objectMeta("kic")}) {
		t.Fatal("a key set without a Konnect control-plane reference is managed")
	}
}

func TestKeySetBodyCarriesNameAndTags(t *testing.T) {
	set := testKeySet("keys")
	body, err := KeySetKind(testRefs()).Desired(t.Context(), set, controller.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	if deref(body.Name) != "set-keys" {
		t.Errorf("name %q", deref(body.Name))
	}
	for _, want := range []string{"team:a", controller.UIDTag(set), "k8s-kind:KongKeySet"} {
		if !slices.Contains(body.Tags, want) {
			t.Errorf("tags %v lack %q", body.Tags, want)
		}
	}
}

func TestKeySetMatchNeedsTheUsersTags(t *testing.T) {
	desired := components.KeySet{Name: ptr("set"), Tags: []string{"k8s-uid:1", "k8s-kind:KongKeySet", "managed-by:konnect-operator", "team:a"}}
	cases := []struct {
		name   string
		actual components.KeySet
		want   []string
	}{
		{"the user's tag is there", components.KeySet{Name: ptr("set"), Tags: []string{"team:a", "other"}}, nil},
		{"the identity tags are not needed", components.KeySet{Name: ptr("set"), Tags: []string{"team:a"}}, nil},
		{"the user's tag is missing", components.KeySet{Name: ptr("set"), Tags: []string{"k8s-uid:1"}}, []string{"tags"}},
		{"another name", components.KeySet{Name: ptr("other"), Tags: []string{"team:a"}}, []string{"name"}},
	}
	match := keySetMatches
	for _, tc := range cases {
		if got := match(desired, &tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestKeySetCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, keySetCalls,
		components.KeySet{Name: ptr("set"), Tags: []string{uid}},
		components.KeySet{Name: ptr("renamed"), Tags: []string{uid}}, uid)
}
