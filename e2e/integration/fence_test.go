package integration

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/operator"
)

// TestALeaderPastItsRenewDeadlineWritesNothingAndStops runs the operator
// under a Lease whose renewals come every five minutes, and moves the
// clock the write fence reads past the renew deadline since the last one,
// as a process paused that long would find it: the change that follows is
// neither written to Konnect nor to the object's status, and the operator
// stops with the lost Lease, as it does when client-go says so.
func TestALeaderPastItsRenewDeadlineWritesNothingAndStops(t *testing.T) {
	t.Parallel()
	const renewDeadline = 8 * time.Minute
	leaseClock := clocktesting.NewFakePassiveClock(time.Now())
	stopped := make(chan error, 1)
	e := newEnv(t, envOptions{
		leaderElection: &operator.LeaderElection{
			LeaseDuration: 10 * time.Minute, RenewDeadline: renewDeadline, RetryPeriod: 5 * time.Minute, Clock: leaseClock,
		},
		stopped: stopped,
	})
	cpID := e.ready()
	e.createService("svc")
	id := e.programmedService("svc").Status.Konnect.ID
	e.settle()
	konnectBefore := len(e.sim.Requests())

	leaseClock.SetTime(leaseClock.Now().Add(renewDeadline))
	changedAt := time.Now()
	e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Host = "after-the-deadline.example.com" })
	changed := e.service("svc")
	select {
	case err := <-stopped:
		if err == nil || !strings.Contains(err.Error(), "lost the leader-election lease") {
			t.Fatalf("the operator stopped with %v, want the lost Lease", err)
		}
	case <-time.After(patience):
		t.Fatal("the operator did not stop")
	}

	refused := false
	for _, c := range e.konnectCalls.all() {
		if c.began.After(changedAt) && c.method == http.MethodPut && c.status == 0 {
			refused = true
		}
	}
	if !refused {
		t.Error("no write of the change was attempted: the fence was not what stopped it")
	}
	for _, r := range e.sim.Requests()[konnectBefore:] {
		if r.Method != http.MethodGet {
			t.Errorf("Konnect got a write after the renew deadline: %s %s", r.Method, r.Path)
		}
	}
	if host := e.serviceEntity(cpID, id)["host"]; host != "svc.example.com" {
		t.Errorf("Konnect holds host %v, want the one written while leading", host)
	}
	if svc := e.service("svc"); svc.ResourceVersion != changed.ResourceVersion {
		t.Errorf("the object was written after the renew deadline (resource version %s, then %s): %+v",
			changed.ResourceVersion, svc.ResourceVersion, svc.Status.Conditions)
	}

	// Another process leads now and finishes the change.
	e.opts.leaderElection, e.opts.stopped = nil, nil
	e.startOperator()
	e.eventually("the change written by the next leader", func() error {
		if host := e.serviceEntity(cpID, id)["host"]; host != "after-the-deadline.example.com" {
			return fmt.Errorf("Konnect holds host %v", host)
		}
		return programmed(e.service("svc"))
	})
}
