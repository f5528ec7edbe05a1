package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Measurements of shards: separate operator processes, each reconciling
// the objects labelled with its shard. Left out of make test (minutes
// each); make bench-shards runs them.

// shardKinds are the kinds of a scale tree, for kubectl label.
const shardKinds = "konnectapiauthconfigurations,konnectgatewaycontrolplanes,kongconsumers,kongcredentialapikeys"

// orgTimeline samples the simulator's organisations (entities, requests
// and 429s each) every second.
type orgTimeline struct {
	mu      sync.Mutex
	samples []orgSample
	err     error
}

type orgSample struct {
	at   time.Time
	orgs map[string]simOrg
}

func (o *orgTimeline) run(ctx context.Context) {
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		var orgs []simOrg
		err := suite.sim.get(ctx, "/_sim/orgs", false, &orgs)
		at := time.Now()
		o.mu.Lock()
		if err != nil && ctx.Err() == nil {
			o.err = err
		}
		if err == nil {
			sample := orgSample{at: at, orgs: map[string]simOrg{}}
			for _, org := range orgs {
				sample.orgs[org.ID] = org
			}
			o.samples = append(o.samples, sample)
		}
		o.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// at returns the last sample taken at or before t (the first one when t
// comes before every sample).
func (o *orgTimeline) at(t time.Time) orgSample {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out orgSample
	for i, s := range o.samples {
		if i > 0 && s.at.After(t) {
			break
		}
		out = s
	}
	return out
}

// latest returns the last sample.
func (o *orgTimeline) latest() orgSample { return o.at(time.Now().Add(time.Hour)) }

// orgWindow is what one organisation did between two samples.
type orgWindow struct {
	took                      time.Duration
	created, requests, limits int
}

func windowOf(from, to orgSample, org string) orgWindow {
	a, b := from.orgs[org], to.orgs[org]
	return orgWindow{took: to.at.Sub(from.at), created: b.Entities - a.Entities, requests: b.Requests - a.Requests, limits: b.RateLimited - a.RateLimited}
}

// perMinute is the window's creates a minute.
func (w orgWindow) perMinute() float64 {
	if w.took <= 0 {
		return 0
	}
	return float64(w.created) / w.took.Minutes()
}

// minutes returns org's requests in each whole clock minute between from
// and to: Konnect's budget is a window of a clock minute, so these show
// how much of each window was spent (to a second's requests, the
// sampling's grain).
func (o *orgTimeline) minutes(from, to time.Time, org string) []int {
	var out []int
	for m := from.Truncate(time.Minute).Add(time.Minute); !m.Add(time.Minute).After(to); m = m.Add(time.Minute) {
		out = append(out, o.at(m.Add(time.Minute)).orgs[org].Requests-o.at(m).orgs[org].Requests)
	}
	return out
}

func (w orgWindow) String() string {
	if w.took <= 0 {
		return "no time"
	}
	return fmt.Sprintf("%d created in %s (%.0f a minute), %d requests = %.1f%% of the budget, %d 429s",
		w.created, w.took.Round(time.Second), float64(w.created)/w.took.Minutes(), w.requests, budgetShare(float64(w.requests), w.took), w.limits)
}

// shardOperator runs the built operator with its default flags for shard,
// with leader election on as in a cluster. With ready it returns once the
// operator is ready (it leads); a standby is returned at once.
func shardOperator(ctx context.Context, t *testing.T, name, shard string, ready bool) (*operatorProcess, *procSampler) {
	t.Helper()
	op, err := startDefaultOperator(name, serviceAccountKubeconfig(ctx, t, suite.cluster, name), "--shard="+shard, "--leader-elect=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s log:\n%s", op.name, op.tail(4000))
		}
		op.stop(20 * time.Second)
	})
	if ready {
		if err := op.waitReady(ctx, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	sampler := &procSampler{pid: op.cmd.Process.Pid}
	go sampler.run(ctx)
	return op, sampler
}

// leads reports whether op says it holds its Lease.
func leads(ctx context.Context, op *operatorProcess) bool {
	families, err := op.metrics(ctx)
	return err == nil && sumMetric(families, "konnect_operator_leader", nil) == 1
}

// shardTree applies organisation i's auth configuration and control planes
// (with token), all labelled with shard.
func shardTree(ctx context.Context, t *testing.T, i int, token, shard string) {
	t.Helper()
	c := suite.cluster
	// Control planes' names in Konnect are unique in an organisation: two
	// trees in one are told apart by their namespace.
	manifest := strings.ReplaceAll(orgScaleManifest(i, token), "\n    name: scale-", "\n    name: "+orgScaleNamespace(i)+"-")
	if _, err := c.kubectl(ctx, manifest, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	label(ctx, t, orgScaleNamespace(i), shard)
}

// label labels every object of a scale tree in namespace with shard.
func label(ctx context.Context, t *testing.T, namespace, shard string) {
	t.Helper()
	if _, err := suite.cluster.kubectl(ctx, "", "label", shardKinds, "--all", "-n", namespace, "--overwrite", "konnect.konghq.com/shard="+shard); err != nil {
		t.Fatal(err)
	}
}

// shardGroups is mode's groups of objects in namespace, labelled with shard.
func shardGroups(mode scaleMode, n int, namespace, shard string) (groups, objects int, groupOf func(int) []*unstructured.Unstructured) {
	groups, objects, of := mode.groups(n)
	return groups, objects, func(i int) []*unstructured.Unstructured {
		group := of(i)
		for _, obj := range group {
			obj.SetNamespace(namespace)
			obj.SetLabels(map[string]string{"konnect.konghq.com/shard": shard})
		}
		return group
	}
}

// metricSum sums, over the families of op, every series of name whose
// labels include match.
func metricSum(ctx context.Context, t *testing.T, op *operatorProcess, name string, match map[string]string) float64 {
	t.Helper()
	families, err := op.metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return sumMetric(families, name, match)
}

// TestScaleShards measures two shards, a and b, each its own operator
// process with its default flags and each with an organisation of its
// own; shard a runs a standby too. In two rounds, each shard gets
// KONNECT_SCALE_SHARDS_N objects (default 5,000) at once; in the second,
// shard a's leader is killed once a quarter of its objects are in Konnect.
// It reports each shard's creates a minute and share of its budget, shard
// b's rate and spec-change latency in both rounds, how long shard a's
// standby took to lead and to create again, an idle period's writes in
// both; then moves KONNECT_SCALE_SHARDS_MOVE objects (default 1,000: an
// auth configuration's whole tree, in a third organisation) from shard a
// to shard b and reports the Konnect writes that made, the entities the
// organisation holds after it, and how long until shard b had taken all
// of them. It fails on a Konnect write during the move or an idle period,
// or on an entity more or less after the move.
func TestScaleShards(t *testing.T) {
	if os.Getenv("KONNECT_SCALE_SHARDS_N") == "" {
		t.Skip("set KONNECT_SCALE_SHARDS_N to a number of objects per shard (make bench-shards)")
	}
	n := scaleEnvInt(t, "KONNECT_SCALE_SHARDS_N", 5000)
	moveN := scaleEnvInt(t, "KONNECT_SCALE_SHARDS_MOVE", 1000)
	mode := scaleModeOf(t)
	ctx := t.Context()
	c := suite.cluster
	install(ctx, t, c, "manifests")

	// Organisations a and b for the two shards; c for the tree moved later,
	// made in shard a.
	tokens := []string{suite.sim.token, suite.sim.neighbours[0], suite.sim.neighbours[1]}
	shardOf := []string{"a", "b", "a"}
	for i, token := range tokens {
		shardTree(ctx, t, i, token, shardOf[i])
	}
	a1, a1Sampler := shardOperator(ctx, t, "shard-a-1", "a", true)
	b, bSampler := shardOperator(ctx, t, "shard-b", "b", true)
	a2, a2Sampler := shardOperator(ctx, t, "shard-a-2", "a", false)
	orgs := make([]*scaleOrg, len(tokens))
	for i := range tokens {
		orgs[i] = readyScaleOrg(ctx, t, c, orgScaleNamespace(i))
	}
	if !leads(ctx, a1) || leads(ctx, a2) || !leads(ctx, b) {
		t.Fatal("shard-a-1 and shard-b should lead, shard-a-2 wait")
	}
	if err := sleepWatching(ctx, a1, time.Second); err != nil {
		t.Fatal(err)
	}
	delayKonnect(ctx, t, mode.latency)
	timeline := &orgTimeline{}
	timing, stopTiming := context.WithCancel(ctx)
	defer stopTiming()
	go timeline.run(timing)
	log := &requestFollower{}
	go log.run(ctx, time.Now())

	// Round 1: both shards create n objects at once.
	oa, ob := orgs[0], orgs[1]
	if err := sleepWatching(ctx, b, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	start1 := timeline.latest()
	changer1 := &specChanger{c: c, namespace: ob.namespace}
	stopChanging := changeDuring(ctx, changer1, 2*n)
	created := createShardObjects(ctx, mode, n, 0, []*scaleOrg{oa, ob}, shardOf)
	if err := <-created; err != nil {
		t.Fatal(err)
	}
	waitShardRound(ctx, t, n, oa, a1, ob, b)
	stopChanging()
	round1 := changer1.latencies(ctx, t, log, 30*time.Second)
	a1Window, b1Window := windowOf(start1, timeline.at(oa.finished), oa.id), windowOf(start1, timeline.at(ob.finished), ob.id)
	a1Minutes, b1Minutes := timeline.minutes(start1.at, oa.finished, oa.id), timeline.minutes(start1.at, ob.finished, ob.id)

	// Round 2: both create n more; shard a's leader is killed once a
	// quarter of its objects are in Konnect.
	perOrg := oa.objects
	oa.finished, ob.finished = time.Time{}, time.Time{}
	start2 := timeline.latest()
	changer2 := &specChanger{c: c, namespace: ob.namespace, next: changer1.next}
	stopChanging = changeDuring(ctx, changer2, 2*n)
	created = createShardObjects(ctx, mode, n, oa.groups, []*scaleOrg{oa, ob}, shardOf)
	var killed time.Time
	for killed.IsZero() {
		if err := sleepWatching(ctx, b, time.Second); err != nil {
			t.Fatal(err)
		}
		if timeline.latest().orgs[oa.id].Entities-start2.orgs[oa.id].Entities >= perOrg/4 {
			a1.kill()
			killed = time.Now()
		}
	}
	aKilled, _ := a1Sampler.last()
	// What the killed leader had sent is answered within a second or two
	// of the kill; the first sample after that is what it left.
	if err := sleepWatching(ctx, b, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	left := timeline.latest()
	var tookOver, createsAgain time.Time
	for tookOver.IsZero() || createsAgain.IsZero() {
		if tookOver.IsZero() && leads(ctx, a2) {
			tookOver = time.Now()
		}
		if createsAgain.IsZero() {
			if s := timeline.latest(); s.orgs[oa.id].Entities > left.orgs[oa.id].Entities {
				createsAgain = s.at
			}
		}
		if err := sleepWatching(ctx, b, time.Second); err != nil {
			t.Fatal(err)
		}
		if time.Since(killed) > 5*time.Minute {
			t.Fatal("shard a's standby did not take over within 5 minutes of the kill")
		}
	}
	if err := <-created; err != nil {
		t.Fatal(err)
	}
	waitShardRound(ctx, t, n, oa, a2, ob, b)
	stopChanging()
	round2 := changer2.latencies(ctx, t, log, 30*time.Second)
	b2Window := windowOf(start2, timeline.at(ob.finished), ob.id)
	b2Minutes := timeline.minutes(start2.at, ob.finished, ob.id)
	aAfter := windowOf(timeline.at(createsAgain), timeline.at(oa.finished), oa.id)

	// An idle period in both shards: reads only.
	idleFrom, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	statusFrom := metricSum(ctx, t, a2, "konnect_operator_status_writes_total", nil) + metricSum(ctx, t, b, "konnect_operator_status_writes_total", nil)
	if err := sleepWatching(ctx, b, scaleIdle); err != nil {
		t.Fatal(err)
	}
	idleTo, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	idle := idleTo.sub(idleFrom)
	idleStatus := metricSum(ctx, t, a2, "konnect_operator_status_writes_total", nil) + metricSum(ctx, t, b, "konnect_operator_status_writes_total", nil) - statusFrom
	if idle.writes != 0 || idleStatus != 0 {
		t.Errorf("idle: %d Konnect writes (%v), %v status writes; want none", idle.writes, idle.byOperation, idleStatus)
	}
	aIdle, _ := a2Sampler.last()
	bIdle, _ := bSampler.last()

	// The move: a tree of moveN objects made in shard a, relabelled to b.
	om := orgs[2]
	groups, objects, groupOf := shardGroups(mode, moveN, om.namespace, "a")
	om.groups, om.objects = groups, objects
	if err := createInGroups(ctx, c, om.namespace, groups, scaleCreators, groupOf); err != nil {
		t.Fatal(err)
	}
	if err := waitOrgsProgrammed(ctx, a2, []*scaleOrg{om}, 5*time.Minute+time.Duration(moveN)*40*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := sleepWatching(ctx, b, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	moved := float64(objects + scaleControlPlanes + 1)
	objectsA := metricSum(ctx, t, a2, "konnect_operator_objects", nil)
	programmedB := metricSum(ctx, t, b, "konnect_operator_objects", map[string]string{"status": "True"})
	reconciledB := metricSum(ctx, t, b, "konnect_operator_reconcile_total", nil)
	statusB := metricSum(ctx, t, b, "konnect_operator_status_writes_total", nil)
	entities := timeline.latest().orgs[om.id].Entities
	moveFrom, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	relabelled := time.Now()
	label(ctx, t, om.namespace, "b")
	labelTook := time.Since(relabelled)
	var taken time.Duration
	err = eventually(ctx, 5*time.Minute, func(ctx context.Context) error {
		if got := objectsA - metricSum(ctx, t, a2, "konnect_operator_objects", nil); got != moved {
			return fmt.Errorf("shard a let go of %v objects, want %v", got, moved)
		}
		if got := metricSum(ctx, t, b, "konnect_operator_objects", map[string]string{"status": "True"}) - programmedB; got != moved {
			return fmt.Errorf("shard b holds %v more objects Programmed, want %v", got, moved)
		}
		if got := metricSum(ctx, t, b, "konnect_operator_reconcile_total", nil) - reconciledB; got < moved {
			return fmt.Errorf("shard b reconciled %v objects since the move, want %v", got, moved)
		}
		taken = time.Since(relabelled)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Past a sync period, in which shard b checks the tree for drift.
	if err := sleepWatching(ctx, b, scaleSyncPeriod+10*time.Second); err != nil {
		t.Fatal(err)
	}
	moveTo, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	move := moveTo.sub(moveFrom)
	after := timeline.latest().orgs[om.id].Entities
	if move.writes != 0 {
		t.Errorf("the move wrote to Konnect: %d writes (%v)", move.writes, move.byOperation)
	}
	if after != entities {
		t.Errorf("organisation c held %d entities before the move and %d after: want no duplicate and nothing deleted", entities, after)
	}
	moveStatus := metricSum(ctx, t, b, "konnect_operator_status_writes_total", nil) - statusB

	t.Logf("shard figures (KONNECT_SCALE_SHARDS_N=%d per shard and round: %s each; default flags and --shard, leader election on; simulator at %d requests/min per organisation, answering %s; load average before %s):\n"+
		"round 1, both shards creating at once: a: %s, requests in each whole clock minute %v; b: %s, %v\n"+
		"  spec changes in b: %s\n"+
		"round 2, shard a's leader killed once a quarter of a's objects were in Konnect: b: %s, %v (its creates a minute %.0f%% of round 1's)\n"+
		"  spec changes in b: %s\n"+
		"  shard a: the standby led %s after the kill and created again %s after it; from then: %s\n"+
		"idle %s in both: %d Konnect writes, %d reads, %v status writes\n"+
		"RSS: shard b peak %s, idle %s; shard a's standby peak %s, idle %s; shard a's first leader %s when killed\n"+
		"move of %v objects (an auth configuration, %d control planes, %s) from shard a to b: kubectl label took %s; shard b had taken and reconciled them all %s after it began; "+
		"%d Konnect writes and %d reads in the next %s; %v status writes by b; organisation c holds %d entities, %d before",
		n, mode.objects(oa.groups), simRateLimitPerMinute, mode.answering(), mode.load,
		a1Window, a1Minutes, b1Window, b1Minutes, round1,
		b2Window, b2Minutes, 100*b2Window.perMinute()/b1Window.perMinute(), round2,
		tookOver.Sub(killed).Round(time.Second), createsAgain.Sub(killed).Round(time.Second), aAfter,
		scaleIdle, idle.writes, idle.reads, idleStatus,
		mebibytes(bIdle.peakRSS), mebibytes(bIdle.rss), mebibytes(aIdle.peakRSS), mebibytes(aIdle.rss), mebibytes(aKilled.peakRSS),
		moved, scaleControlPlanes, mode.objects(om.groups), labelTook.Round(time.Second), taken.Round(time.Second),
		move.writes, move.reads, (taken + scaleSyncPeriod + 10*time.Second).Round(time.Second), moveStatus, after, entities)
}

// waitShardRound waits until each organisation's objects are Programmed,
// a by its shard's operator opA and b by opB.
func waitShardRound(ctx context.Context, t *testing.T, n int, a *scaleOrg, opA *operatorProcess, b *scaleOrg, opB *operatorProcess) {
	t.Helper()
	for _, o := range []struct {
		org *scaleOrg
		op  *operatorProcess
	}{{a, opA}, {b, opB}} {
		if err := waitOrgsProgrammed(ctx, o.op, []*scaleOrg{o.org}, 5*time.Minute+time.Duration(n)*40*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
}

// changeDuring changes consumers with changer every scaleChangeEvery
// until the returned function is called, which waits for it to stop.
func changeDuring(ctx context.Context, changer *specChanger, pairs int) (stop func()) {
	changing, stopChanging := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		changer.duringCreate(changing, pairs)
	}()
	return func() {
		stopChanging()
		<-done
	}
}

// createShardObjects creates, in each organisation's namespace and with
// its shard's label, the groups of n objects after the first from, the
// organisations at once. It adds them to each organisation's groups and
// objects and sends the outcome once all are created.
func createShardObjects(ctx context.Context, mode scaleMode, n, from int, orgs []*scaleOrg, shardOf []string) <-chan error {
	out := make(chan error, 1)
	errs := make(chan error, len(orgs))
	for i, o := range orgs {
		groups, objects, groupOf := shardGroups(mode, n, o.namespace, shardOf[i])
		o.groups, o.objects = o.groups+groups, o.objects+objects
		go func() {
			errs <- createInGroups(ctx, suite.cluster, o.namespace, groups, scaleCreators/len(orgs), func(i int) []*unstructured.Unstructured { return groupOf(from + i) })
		}()
	}
	go func() {
		var first error
		for range orgs {
			if err := <-errs; err != nil && first == nil {
				first = err
			}
		}
		out <- first
	}()
	return out
}

// TestScaleShardsOneOrganisation measures two shards that talk to one
// organisation, each with KONNECT_SCALE_SHARDS_N objects under an auth
// configuration of its own (one token): together they must stay within
// the organisation's budget, each following RateLimit-Remaining. It
// reports the organisation's creates a minute, its share of the budget and
// its 429s, and each shard's requests.
func TestScaleShardsOneOrganisation(t *testing.T) {
	if os.Getenv("KONNECT_SCALE_SHARDS_N") == "" {
		t.Skip("set KONNECT_SCALE_SHARDS_N to a number of objects per shard (make bench-shards)")
	}
	n := scaleEnvInt(t, "KONNECT_SCALE_SHARDS_N", 5000)
	mode := scaleModeOf(t)
	ctx := t.Context()
	c := suite.cluster
	install(ctx, t, c, "manifests")
	// The fourth organisation of the simulator, twice: namespaces
	// scale-org-d and scale-org-e, in shards one-d and one-e.
	token := suite.sim.neighbours[2]
	shards := []string{"one-d", "one-e"}
	var ops []*operatorProcess
	var samplers []*procSampler
	var org string
	for i, shard := range shards {
		shardTree(ctx, t, 3+i, token, shard)
		op, sampler := shardOperator(ctx, t, "shard-"+shard, shard, true)
		ops, samplers = append(ops, op), append(samplers, sampler)
		id, err := organizationOf(ctx, c, orgScaleNamespace(3+i))
		if err != nil {
			t.Fatal(err)
		}
		if org != "" && id != org {
			t.Fatalf("the two auth configurations are in organisations %s and %s, want one", org, id)
		}
		org = id
		if _, err := scaleControlPlaneIDsIn(ctx, c, orgScaleNamespace(3+i)); err != nil {
			t.Fatal(err)
		}
	}
	delayKonnect(ctx, t, mode.latency)
	timeline := &orgTimeline{}
	timing, stopTiming := context.WithCancel(ctx)
	defer stopTiming()
	go timeline.run(timing)
	if err := sleepWatching(ctx, ops[0], 2*time.Second); err != nil {
		t.Fatal(err)
	}
	start := timeline.latest()
	before := make([]map[string]*dto.MetricFamily, len(ops))
	for i, op := range ops {
		var err error
		if before[i], err = op.metrics(ctx); err != nil {
			t.Fatal(err)
		}
	}
	g := make(chan error, len(shards))
	parts := make([]*scaleOrg, len(shards))
	for i, shard := range shards {
		parts[i] = &scaleOrg{namespace: orgScaleNamespace(3 + i), id: org}
		groups, objects, groupOf := shardGroups(mode, n, parts[i].namespace, shard)
		parts[i].groups, parts[i].objects = groups, objects
		go func() { g <- createInGroups(ctx, c, parts[i].namespace, groups, scaleCreators/2, groupOf) }()
	}
	for range shards {
		if err := <-g; err != nil {
			t.Fatal(err)
		}
	}
	// Both parts are in one organisation: wait until it holds every
	// entity (cheap to ask), then until each part is Programmed.
	want := 2 * scaleControlPlanes
	for _, p := range parts {
		want += p.objects
	}
	var finished time.Time
	err := eventually(ctx, 5*time.Minute+time.Duration(n)*40*time.Millisecond, func(ctx context.Context) error {
		for _, op := range ops {
			if !op.running() {
				return fmt.Errorf("%s exited: %w", op.name, op.waitErr)
			}
		}
		if got := timeline.latest().orgs[org].Entities; got < want {
			return fmt.Errorf("%d of %d entities in Konnect", got, want)
		}
		for _, p := range parts {
			programmed, last, err := programmedIn(ctx, c, p.namespace, scaleKinds)
			if err != nil {
				return err
			}
			if programmed < p.objects {
				return fmt.Errorf("%s: %d of %d objects Programmed", p.namespace, programmed, p.objects)
			}
			finished = maxTime(finished, last)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	end := timeline.at(finished)
	w := windowOf(start, end, org)
	minutes := timeline.minutes(start.at, finished, org)
	var each []string
	for i, op := range ops {
		after, err := op.metrics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		share := orgShareOf(after, org).sub(orgShareOf(before[i], org))
		rss, _ := samplers[i].last()
		each = append(each, fmt.Sprintf("%s: %.0f requests, %.0f 429s, %.0f calls deferred, RSS peak %s", shards[i], share.requests, share.rateLimited, share.deferred, mebibytes(rss.peakRSS)))
	}
	t.Logf("one organisation, two shards (%d objects each: %s; default flags and --shard; simulator at %d requests/min, answering %s; load average before %s):\n"+
		"the organisation: %s; requests in each whole clock minute (its budget's window): %v\n%s",
		parts[0].objects, mode.objects(parts[0].groups), simRateLimitPerMinute, mode.answering(), mode.load,
		w, minutes, strings.Join(each, "\n"))
}
