package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// apiServerDown is how long the API server stays frozen in
// APIServerStopped: $KONNECT_APISERVER_DOWN, or 30s; make test-outages
// freezes it two minutes.
var apiServerDown = durationFromEnv("KONNECT_APISERVER_DOWN", 30*time.Second)

// freeze stops the process as SIGSTOP does (a node under memory pressure,
// a paused VM); thaw lets it go on.
func (p *process) freeze() error { return p.cmd.Process.Signal(syscall.SIGSTOP) }
func (p *process) thaw() error   { return p.cmd.Process.Signal(syscall.SIGCONT) }

// slowWrites are the flags of the fencing tests' operators: a pace of four
// requests a second, so that a change of every service is still being
// written when the leader, or the API server, freezes.
var slowWrites = []string{"--konnect-rate-limit=4", "--konnect-burst=1"}

// writesBy waits until the simulator has logged at least n writes of the
// process identity since since.
func (w *outageWorld) writesBy(ctx context.Context, identity string, since time.Time, n int) {
	w.t.Helper()
	err := waitFor(ctx, patience, func(ctx context.Context) error {
		log, err := w.sim.requestLog(ctx)
		if err != nil {
			return err
		}
		got := log.between(since, time.Now().Add(time.Hour)).where(func(r requestEntry) bool { return r.writes() && r.by(identity) }).count()
		if got < n {
			return fmt.Errorf("%d writes of %s so far", got, identity)
		}
		return nil
	})
	if err != nil {
		w.t.Fatal(err)
	}
}

// changeEveryService declares the next version of every service.
func (w *outageWorld) changeEveryService() {
	for i := range w.versions {
		w.versions[i]++
	}
}

// LeaderFrozen freezes the leader (SIGSTOP) while it writes a change of
// every service, lets the standby take over and converge that change and
// the next one, then wakes the old leader. Judged by the simulator's log
// and the Lease: the old leader writes nothing after the standby acquired
// the Lease, and exits; Konnect holds the latest spec, nothing stale.
func LeaderFrozen(t *testing.T) {
	ctx := t.Context()
	w := newOutageWorld(ctx, t, suite.cluster, "frozen", outageServices, slowWrites...)
	w.start()
	w.start()
	old, _ := w.leader(ctx, nil)
	w.apply(ctx)
	w.waitConverged(ctx, patience)

	w.changeEveryService()
	applied := time.Now()
	w.apply(ctx)
	w.writesBy(ctx, old.identity(), applied, 2)
	if err := old.freeze(); err != nil {
		t.Fatal(err)
	}
	frozen := time.Now()
	t.Cleanup(func() { _ = old.thaw() })
	newLeader, lease := w.leader(ctx, old)
	w.waitConverged(ctx, patience)
	w.changeEveryService()
	w.apply(ctx)
	w.waitConverged(ctx, patience)

	thawed := time.Now()
	if err := old.thaw(); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, patience, func(context.Context) error {
		if old.running() {
			return fmt.Errorf("%s still runs", old.name)
		}
		return nil
	}); err != nil {
		t.Errorf("the old leader did not stop once it woke: %v", err)
	}
	if err := w.converged(ctx); err != nil {
		t.Errorf("after the old leader woke: %v", err)
	}

	log, err := w.sim.requestLog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byOld := func(r requestEntry) bool { return r.writes() && r.by(old.identity()) }
	beforeFreeze := log.between(applied, frozen).where(byOld).count()
	afterTakeover := log.between(lease.acquired, time.Now().Add(time.Hour)).where(byOld)
	afterWake := log.between(thawed, time.Now().Add(time.Hour)).where(func(r requestEntry) bool { return r.writes() })
	refused := strings.Count(old.tail(1<<20), "write not sent")
	t.Logf("%s; the leader froze after %d of the change's writes; %s took over %s later (Lease acquired %s); the old leader woke %s after the takeover, "+
		"refused %d writes and stopped; it wrote %d times after the takeover, and Konnect got %d writes after it woke",
		w.answering(), beforeFreeze, newLeader.name, lease.acquired.Sub(frozen).Round(time.Millisecond), lease.acquired.Format(time.RFC3339Nano),
		thawed.Sub(lease.acquired).Round(time.Second), refused, afterTakeover.count(), afterWake.count())
	for _, r := range afterTakeover {
		t.Errorf("the old leader wrote after the standby took over: %s %s at %s", r.Method, r.Path, r.Time.Format(time.RFC3339Nano))
	}
	if afterWake.count() > 0 {
		t.Errorf("%d writes reached Konnect after the old leader woke, with nothing left to write", afterWake.count())
	}
	if !strings.Contains(old.tail(1<<20), "lost the leader-election lease") {
		t.Errorf("the old leader's log does not say it lost the Lease:\n%s", old.tail(3000))
	}
	w.checkAnsweredLate(log)
	w.checkNoViolations(ctx)
}

