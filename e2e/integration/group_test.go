package integration

import (
	"fmt"
	"github.com/Kong/sdk-konnect-go/models/components"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

// createGroup creates a control-plane group with the given members.
func (e *env) createGroup(name string, members ...string) {
	e.t.Helper()
	cp := e.controlPlaneObject(name, "auth")
	clusterType := konnectv1alpha2.ClusterTypeControlPlaneGroup
	cp.Spec.CreateControlPlaneRequest.ClusterType = &clusterType
	for _, m := range members {
		cp.Spec.Members = append(cp.Spec.Members, corev1.LocalObjectReference{Name: m})
	}
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Create(e.ctx, cp, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) setMembers(group string, members ...string) {
	e.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cp := e.controlPlane(group)
		cp.Spec.Members = nil
		for _, m := range members {
			cp.Spec.Members = append(cp.Spec.Members, corev1.LocalObjectReference{Name: m})
		}
		_, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Update(e.ctx, cp, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// programmedControlPlane waits until the control plane is Programmed and
// returns its Konnect ID.
func (e *env) programmedControlPlane(name string) string {
	e.t.Helper()
	var id string
	e.eventually("control plane "+name+" Programmed", func() error {
		cp := e.controlPlane(name)
		id = cp.Status.ID
		return programmed(cp)
	})
	return id
}

// membersAre waits until Konnect lists exactly the given members in the
// group and the group reports them resolved.
func (e *env) membersAre(group, groupID string, memberIDs ...string) {
	e.t.Helper()
	want := slices.Sorted(slices.Values(memberIDs))
	e.eventually("group members "+strings.Join(want, ","), func() error {
		got := slices.Sorted(slices.Values(e.sim.GroupMembers(e.orgID, groupID)))
		if !slices.Equal(got, want) {
			return fmt.Errorf("Konnect has members %v, want %v", got, want)
		}
		cp := e.controlPlane(group)
		if err := conditionIs(cp, commonv1alpha1.ConditionMembersReferenceResolved, metav1.ConditionTrue, commonv1alpha1.ReasonResolved); err != nil {
			return err
		}
		return programmed(cp)
	})
}

func TestControlPlaneGroup(t *testing.T) {
	t.Parallel()
	// With the default (long) sync period, every change below must reach
	// Konnect because of an event, not a resync.
	e := newEnv(t, envOptions{})
	aID := e.ready()
	e.createControlPlane("b", "auth")
	e.createGroup("group", "cp", "b")
	bID := e.programmedControlPlane("b")
	groupID := e.programmedControlPlane("group")
	if ct := e.controlPlane("group").Status.ClusterType; ct != konnectv1alpha2.ClusterTypeControlPlaneGroup {
		t.Fatalf("group cluster type %q", ct)
	}
	e.membersAre("group", groupID, aID, bID)

	t.Run("removing a member reaches Konnect at once", func(t *testing.T) {
		e := e.with(t)
		e.setMembers("group", "cp")
		e.membersAre("group", groupID, aID)
	})

	t.Run("a member that does not exist yet is reported, then set when it appears", func(t *testing.T) {
		e := e.with(t)
		e.setMembers("group", "cp", "c")
		e.eventually("missing member reported", func() error {
			cp := e.controlPlane("group")
			if err := conditionIs(cp, commonv1alpha1.ConditionMembersReferenceResolved, metav1.ConditionFalse, commonv1alpha1.ReasonSomeMemberNotResolved); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(cp.Status.Conditions, commonv1alpha1.ConditionMembersReferenceResolved); !strings.Contains(c.Message, "c: NotFound") {
				return fmt.Errorf("message %q does not name the missing member", c.Message)
			}
			return conditionIs(cp, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonFailedToSetControlPlaneGroupMembers)
		})
		if id := e.controlPlane("group").Status.ID; id != groupID {
			t.Fatalf("the group lost its ID: %q", id)
		}
		e.createControlPlane("c", "auth")
		cID := e.programmedControlPlane("c")
		e.membersAre("group", groupID, aID, cID)

		// Going back to the members last set, after a failure, is not
		// mistaken for "nothing changed".
		e.setMembers("group", "cp", "c", "d")
		e.eventually("missing member reported", func() error {
			return conditionIs(e.controlPlane("group"), commonv1alpha1.ConditionMembersReferenceResolved, metav1.ConditionFalse, commonv1alpha1.ReasonSomeMemberNotResolved)
		})
		e.setMembers("group", "cp", "c")
		e.membersAre("group", groupID, aID, cID)
	})

	t.Run("entities cannot be attached to a group", func(t *testing.T) {
		e := e.with(t)
		e.createService("on-group", func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = cpRef("group") })
		e.eventually("refusal reported", func() error {
			svc := e.service("on-group")
			if err := conditionIs(svc, commonv1alpha1.ConditionControlPlaneRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(svc.Status.Conditions, commonv1alpha1.ConditionControlPlaneRefValid); !strings.Contains(c.Message, konnectv1alpha2.ClusterTypeControlPlaneGroup) {
				return fmt.Errorf("message %q does not say why", c.Message)
			}
			return nil
		})
		if n := len(e.entities(groupID, "services")); n != 0 {
			t.Fatalf("%d services in the group", n)
		}
	})

	t.Run("a group cannot be a member", func(t *testing.T) {
		e := e.with(t)
		e.createGroup("outer", "group")
		e.eventually("refusal reported", func() error {
			return conditionIs(e.controlPlane("outer"), commonv1alpha1.ConditionMembersReferenceResolved, metav1.ConditionFalse, commonv1alpha1.ReasonSetGroupMemberFailed)
		})
	})
}

func TestControlPlaneGroupMembershipDriftIsOverwritten(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period})
	aID := e.ready()
	e.createControlPlane("b", "auth")
	e.createGroup("group", "cp")
	bID := e.programmedControlPlane("b")
	groupID := e.programmedControlPlane("group")
	e.membersAre("group", groupID, aID)

	if _, err := e.konnect().ControlPlaneGroups.PutControlPlanesIDGroupMemberships(e.ctx, groupID, &components.GroupMembership{
		Members: []components.Members{{ID: bID}},
	}); err != nil {
		t.Fatal(err)
	}
	// Within one sync period: the clock moves one period on, no more.
	e.step(period)
	e.membersAre("group", groupID, aID)
}

func TestControlPlaneGroupDeletionInAnyOrderFinishes(t *testing.T) {
	t.Parallel()
	orders := []struct {
		name  string
		steps func(e *env, groupID, aID, bID string)
	}{
		{
			name: "a member, then the group",
			steps: func(e *env, groupID, aID, _ string) {
				e.deleteControlPlane("b")
				e.eventually("member gone", func() error { return e.controlPlaneGone("b") })
				e.eventually("group reports the missing member", func() error {
					return conditionIs(e.controlPlane("group"), commonv1alpha1.ConditionMembersReferenceResolved, metav1.ConditionFalse, commonv1alpha1.ReasonSomeMemberNotResolved)
				})
				if got := e.sim.GroupMembers(e.orgID, groupID); !slices.Equal(got, []string{aID}) {
					e.t.Fatalf("Konnect group members %v, want [%s]", got, aID)
				}
				e.deleteControlPlane("group")
				e.eventually("group gone", func() error { return e.controlPlaneGone("group") })
			},
		},
		{
			name: "the group, then its members",
			steps: func(e *env, _, aID, _ string) {
				e.deleteControlPlane("group")
				e.eventually("group gone", func() error { return e.controlPlaneGone("group") })
				if _, err := e.konnect().ControlPlanes.GetControlPlane(e.ctx, aID); err != nil {
					e.t.Fatalf("deleting the group deleted a member: %v", err)
				}
				e.deleteControlPlane("b")
				e.eventually("member gone", func() error { return e.controlPlaneGone("b") })
			},
		},
		{
			name:  "the namespace at once",
			steps: func(e *env, _, _, _ string) { e.deleteNamespace() },
		},
	}
	for _, order := range orders {
		t.Run(order.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{})
			aID := e.ready()
			e.createControlPlane("b", "auth")
			e.createGroup("group", "cp", "b")
			bID := e.programmedControlPlane("b")
			groupID := e.programmedControlPlane("group")
			e.membersAre("group", groupID, aID, bID)
			order.steps(e, groupID, aID, bID)
		})
	}
}
