package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/operations"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

func testControlPlane(name string, clusterType string) controlPlane {
	cp := &konnectv1alpha2.KonnectGatewayControlPlane{
		ObjectMeta: objectMeta(name),
		Spec: konnectv1alpha2.KonnectGatewayControlPlaneSpec{
			CreateControlPlaneRequest: &konnectv1alpha2.CreateControlPlaneRequest{
				Name: name, ClusterType: ptr(clusterType), Labels: map[string]string{"team": "a"},
			},
			Konnect: &konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: "auth"}},
		},
	}
	return cp
}

func TestControlPlaneDesiredCarriesIdentityLabelsAndMembers(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "member", "member-id")
	group := testControlPlane("group", clusterTypeGroup)
	group.Spec.Members = []corev1.LocalObjectReference{{Name: "member"}, {Name: "missing"}}
	desired, err := ControlPlaneKind(refs).Desired(t.Context(), group, controller.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	if !desired.Group || !slices.Equal(desired.Members, []string{"member-id"}) || !slices.Equal(desired.Unresolved, []string{"missing: NotFound"}) {
		t.Fatalf("group %v members %v unresolved %v", desired.Group, desired.Members, desired.Unresolved)
	}
	labels := desired.Create.Labels
	if labels["team"] != "a" || labels[controller.TagKeyUID] != string(group.UID) {
		t.Fatalf("labels %v", labels)
	}
	if desired.Update.Description == nil || *desired.Update.Description != "" {
		t.Fatal("the patch must always carry the description, so that removing it clears it in Konnect")
	}
	if keys := memberKeys(group); !slices.Equal(keys, []string{"ns/member", "ns/missing"}) {
		t.Fatalf("member keys %v", keys)
	}
}

func TestControlPlaneLifecycleAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	refs := testRefs()
	kind := ControlPlaneKind(refs)
	cp := testControlPlane("payments", "CLUSTER_TYPE_CONTROL_PLANE")
	desired, _ := kind.Desired(t.Context(), cp, controller.Placement{})

	id, _, err := kind.Create(t.Context(), s.api, cp, controller.Placement{}, desired)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Status.KonnectEndpoints == nil || cp.Status.ClusterType != "CLUSTER_TYPE_CONTROL_PLANE" {
		t.Fatalf("what Konnect answered is not recorded: %+v", cp.Status)
	}
	found, err := kind.FindByUID(t.Context(), s.api, cp, controller.Placement{})
	if err != nil || found != id {
		t.Fatalf("find by the UID label: %q, %v; want %q", found, err, id)
	}
	cp.Spec.CreateControlPlaneRequest.Description = ptr("the payments team")
	desired, _ = kind.Desired(t.Context(), cp, controller.Placement{})
	if _, err := kind.Update(t.Context(), s.api, cp, controller.Placement{}, id, desired); err != nil {
		t.Fatal(err)
	}
	got, err := s.api.ControlPlanes.GetControlPlane(t.Context(), id)
	if err != nil || got.GetControlPlane().Description != "the payments team" {
		t.Fatalf("after the update: %v", err)
	}
	if err := kind.Delete(t.Context(), s.api, cp, controller.Placement{}, id); err != nil {
		t.Fatal(err)
	}
	if _, err := kind.Update(t.Context(), s.api, cp, controller.Placement{}, id, desired); !konnect.IsNotFound(err) {
		t.Fatalf("updating a deleted control plane: %v, want not found (the loop creates it again)", err)
	}
}

func TestControlPlaneGroupMembersAreWrittenWhole(t *testing.T) {
	s := startSimulator(t)
	refs := testRefs()
	kind := ControlPlaneKind(refs)
	memberID := s.controlPlane(t, "member").ControlPlaneID
	programmedControlPlane(t, refs, "member", memberID)
	group := testControlPlane("group", clusterTypeGroup)
	group.Spec.Members = []corev1.LocalObjectReference{{Name: "member"}}
	desired, _ := kind.Desired(t.Context(), group, controller.Placement{})
	groupID, _, err := kind.Create(t.Context(), s.api, group, controller.Placement{}, desired)
	if err != nil {
		t.Fatal(err)
	}
	if err := kind.AfterSync(t.Context(), s.api, group, controller.Placement{}, groupID, true); err != nil {
		t.Fatal(err)
	}
	res, err := s.api.ControlPlaneGroups.GetControlPlanesIDGroupMemberships(t.Context(), operations.GetControlPlanesIDGroupMembershipsRequest{ControlPlaneID: groupID})
	if err != nil || len(res.GetListGroupMemberships().GetData()) != 1 || res.GetListGroupMemberships().GetData()[0].ID != memberID {
		t.Fatalf("members in Konnect: %v", err)
	}
	if c := meta.FindStatusCondition(group.Status.Conditions, commonv1alpha1.ConditionMembersReferenceResolved); c == nil || c.Status != "True" {
		t.Fatalf("MembersReferenceResolved: %+v", c)
	}

	group.Spec.Members = append(group.Spec.Members, corev1.LocalObjectReference{Name: "missing"})
	err = kind.AfterSync(t.Context(), s.api, group, controller.Placement{}, groupID, false)
	if !controller.IsPermanent(err) {
		t.Fatalf("a missing member: %v, want a permanent failure until the member changes", err)
	}
	if c := meta.FindStatusCondition(group.Status.Conditions, commonv1alpha1.ConditionMembersReferenceResolved); c == nil || c.Reason != commonv1alpha1.ReasonSomeMemberNotResolved {
		t.Fatalf("MembersReferenceResolved: %+v", c)
	}
}

func TestMirrorReadsTheControlPlaneItNames(t *testing.T) {
	s := startSimulator(t)
	kind := ControlPlaneKind(testRefs())
	id := s.controlPlane(t, "existing").ControlPlaneID
	mirror := &konnectv1alpha2.KonnectGatewayControlPlane{ObjectMeta: objectMeta("mirror")}
	mirror.Spec.Source = ptr(konnectv1alpha2.ControlPlaneSourceMirror)
	mirror.Spec.Mirror = &konnectv1alpha2.MirrorSpec{Konnect: konnectv1alpha2.MirrorKonnect{ID: id}}
	if !kind.Borrows(mirror) {
		t.Fatal("a mirror must borrow its control plane")
	}
	desired, _ := kind.Desired(t.Context(), mirror, controller.Placement{})
	got, _, err := kind.Create(t.Context(), s.api, mirror, controller.Placement{}, desired)
	if err != nil || got != id {
		t.Fatalf("reading the mirrored control plane: %q, %v", got, err)
	}
	if c := meta.FindStatusCondition(mirror.Status.Conditions, commonv1alpha1.ConditionMirrored); c == nil || c.Status != "True" {
		t.Fatalf("Mirrored: %+v", c)
	}
	if found, err := kind.FindByUID(t.Context(), s.api, mirror, controller.Placement{}); err != nil || found != "" {
		t.Fatalf("a mirror is never looked up by its UID: %q, %v", found, err)
	}
	mirror.Spec.Mirror.Konnect.ID = "00000000-0000-0000-0000-000000000000"
	desired, _ = kind.Desired(t.Context(), mirror, controller.Placement{})
	if _, _, err := kind.Create(t.Context(), s.api, mirror, controller.Placement{}, desired); !konnect.IsNotFound(err) {
		t.Fatalf("a mirror of nothing: %v, want not found", err)
	}
	if c := meta.FindStatusCondition(mirror.Status.Conditions, commonv1alpha1.ConditionMirrored); c == nil || c.Status != "False" {
		t.Fatalf("Mirrored: %+v", c)
	}
}