// APIServerStopped freezes the API server (SIGSTOP: no answer, as when it
// is down or cut off) for apiServerDown while the leader writes a change
// of every service, then lets it go on, restarting the replicas that
// exited as the kubelet would. Judged by the simulator's log and the
// Lease: no write after the leader's Lease expired; everything converges
// once the API server is back.
func APIServerStopped(t *testing.T) {
	ctx := t.Context()
	c, err := startCluster(ctx, filepath.Join(suite.workDir, "cluster-apiserver"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	w := newOutageWorld(ctx, t, c, "apiserver", outageServices, slowWrites...)
	w.start()
	w.start()
	lead, _ := w.leader(ctx, nil)
	w.apply(ctx)
	w.waitConverged(ctx, patience)

	w.changeEveryService()
	applied := time.Now()
	w.apply(ctx)
	w.writesBy(ctx, lead.identity(), applied, 2)
	pid, err := apiServerPID(c)
	if err != nil {
		t.Fatal(err)
	}
	// The Lease as the leader last renewed it: it renews every second, so
	// a renewal may still come in the moment before the freeze, which
	// only makes the expiry below earlier than the Lease's, and the check
	// stricter.
	lease, err := w.lease(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	time.Sleep(apiServerDown)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	expiry := lease.renewed.Add(lease.duration)

	restarts := 0
	if err := waitFor(ctx, patience, func(ctx context.Context) error {
		restarts += w.restartExited()
		return w.converged(ctx)
	}); err != nil {
		t.Fatalf("not converged after the API server came back: %v", err)
	}
	converged := time.Now()
	after, err := w.lease(ctx)
	if err != nil {
		t.Fatal(err)
	}

	log, err := w.sim.requestLog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	writes := func(r requestEntry) bool { return r.writes() }
	byLead := log.between(stopped.Add(-time.Hour), time.Now().Add(time.Hour)).where(func(r requestEntry) bool { return writes(r) && r.by(lead.identity()) })
	lastByLead := time.Time{}
	for _, r := range byLead {
		if r.Time.After(lastByLead) {
			lastByLead = r.Time
		}
	}
	lateByLead := byLead.between(expiry, time.Now().Add(time.Hour))
	betweenLeaders := log.between(expiry, after.acquired).where(writes)
	t.Logf("%s; API server frozen %s from %s; the leader's Lease (renewed %s for %s) expired %s after the freeze; its last write began %s before that; "+
		"%d replicas restarted; %s acquired the Lease %s after the API server came back; converged %s after it came back",
		w.answering(), apiServerDown, stopped.Format(time.RFC3339), lease.renewed.Format(time.RFC3339Nano), lease.duration, expiry.Sub(stopped).Round(time.Millisecond),
		expiry.Sub(lastByLead).Round(time.Millisecond), restarts, after.holder, after.acquired.Sub(resumed).Round(time.Millisecond),
		converged.Sub(resumed).Round(time.Second))
	for _, r := range lateByLead {
		t.Errorf("the leader wrote after its Lease expired: %s %s at %s", r.Method, r.Path, r.Time.Format(time.RFC3339Nano))
	}
	// The Lease's acquire time is its last holder's: between the expiry and
	// it, no one held the Lease, when it changed hands once.
	if after.transitions-lease.transitions == 1 {
		for _, r := range betweenLeaders {
			t.Errorf("a write while no one held the Lease: %s %s at %s by %s", r.Method, r.Path, r.Time.Format(time.RFC3339Nano), r.UserAgent)
		}
	}
	if byLead.between(applied, stopped).count() == 0 {
		t.Error("the leader wrote nothing of the change before the freeze: the test proves nothing")
	}
	w.checkAnsweredLate(log)
	w.checkNoViolations(ctx)
}

// apiServerPID reads the kube-apiserver's process id from the cluster's
// pid file.
func apiServerPID(c *clusterEnv) (int, error) {
	data, err := os.ReadFile(filepath.Join(c.Dir, "kube-apiserver.pid"))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}
