package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Measurements with several organisations in one operator: each must get
// its own budget, whatever the others do. Left out of make test (minutes
// each); make bench-scale-orgs and make bench-noisy-neighbour run them.

// scaleOrg is one organisation's part of a measurement.
type scaleOrg struct {
	namespace, id string
	// groups are the consumers (with their credentials) created; objects
	// all the objects.
	groups, objects int
	before          orgShare
	// finished is when its last object became Programmed.
	finished time.Time
}

// scaleOrgs sets up organisations for tokens (an auth configuration and
// control planes each), starts the operator with its default flags and
// returns them once their control planes are Programmed.
func scaleOrgs(ctx context.Context, t *testing.T, name string, tokens []string) (*operatorProcess, *procSampler, []*scaleOrg) {
	t.Helper()
	c := suite.cluster
	install(ctx, t, c, "manifests")
	manifest := ""
	for i, token := range tokens {
		manifest += orgScaleManifest(i, token)
	}
	if _, err := c.kubectl(ctx, manifest, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	op := startMeasuredOperator(ctx, t, c, name)
	readyAt := time.Now()
	sampler := &procSampler{pid: op.cmd.Process.Pid}
	go sampler.run(ctx)
	orgs := make([]*scaleOrg, len(tokens))
	for i := range tokens {
		orgs[i] = readyScaleOrg(ctx, t, c, orgScaleNamespace(i))
	}
	if err := pastReadySecond(ctx, op, readyAt); err != nil {
		t.Fatal(err)
	}
	return op, sampler, orgs
}

// readyScaleOrg waits until the auth configuration of namespace knows its
// organisation and the namespace's control planes are Programmed.
func readyScaleOrg(ctx context.Context, t *testing.T, c *clusterEnv, namespace string) *scaleOrg {
	t.Helper()
	id, err := organizationOf(ctx, c, namespace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scaleControlPlaneIDsIn(ctx, c, namespace); err != nil {
		t.Fatal(err)
	}
	return &scaleOrg{namespace: namespace, id: id}
}

// createOrgObjects creates n objects (as mode says) in each organisation
// at once, the creators shared among them.
func createOrgObjects(ctx context.Context, mode scaleMode, orgs []*scaleOrg, counts []int) error {
	g, ctx := errgroup.WithContext(ctx)
	for i, o := range orgs {
		groups, objects, groupOf := mode.groups(counts[i])
		o.groups, o.objects = groups, objects
		inNamespace := func(i int) []*unstructured.Unstructured {
			group := groupOf(i)
			for _, obj := range group {
				obj.SetNamespace(o.namespace)
			}
			return group
		}
		g.Go(func() error {
			return createInGroups(ctx, suite.cluster, o.namespace, o.groups, max(2, scaleCreators/len(orgs)), inNamespace)
		})
	}
	return g.Wait()
}

// waitOrgsProgrammed waits until every object of each organisation is
// Programmed and records when its last one became so. It checks the
// simulator's count of each organisation's entities first, which is cheap,
// and lists the objects only once they are all in Konnect.
func waitOrgsProgrammed(ctx context.Context, op *operatorProcess, orgs []*scaleOrg, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if !op.running() {
			return fmt.Errorf("the operator exited: %w", op.waitErr)
		}
		var counts []simOrg
		if err := suite.sim.get(ctx, "/_sim/orgs", false, &counts); err != nil {
			return err
		}
		inKonnect := map[string]int{}
		for _, o := range counts {
			inKonnect[o.ID] = o.Entities - scaleControlPlanes
		}
		left := 0
		var status []string
		for _, o := range orgs {
			if !o.finished.IsZero() {
				continue
			}
			left++
			status = append(status, fmt.Sprintf("%s %d of %d in Konnect", o.namespace, inKonnect[o.id], o.objects))
			if inKonnect[o.id] < o.objects {
				continue
			}
			programmed, last, err := programmedIn(ctx, suite.cluster, o.namespace, scaleKinds)
			if err != nil {
				return err
			}
			if programmed >= o.objects {
				o.finished = last
				left--
			}
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not all Programmed after %s: %s", timeout, strings.Join(status, ", "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(sizingPoll):
		}
	}
}

// idleWrites watches the operator for scaleIdle and returns the Konnect
// writes and status writes it made.
func idleWrites(ctx context.Context, t *testing.T, op *operatorProcess) (konnectWrites int, statusWritten float64) {
	t.Helper()
	callsFrom, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	statusFrom, err := statusWrites(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	if err := sleepWatching(ctx, op, scaleIdle); err != nil {
		t.Fatal(err)
	}
	callsTo, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	statusTo, err := statusWrites(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	calls := callsTo.sub(callsFrom)
	if calls.writes != 0 || statusTo != statusFrom {
		t.Errorf("idle: %d Konnect writes (%v), %v status writes; want none", calls.writes, calls.byOperation, statusTo-statusFrom)
	}
	return calls.writes, statusTo - statusFrom
}

// TestScaleAcrossOrganisations measures KONNECT_SCALE_ORGS organisations
// (2 to 4) of KONNECT_SCALE_N objects each (default 5,000), created at
// once, against the built operator with its default flags and the
// simulator at 3,000 requests a minute per organisation: each
// organisation's creates a minute and share of its own budget, its 429s,
// spec-change latencies in the first organisation meanwhile, the longest a
// worker was blocked on a limiter, an idle period's writes, and RSS.
func TestScaleAcrossOrganisations(t *testing.T) {
	k := scaleEnvInt(t, "KONNECT_SCALE_ORGS", 1)
	if k < 2 {
		t.Skip("set KONNECT_SCALE_ORGS to 2..4 organisations (make bench-scale-orgs)")
	}
	if k > 1+simNeighbours {
		t.Fatalf("KONNECT_SCALE_ORGS=%d: the simulator holds %d organisations", k, 1+simNeighbours)
	}
	n := scaleEnvInt(t, "KONNECT_SCALE_N", 5000)
	mode := scaleModeOf(t)
	ctx := t.Context()
	op, sampler, orgs := scaleOrgs(ctx, t, "orgs", append([]string{suite.sim.token}, suite.sim.neighbours[:k-1]...))
	log := &requestFollower{}
	go log.run(ctx, time.Now())
	delayKonnect(ctx, t, mode.latency)

	before, err := op.metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range orgs {
		o.before = orgShareOf(before, o.id)
	}
	atStart, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	changer := &specChanger{c: suite.cluster, namespace: orgs[0].namespace}
	changing, stopChanging := context.WithCancel(ctx)
	changerDone := make(chan struct{})
	go func() {
		defer close(changerDone)
		changer.duringCreate(changing, n)
	}()
	counts := make([]int, k)
	for i := range counts {
		counts[i] = n
	}
	if err := createOrgObjects(ctx, mode, orgs, counts); err != nil {
		t.Fatal(err)
	}
	if err := waitOrgsProgrammed(ctx, op, orgs, 2*time.Minute+time.Duration(n)*40*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	stopChanging()
	<-changerDone
	after, err := op.metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	duringCreate := changer.latencies(ctx, t, log, 30*time.Second)
	peak, _ := readProc(sampler.pid)
	writes, status := idleWrites(ctx, t, op)
	idle, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}

	var table strings.Builder
	table.WriteString("| Organisation | Objects | Cold create | Creates/min | Share of its budget | 429s | Deferred calls |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, o := range orgs {
		took := o.finished.Sub(atStart.at)
		share := orgShareOf(after, o.id).sub(o.before)
		fmt.Fprintf(&table, "| %s | %d | %s | %.0f | %.1f%% | %.0f | %.0f |\n", o.namespace, o.objects, took.Round(time.Second),
			float64(o.objects)/took.Minutes(), budgetShare(share.requests, took), share.rateLimited, share.deferred)
	}
	t.Logf("organisations figures (KONNECT_SCALE_ORGS=%d, KONNECT_SCALE_N=%d each: %s in %d control planes per organisation; default flags; simulator at %d requests/min per organisation, answering %s; load average before %s):\n"+
		"%s"+
		"spec changes in %s during the create: %s\n"+
		"workers blocked on the Konnect limiter: %s\n"+
		"idle %s: %d Konnect writes, %v status writes\n"+
		"operator RSS: peak %s, idle %s",
		k, n, mode.objects(orgs[0].groups), scaleControlPlanes, simRateLimitPerMinute, mode.answering(), mode.load,
		table.String(), orgs[0].namespace, duringCreate, limiterWaitsOf(after, ""),
		scaleIdle, writes, status, mebibytes(max(peak.peakRSS, idle.peakRSS)), mebibytes(idle.rss))
}

// TestNoisyNeighbour measures organisation A creating KONNECT_SCALE_N
// objects (default 3,000) while another client spends organisation B's
// whole window for KONNECT_SCALE_NOISE (a duration, such as 3m) and B has
// KONNECT_SCALE_NOISE_WAITING objects of its own (default 1,500) waiting:
// A's share of its budget, spec-change latencies in A meanwhile, when B's
// objects are Programmed after the noise and whether any got a Warning,
// the longest a worker was blocked on a limiter, and an idle period's
// writes. It fails when a worker waited more than a second on a limiter or
// B's wait was reported as a failure.
func TestNoisyNeighbour(t *testing.T) {
	noiseFor := os.Getenv("KONNECT_SCALE_NOISE")
	if noiseFor == "" {
		t.Skip("set KONNECT_SCALE_NOISE to how long B's window is spent, such as 3m (make bench-noisy-neighbour)")
	}
	noise, err := time.ParseDuration(noiseFor)
	if err != nil || noise <= 0 {
		t.Fatalf("KONNECT_SCALE_NOISE=%q: want a duration such as 3m", noiseFor)
	}
	nA := scaleEnvInt(t, "KONNECT_SCALE_N", 3000)
	nB := scaleEnvInt(t, "KONNECT_SCALE_NOISE_WAITING", 1500)
	mode := scaleModeOf(t)
	ctx := t.Context()
	op, _, orgs := scaleOrgs(ctx, t, "noisy", []string{suite.sim.token, suite.sim.neighbours[0]})
	a, b := orgs[0], orgs[1]
	log := &requestFollower{}
	go log.run(ctx, time.Now())
	delayKonnect(ctx, t, mode.latency)

	// Another client spends B's window, and goes on spending each new one.
	neighbour := newNoiseClient(suite.sim.neighbours[0])
	noiseEnds := time.Now().Add(noise)
	go neighbour.run(ctx, noiseEnds)
	select {
	case <-neighbour.refused:
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	case <-time.After(2 * time.Minute):
		t.Fatal("the other client did not spend B's window within 2 minutes")
	}
	before, err := op.metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a.before, b.before = orgShareOf(before, a.id), orgShareOf(before, b.id)
	start := time.Now()
	changer := &specChanger{c: suite.cluster, namespace: a.namespace}
	changing, stopChanging := context.WithCancel(ctx)
	changerDone := make(chan struct{})
	go func() {
		defer close(changerDone)
		changer.duringCreate(changing, nA)
	}()
	if err := createOrgObjects(ctx, mode, []*scaleOrg{b, a}, []int{nB, nA}); err != nil {
		t.Fatal(err)
	}
	if err := waitOrgsProgrammed(ctx, op, []*scaleOrg{a}, 2*time.Minute+time.Duration(nA)*40*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	stopChanging()
	<-changerDone
	atA, err := op.metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if time.Now().After(noiseEnds) {
		t.Logf("A finished after the noise had stopped: raise KONNECT_SCALE_NOISE for a fair measurement")
	}
	if err := waitOrgsProgrammed(ctx, op, []*scaleOrg{b}, time.Until(noiseEnds)+2*time.Minute+time.Duration(nB)*40*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	sent, refused := neighbour.counts()
	afterAll, err := op.metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	duringNoise := changer.latencies(ctx, t, log, 30*time.Second)
	warnings, err := suite.cluster.kube.CoreV1().Events(b.namespace).List(ctx, metav1.ListOptions{FieldSelector: "type=Warning"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range warnings.Items {
		t.Errorf("B's wait was reported as a failure: Warning %s on %s %s: %s", ev.Reason, ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Message)
	}
	waits := limiterWaitsOf(afterAll, "")
	if waits.overSecond > 0 {
		t.Errorf("%d requests waited more than a second in a limiter: a worker must not wait for an organisation's budget", waits.overSecond)
	}
	writes, status := idleWrites(ctx, t, op)

	tookA := a.finished.Sub(start)
	shareA, shareB := orgShareOf(atA, a.id).sub(a.before), orgShareOf(afterAll, b.id).sub(b.before)
	t.Logf("noisy neighbour figures (A: %d objects, B: %d objects waiting while another client spends B's window for %s; %s; default flags; simulator at %d requests/min per organisation, answering %s; load average before %s):\n"+
		"A: all %d Programmed in %s: %.0f creates/min; %.0f requests = %.1f%% of its budget; %.0f 429s; %.0f calls deferred\n"+
		"spec changes in A during the noise: %s\n"+
		"B: all %d Programmed %s after the noise stopped (%s after the start); %.0f requests, %.0f 429s, %.0f calls deferred; %d Warning Events\n"+
		"the other client: %d requests to B, %d refused\n"+
		"workers blocked on the Konnect limiter: %s\n"+
		"idle %s: %d Konnect writes, %v status writes",
		a.objects, b.objects, noise, mode.objects(a.groups)+" in A", simRateLimitPerMinute, mode.answering(), mode.load,
		a.objects, tookA.Round(time.Second), float64(a.objects)/tookA.Minutes(), shareA.requests, budgetShare(shareA.requests, tookA), shareA.rateLimited, shareA.deferred,
		duringNoise,
		b.objects, b.finished.Sub(noiseEnds).Round(time.Second), b.finished.Sub(start).Round(time.Second), shareB.requests, shareB.rateLimited, shareB.deferred, len(warnings.Items),
		sent, refused, waits, scaleIdle, writes, status)
}
