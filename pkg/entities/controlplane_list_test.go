package entities

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// TestListedControlPlanesEqualTheirWrites: the listing of control planes
// shows the operator's own (not one created by someone else), a group with
// its members across pages of 100, and each listed control plane equals the
// snapshot of the write that made it: an unchanged one never looks
// changed. Compared with a spec (after a restart) it differs only in what
// changed, members included.
func TestListedControlPlanesEqualTheirWrites(t *testing.T) {
	s := startSimulator(t)
	refs := testRefs()
	kind := ControlPlaneKind(refs)
	const members = 150
	group := testControlPlane("group", clusterTypeGroup)
	for i := range members {
		name := fmt.Sprintf("member-%03d", i)
		programmedControlPlane(t, refs, name, s.controlPlane(t, name).ControlPlaneID)
		group.Spec.Members = append(group.Spec.Members, corev1.LocalObjectReference{Name: name})
	}
	plain := testControlPlane("plain", "CLUSTER_TYPE_CONTROL_PLANE")

	var groupID string
	snapshots := map[string]controller.Snapshot{}
	desired := map[string]ControlPlaneDesired{}
	for _, cp := range []controlPlane{group, plain} {
		d, _ := kind.Desired(t.Context(), cp, controller.Placement{})
		id, snapshot, err := kind.Create(t.Context(), s.api, cp, controller.Placement{}, d)
		if err != nil {
			t.Fatal(err)
		}
		if err := kind.AfterSync(t.Context(), s.api, cp, controller.Placement{}, id, true); err != nil {
			t.Fatal(err)
		}
		if !snapshot.Known() {
			t.Fatalf("no snapshot of the write of %s", cp.Name)
		}
		snapshots[id], desired[id] = snapshot, d
		if cp == group {
			groupID = id
		}
	}

	listed, err := kind.List(t.Context(), s.api, controller.Placement{}, false)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range listed {
		ids = append(ids, l.ID)
		if d := snapshots[l.ID].Differences(l.Snapshot); len(d) > 0 {
			t.Errorf("listed control plane %s differs from its write in %v", l.ID, d)
		}
		if d := l.Differences(desired[l.ID]); len(d) > 0 {
			t.Errorf("listed control plane %s differs from its spec in %v", l.ID, d)
		}
	}
	if len(ids) != 2 {
		t.Fatalf("listed %d control planes, want the operator's two (not the %d members made elsewhere)", len(ids), members)
	}

	// A member fewer and another description: the group's listing shows it.
	fewer := desired[groupID]
	fewer.Members = slices.Clone(fewer.Members[1:])
	fewer.Update.Description = ptr("another")
	for _, l := range listed {
		if l.ID != groupID {
			continue
		}
		if d := l.Differences(fewer); !slices.Equal(d, []string{"description", membersField}) {
			t.Errorf("differences from a changed spec: %v, want [description members]", d)
		}
		if d := snapshots[groupID].Differences(l.Snapshot.With(membersField, fewer.Members)); !slices.Equal(d, []string{membersField}) {
			t.Errorf("a member removed in Konnect shows as %v, want [members]", d)
		}
	}
}

func TestNextCursor(t *testing.T) {
	for _, tc := range []struct {
		next *string
		want string
	}{
		{nil, ""},
		{ptr(""), ""},
		{ptr("abc"), "abc"},
		{ptr("/v2/control-planes/x/group-memberships?page%5Bsize%5D=100&page%5Bafter%5D=xyz"), "xyz"},
	} {
		if got := nextCursor(tc.next); got != tc.want {
			t.Errorf("nextCursor(%v) = %q, want %q", tc.next, got, tc.want)
		}
	}
}
