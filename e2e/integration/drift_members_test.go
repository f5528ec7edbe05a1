package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// Membership writes, by either of Konnect's paths.
const (
	memberAdds    = "/consumers"
	consumerWrite = "core-entities/consumers/{ConsumerId}"
)

// membershipWrites counts the requests that add or remove a member.
func (e *env) membershipWrites() int {
	n := 0
	for op, count := range e.sim.Calls() {
		if (strings.HasPrefix(op, "POST ") || strings.HasPrefix(op, "DELETE ")) && strings.Contains(op, "consumer_groups") && strings.Contains(op, "onsumer") {
			n += count
		}
	}
	return n
}

// programmedConsumerGroup waits for the group to be Programmed and returns
// its Konnect ID.
func (e *env) programmedConsumerGroup(name string) string {
	e.t.Helper()
	var id string
	e.eventually("consumer group "+name+" Programmed", func() error {
		g := e.consumerGroup(name)
		id = g.KonnectStatus(false).GetKonnectID()
		return programmed(g)
	})
	return id
}

// TestDriftedMembershipIsCorrectedByListing: in list mode, a consumer
// removed from its group directly in Konnect, and one added there to a
// group the cluster does not give it, are put back within one sync period,
// counted and reported by an Event naming consumer_groups; idle periods
// then list the groups' members and write nothing.
func TestDriftedMembershipIsCorrectedByListing(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period, driftDetection: controller.DriftList})
	cpID := e.ready()
	e.createConsumerGroup("gold")
	e.createConsumerGroup("silver")
	e.createConsumer("alice", "gold")
	e.createConsumer("bob")
	gold := e.programmedConsumerGroup("gold")
	silver := e.programmedConsumerGroup("silver")
	alice := e.programmedConsumer("alice").Status.Konnect.ID
	bob := e.programmedConsumer("bob").Status.Konnect.ID
	members := func(group string) []string { return e.sim.ConsumerGroupMembers(e.orgID, cpID, group) }
	if !slices.Contains(members(gold), alice) {
		t.Fatalf("alice is not a member of gold in Konnect: %v", members(gold))
	}
	e.settle()

	if err := e.sim.SetConsumerGroupMember(e.orgID, cpID, gold, alice, false); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SetConsumerGroupMember(e.orgID, cpID, silver, bob, true); err != nil {
		t.Fatal(err)
	}
	// The changes really happened in Konnect before anything is expected.
	if slices.Contains(members(gold), alice) || !slices.Contains(members(silver), bob) {
		t.Fatalf("the simulator holds gold %v, silver %v after the changes", members(gold), members(silver))
	}

	// Within one sync period: the clock moves one period on, no more.
	e.step(period)
	e.eventually("both memberships corrected", func() error {
		if !slices.Contains(members(gold), alice) || slices.Contains(members(silver), bob) {
			return fmt.Errorf("gold %v, silver %v", members(gold), members(silver))
		}
		return nil
	})
	e.eventually("two corrections counted", func() error {
		if got := e.driftCorrections("KongConsumer"); got != 2 {
			return fmt.Errorf("%s{kind=KongConsumer} = %v, want 2", metrics.MetricDriftCorrections, got)
		}
		return nil
	})
	for _, name := range []string{"alice", "bob"} {
		ev := e.eventuallyEvent("KongConsumer", name, corev1.EventTypeWarning, controller.EventDriftCorrected)
		if !strings.Contains(ev.Message, "consumer_groups") {
			t.Errorf("the drift Event of %s should name consumer_groups: %q", name, ev.Message)
		}
	}

	// Idle: the snapshots hold the groups as listed, so two more periods
	// list the members and write nothing.
	writes, upserts := e.membershipWrites(), e.calls("PUT", consumerWrite)
	lists := e.calls("GET", "consumer_groups/{ConsumerGroupId}"+memberAdds)
	perConsumer := e.calls("GET", "consumers/{ConsumerId}/consumer_groups")
	e.step(period)
	e.step(period)
	if got := e.membershipWrites() - writes; got != 0 {
		t.Errorf("%d membership writes in two idle periods, want 0", got)
	}
	if got := e.calls("PUT", consumerWrite) - upserts; got != 0 {
		t.Errorf("%d consumer upserts in two idle periods, want 0", got)
	}
	// One list of members per group and period (two groups).
	if got := e.calls("GET", "consumer_groups/{ConsumerGroupId}"+memberAdds) - lists; got != 4 {
		t.Errorf("%d lists of group members in two idle periods, want two per period", got)
	}
	if got := e.calls("GET", "consumers/{ConsumerId}/consumer_groups") - perConsumer; got != 0 {
		t.Errorf("%d lists of one consumer's groups in two idle periods, want 0 (each group's members are listed)", got)
	}
}

// TestRestartComparesMemberships: after a restart in list mode, the first
// listing compares each consumer's groups with its spec: a consumer whose
// groups are unchanged is not written, and one removed from its group while
// the operator was down is put back and reported.
func TestRestartComparesMemberships(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period, driftDetection: controller.DriftList})
	cpID := e.ready()
	e.createConsumerGroup("gold")
	e.createConsumer("kept", "gold")
	e.createConsumer("removed", "gold")
	gold := e.programmedConsumerGroup("gold")
	kept := e.programmedConsumer("kept").Status.Konnect.ID
	removed := e.programmedConsumer("removed").Status.Konnect.ID
	members := func() []string { return e.sim.ConsumerGroupMembers(e.orgID, cpID, gold) }

	e.stopOperator()
	if err := e.sim.SetConsumerGroupMember(e.orgID, cpID, gold, removed, false); err != nil {
		t.Fatal(err)
	}
	if got := members(); !slices.Equal(got, []string{kept}) {
		t.Fatalf("gold holds %v after the removal, want only %s", got, kept)
	}
	e.sim.ResetCalls()
	e.startOperator()

	// The first listing after the restart comes within a period.
	e.step(period)
	e.eventually("the membership removed while down put back", func() error {
		if !slices.Contains(members(), removed) {
			return fmt.Errorf("gold holds %v", members())
		}
		return nil
	})
	ev := e.eventuallyEvent("KongConsumer", "removed", corev1.EventTypeWarning, controller.EventDriftCorrected)
	if !strings.Contains(ev.Message, "consumer_groups") {
		t.Errorf("the drift Event should name consumer_groups: %q", ev.Message)
	}
	e.step(period)
	e.step(period)
	if got := e.calls("PUT", consumerWrite); got != 1 {
		t.Errorf("%d consumer upserts after the restart, want 1 (the one whose groups changed)", got)
	}
	if !slices.Contains(members(), kept) {
		t.Errorf("gold lost %s: %v", kept, members())
	}
}
