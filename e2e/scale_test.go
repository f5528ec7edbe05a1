package e2e

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The scale measurement: the promises of the operator binary, run with
// its default flags, for KONNECT_SCALE_N objects — consumers each with a
// key-auth credential, in a few control planes of one organisation —
// against the simulator's budget of 3,000 requests a minute. Left out of
// make test (the cold create alone takes N/3,000 minutes); `make
// bench-scale` runs it.
const (
	scaleNamespace     = "scale"
	scaleControlPlanes = 4
	// scaleSyncPeriod is the operator's default --sync-period.
	scaleSyncPeriod = time.Minute
	// scaleIdle is how long the operator is watched once everything is
	// Programmed: two and a half sync periods, two drift-detection passes.
	scaleIdle = 150 * time.Second
	// scaleCreators is how many objects are created at once in
	// Kubernetes, as pipelines applying large manifests would.
	scaleCreators = 16
	// scaleChangeEvery is how often a consumer's spec is changed while the
	// cold create runs.
	scaleChangeEvery = 5 * time.Second
	// scaleChangesAfter is how many spec changes are made, one a second,
	// once everything is Programmed.
	scaleChangesAfter = 20
	// scaleDriftChanges is how many consumers are changed in Konnect behind
	// the operator's back.
	scaleDriftChanges = 50
	// scaleListPage is the page size of the drift detection's lists.
	scaleListPage = 1000
)

// scaleKinds are the measurement's kinds, one of each per pair.
var scaleKinds = []schema.GroupVersionKind{consumerKind, apiKeyKind}

// TestScaleOfTheBuiltOperator measures, from the operator binary with its
// default flags (only the kubeconfig, the simulator's CA and loopback ports
// given) and the simulator at 3,000 requests a minute, what the README's
// Sizing section promises at KONNECT_SCALE_N objects: the cold create's
// share of Konnect's budget, spec-change latencies during and after it, an
// idle period's calls, status writes and CPU, how soon changes made in
// Konnect are overwritten, what a restart writes and how soon it has
// checked every object again, and the process's memory. It prints the
// figures; it fails only when the operator breaks a promise outright
// (writes while idle or after a restart, a change in Konnect left).
func TestScaleOfTheBuiltOperator(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("KONNECT_SCALE_N"))
	if err != nil || n <= 0 {
		t.Skip("set KONNECT_SCALE_N to a number of objects (make bench-scale)")
	}
	mode := scaleModeOf(t)
	consumers, objects, groupOf := mode.groups(n)
	collections := []string{"consumers", "key-auths"}
	if mode.oneKind {
		collections = collections[:1]
	}
	ctx := t.Context()
	c := suite.cluster
	install(ctx, t, c, "manifests")
	manifest := exportAuth(scaleNamespace, suite.sim.url, suite.sim.token)
	for i := range scaleControlPlanes {
		manifest += scaleControlPlaneManifest(i)
	}
	if _, err := c.kubectl(ctx, manifest, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(suite.workDir, "scale")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "serviceaccount.kubeconfig")
	if err := writeServiceAccountKubeconfig(ctx, c, kubeconfig); err != nil {
		t.Fatal(err)
	}
	// KONNECT_SCALE_PROFILE names a file for a CPU profile of the idle
	// period, KONNECT_SCALE_HEAP_PROFILE a prefix for heap profiles at its
	// end and after the restart (go tool pprof reads them). The profiler
	// also tells the live heap, which is always printed.
	profile := os.Getenv("KONNECT_SCALE_PROFILE")
	heapProfile := os.Getenv("KONNECT_SCALE_HEAP_PROFILE")
	heapProfileOf := func(phase string) string {
		if heapProfile == "" {
			return ""
		}
		return heapProfile + "-" + phase + ".pprof"
	}
	profilerPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	profiler := fmt.Sprintf("http://127.0.0.1:%d", profilerPort)
	op, err := startDefaultOperator("scale-operator", kubeconfig, "--profiler-address=127.0.0.1:"+strconv.Itoa(profilerPort))
	if err != nil {
		t.Fatal(err)
	}
	operators := []*operatorProcess{op}
	t.Cleanup(func() {
		for _, o := range operators {
			if t.Failed() {
				t.Logf("%s log:\n%s", o.name, o.tail(4000))
			}
			o.stop(20 * time.Second)
		}
	})
	if err := op.waitReady(ctx, 90*time.Second); err != nil {
		t.Fatal(err)
	}
	readyAt := time.Now()
	sampler := &procSampler{pid: op.cmd.Process.Pid}
	go sampler.run(ctx)
	controlPlaneIDs, err := scaleControlPlaneIDs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	log := &requestFollower{}
	go log.run(ctx, time.Now())
	delayKonnect(ctx, t, mode.latency)
	if err := pastReadySecond(ctx, op, readyAt); err != nil {
		t.Fatal(err)
	}

	// The cold create, with a consumer's spec changed every few seconds.
	before, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	atStart, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	startHeap, err := liveHeap(ctx, profiler, "")
	if err != nil {
		t.Fatal(err)
	}
	timeline := &totalsTimeline{}
	timing, stopTiming := context.WithCancel(ctx)
	timelineDone := make(chan struct{})
	go func() {
		defer close(timelineDone)
		timeline.run(timing)
	}()
	changer := &specChanger{c: c}
	changing, stopChanging := context.WithCancel(ctx)
	changerDone := make(chan struct{})
	go func() {
		defer close(changerDone)
		changer.duringCreate(changing, consumers)
	}()
	if err := createInGroups(ctx, c, scaleNamespace, consumers, scaleCreators, groupOf); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d objects created in Kubernetes in %s", objects, time.Since(atStart.at).Round(time.Second))
	finished, err := waitScaleProgrammed(ctx, t, c, op, sampler, objects, 2*time.Minute+time.Duration(objects)*40*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	stopChanging()
	<-changerDone
	stopTiming()
	<-timelineDone
	atProgrammed, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	// The create lasted until the last object became Programmed; the
	// requests are those the simulator had counted by then (the last
	// count taken before it: a second's worth fewer at most).
	if finished.After(atProgrammed.at) {
		finished = atProgrammed.at // seen within the second it happened
	}
	create := finished.Sub(atStart.at)
	created, ok := timeline.at(finished)
	if !ok {
		t.Fatalf("no count of the simulator's requests before %s", finished)
	}
	createCalls := created.sub(before)
	kubeWait, waits := 0.0, limiterWaits{}
	if families, err := op.metrics(ctx); err == nil {
		kubeWait = histogramSum(families, "rest_client_rate_limiter_duration_seconds")
		waits = limiterWaitsOf(families, "")
	}
	duringCreate := changer.latencies(ctx, t, log, 30*time.Second)
	t.Logf("all %d Programmed after %s", objects, create.Round(time.Second))

	// The idle period.
	idleFrom, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	idleCallsFrom, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	statusFrom, err := statusWritesByKind(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	profiled := make(chan error, 1)
	if profile != "" {
		go func() {
			profiled <- cpuProfile(ctx, profiler, scaleIdle-10*time.Second, profile)
		}()
	}
	if err := sleepWatching(ctx, op, scaleIdle); err != nil {
		t.Fatal(err)
	}
	if profile != "" {
		if err := <-profiled; err != nil {
			t.Errorf("CPU profile of the idle period: %v", err)
		} else {
			t.Logf("CPU profile of the idle period: %s", profile)
		}
	}
	idleTo, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	idleCallsTo, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	idleHeap, err := liveHeap(ctx, profiler, heapProfileOf("idle"))
	if err != nil {
		t.Fatal(err)
	}
	statusTo, err := statusWritesByKind(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	idleStatus := countsSince(statusFrom, statusTo)
	idleCalls := idleCallsTo.sub(idleCallsFrom)
	idleCPU := (idleTo.cpu - idleFrom.cpu).Seconds() / idleTo.at.Sub(idleFrom.at).Seconds()
	if idleCalls.writes != 0 || len(idleStatus) != 0 {
		t.Errorf("idle: %d Konnect writes (%v), status writes %v; want none", idleCalls.writes, idleCalls.byOperation, idleStatus)
	}

	// Spec changes once everything is Programmed.
	after := &specChanger{c: c, next: changer.next}
	for range scaleChangesAfter {
		after.changeNext(ctx, consumers)
		time.Sleep(time.Second)
	}
	afterCreate := after.latencies(ctx, t, log, 30*time.Second)

	// Changes made in Konnect, behind the operator's back.
	overwritten, left, err := changeInKonnect(ctx, c, log, controlPlaneIDs, consumers, after.next)
	if err != nil {
		t.Fatal(err)
	}
	if left > 0 {
		t.Errorf("%d of %d changes made in Konnect were not overwritten within two sync periods", left, scaleDriftChanges)
	}

	// A restart: the process killed and started again, nothing changed.
	peakRSS := idleTo.peakRSS
	if s, err := readProc(sampler.pid); err == nil {
		peakRSS = max(peakRSS, s.peakRSS)
	}
	op.kill()
	restartCallsFrom, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	restartedAt := time.Now()
	secondProfilerPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	secondProfiler := fmt.Sprintf("http://127.0.0.1:%d", secondProfilerPort)
	second, err := startDefaultOperator("scale-operator-restarted", kubeconfig, "--profiler-address=127.0.0.1:"+strconv.Itoa(secondProfilerPort))
	if err != nil {
		t.Fatal(err)
	}
	operators = append(operators, second)
	secondSampler := &procSampler{pid: second.cmd.Process.Pid}
	go secondSampler.run(ctx)
	if err := second.waitReady(ctx, 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	readyAfter := time.Since(restartedAt)
	if err := sleepWatching(ctx, second, 2*scaleSyncPeriod+30*time.Second-readyAfter); err != nil {
		t.Fatal(err)
	}
	restartCalls, err := simTotals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	restartCalls = restartCalls.sub(restartCallsFrom)
	restartStatus, err := statusWrites(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	checkedAfter, checked := log.listedEverything(restartedAt, controlPlaneIDs, consumers, collections)
	if restartCalls.writes != 0 || restartStatus != 0 {
		t.Errorf("after the restart: %d Konnect writes (%v), %v status writes; want none", restartCalls.writes, restartCalls.byOperation, restartStatus)
	}
	restarted, err := readProc(secondSampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	restartedHeap, err := liveHeap(ctx, secondProfiler, heapProfileOf("restarted"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sampler.failure(); err != nil {
		t.Logf("sampling /proc of the first process: %v", err)
	}

	perMinute := func(count int, d time.Duration) float64 { return float64(count) / d.Minutes() }
	checkedText := "not within the watch (" + (2*scaleSyncPeriod + 30*time.Second).String() + ")"
	if checked {
		checkedText = "after " + checkedAfter.Round(time.Second).String()
	}
	t.Logf("scale figures (KONNECT_SCALE_N=%d: %s in %d control planes; default flags; simulator at %d requests/min, answering %s; load average before %s):\n"+
		"cold create: %d objects Programmed in %s: %.0f creates/min; %d Konnect requests (%.2f an object: reads %v, writes %v), %.0f/min = %.1f%% of the budget; %d 429s; %.1f s waited at the Kubernetes client's rate limiter\n"+
		"workers blocked on the Konnect limiter: %s\n"+
		"spec changes during the cold create: %s\n"+
		"idle %s: %d Konnect list calls, %d Konnect writes, %v status writes; CPU %.2f%% of one core; RSS %s\n"+
		"spec changes after: %s\n"+
		"changes made in Konnect: %d of %d overwritten, the last %s after the change (sync period %s)\n"+
		"restart (killed, started again): ready after %s; %d Konnect writes, %v status writes, %d Konnect reads in %s; every object's drift checked %s; RSS peak %s, now %s\n"+
		"operator RSS: peak %s, idle %s; CPU while creating %.1f s (%.2f cores)\n"+
		"live heap after a collection: %s before the create, %s idle (%.2f KiB an object more), %s after the restart\n"+
		"| Objects | Cold create | Share of the budget | Spec change p99 (during / after) | Peak RSS | RSS idle | CPU idle | Restart: writes, drift checked |\n"+
		"|---:|---:|---:|---:|---:|---:|---:|---:|\n"+
		"| %d | %s | %.1f%% | %s / %s | %s | %s | %.1f%% | %d, %s |",
		n, mode.objects(consumers), scaleControlPlanes, simRateLimitPerMinute, mode.answering(), mode.load,
		objects, create.Round(time.Second), perMinute(objects, create), createCalls.total(),
		float64(createCalls.total())/float64(objects), createCalls.readsByOperation, createCalls.byOperation, perMinute(createCalls.total(), create),
		100*perMinute(createCalls.total(), create)/simRateLimitPerMinute, createCalls.rateLimited, kubeWait,
		waits,
		duringCreate,
		scaleIdle, idleCalls.reads, idleCalls.writes, totalOf(idleStatus), 100*idleCPU, mebibytes(idleTo.rss),
		afterCreate,
		scaleDriftChanges-left, scaleDriftChanges, overwritten.Round(100*time.Millisecond), scaleSyncPeriod,
		readyAfter.Round(time.Second), restartCalls.writes, restartStatus, restartCalls.reads, (2*scaleSyncPeriod + 30*time.Second).String(), checkedText,
		mebibytes(restarted.peakRSS), mebibytes(restarted.rss),
		mebibytes(peakRSS), mebibytes(idleTo.rss), (atProgrammed.cpu - atStart.cpu).Seconds(), (atProgrammed.cpu-atStart.cpu).Seconds()/create.Seconds(),
		mebibytes(startHeap), mebibytes(idleHeap), float64(idleHeap-startHeap)/1024/float64(objects), mebibytes(restartedHeap),
		objects, create.Round(time.Second), 100*perMinute(createCalls.total(), create)/simRateLimitPerMinute,
		duringCreate.p99(), afterCreate.p99(), mebibytes(peakRSS), mebibytes(idleTo.rss), 100*idleCPU, restartCalls.writes, checkedText)
}

func scaleControlPlaneName(i int) string { return fmt.Sprintf("scale-%d", i) }

func scaleControlPlaneManifest(i int) string {
	name := scaleControlPlaneName(i)
	return `---
apiVersion: konnect.konghq.com/v1alpha2
kind: KonnectGatewayControlPlane
metadata:
  name: ` + name + `
  namespace: ` + scaleNamespace + `
spec:
  createControlPlaneRequest:
    name: ` + name + `
    cluster_type: CLUSTER_TYPE_CONTROL_PLANE
  konnect:
    authRef:
      name: konnect
`
}

// scaleControlPlaneIDs waits until the control planes are Programmed and
// returns their Konnect IDs, in order.
func scaleControlPlaneIDs(ctx context.Context, c *clusterEnv) ([]string, error) {
	return scaleControlPlaneIDsIn(ctx, c, scaleNamespace)
}

// scaleControlPlaneIDsIn is scaleControlPlaneIDs for the control planes of
// namespace.
func scaleControlPlaneIDsIn(ctx context.Context, c *clusterEnv, namespace string) ([]string, error) {
	ids := make([]string, scaleControlPlanes)
	err := eventually(ctx, 2*time.Minute, func(ctx context.Context) error {
		for i := range ids {
			cp, err := c.get(ctx, controlPlaneKind, namespace, scaleControlPlaneName(i))
			if err != nil {
				return err
			}
			if status := conditionsOf(cp)["Programmed"]["status"]; status != "True" {
				return fmt.Errorf("control plane %s is not Programmed: %v", cp.GetName(), conditionsOf(cp)["Programmed"])
			}
			ids[i], _, _ = unstructured.NestedString(cp.Object, "status", "id")
			if ids[i] == "" {
				return fmt.Errorf("control plane %s has no ID", cp.GetName())
			}
		}
		return nil
	})
	return ids, err
}

func scaleConsumerName(i int) string { return fmt.Sprintf("customer-%06d", i) }

// scalePair returns consumer i, in control plane i mod scaleControlPlanes,
// and its key-auth credential.
func scalePair(i int) []*unstructured.Unstructured {
	name := scaleConsumerName(i)
	consumer := &unstructured.Unstructured{Object: map[string]any{"username": name, "spec": map[string]any{
		"controlPlaneRef": map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": scaleControlPlaneName(i % scaleControlPlanes)}},
	}}}
	credential := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"consumerRef": map[string]any{"name": name}, "key": "scale-key-" + name,
	}}}
	consumer.SetGroupVersionKind(consumerKind)
	credential.SetGroupVersionKind(apiKeyKind)
	for _, obj := range []*unstructured.Unstructured{consumer, credential} {
		obj.SetName(name)
		obj.SetNamespace(scaleNamespace)
	}
	return []*unstructured.Unstructured{consumer, credential}
}

// waitScaleProgrammed waits until Konnect holds want entities besides the
// control planes (the simulator counts them cheaply), then until want
// objects are Programmed (listing 100,000 objects is not cheap), and
// returns when the last of them became Programmed, as its condition says:
// the end of the operator's work, which the polling here sees seconds
// later.
func waitScaleProgrammed(ctx context.Context, t *testing.T, c *clusterEnv, op *operatorProcess, sampler *procSampler, want int, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	var lastLog time.Time
	inKonnect, programmed := 0, 0
	for {
		if !op.running() {
			return time.Time{}, fmt.Errorf("the operator exited: %w", op.waitErr)
		}
		var err error
		if inKonnect < want {
			if inKonnect, err = suite.sim.entities(ctx); err != nil {
				return time.Time{}, err
			}
			inKonnect -= scaleControlPlanes
		}
		if inKonnect >= want {
			var last time.Time
			if programmed, last, err = programmedIn(ctx, c, scaleNamespace, scaleKinds); err != nil {
				return time.Time{}, err
			}
			if programmed >= want {
				return last, nil
			}
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("%d of %d objects in Konnect, %d Programmed after %s", inKonnect, want, programmed, timeout)
		}
		if time.Since(lastLog) >= time.Minute {
			lastLog = time.Now()
			if s, ok := sampler.last(); ok {
				t.Logf("%d of %d in Konnect; RSS %s, CPU %.1f s", inKonnect, want, mebibytes(s.rss), s.cpu.Seconds())
			}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(sizingPoll):
		}
	}
}

// programmedIn counts the objects of kinds in namespace whose Programmed
// condition is True, and says when the last of them became so (the
// condition's time is to the second: the second after it is returned).
// ResourceVersion 0 lets the API server answer from its watch cache.
func programmedIn(ctx context.Context, c *clusterEnv, namespace string, kinds []schema.GroupVersionKind) (int, time.Time, error) {
	programmed := 0
	var last time.Time
	for _, gvk := range kinds {
		mapping, err := c.resource(gvk)
		if err != nil {
			return 0, time.Time{}, err
		}
		list, err := c.dynamic.Resource(mapping.Resource).Namespace(namespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return 0, time.Time{}, err
		}
		for i := range list.Items {
			cond := conditionsOf(&list.Items[i])["Programmed"]
			if cond["status"] != "True" {
				continue
			}
			programmed++
			if at, err := time.Parse(time.RFC3339, cond["lastTransitionTime"]); err == nil {
				last = maxTime(last, at.Add(time.Second))
			}
		}
	}
	return programmed, last, nil
}

// sleepWatching waits for d, failing if the operator exits meanwhile.
func sleepWatching(ctx context.Context, op *operatorProcess, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-op.exited:
		return fmt.Errorf("the operator exited: %w", op.waitErr)
	case <-time.After(d):
		return nil
	}
}

// statusWrites reads the operator's count of status writes.
func statusWrites(ctx context.Context, op *operatorProcess) (float64, error) {
	byKind, err := statusWritesByKind(ctx, op)
	if err != nil {
		return 0, err
	}
	return totalOf(byKind), nil
}

func totalOf(counts map[string]float64) float64 {
	total := 0.0
	for _, n := range counts {
		total += n
	}
	return total
}

// statusWritesByKind reads the operator's count of status writes of each
// kind.
func statusWritesByKind(ctx context.Context, op *operatorProcess) (map[string]float64, error) {
	families, err := op.metrics(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, m := range families["konnect_operator_status_writes_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "kind" {
				out[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	return out, nil
}

// countsSince is what each count of to added to from's, for the kinds
// whose count moved.
func countsSince(from, to map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for kind, n := range to {
		if n != from[kind] {
			out[kind] = n - from[kind]
		}
	}
	return out
}

// histogramSum adds up the sums of the histograms of family name.
func histogramSum(families map[string]*dto.MetricFamily, name string) float64 {
	total := 0.0
	for _, m := range families[name].GetMetric() {
		total += m.GetHistogram().GetSampleSum()
	}
	return total
}

// simTotalsT are the simulator's answers since it started.
type simTotalsT struct {
	reads, writes, rateLimited int
	// byOperation counts the writes by operation (after sub; before, every
	// call), readsByOperation the reads (after sub).
	byOperation, readsByOperation map[string]int
}

func (s simTotalsT) total() int { return s.reads + s.writes }

// sub returns what happened between earlier and s.
func (s simTotalsT) sub(earlier simTotalsT) simTotalsT {
	out := simTotalsT{reads: s.reads - earlier.reads, writes: s.writes - earlier.writes, rateLimited: s.rateLimited - earlier.rateLimited,
		byOperation: map[string]int{}, readsByOperation: map[string]int{}}
	for op, count := range s.byOperation {
		d := count - earlier.byOperation[op]
		switch {
		case d == 0:
		case strings.HasPrefix(op, http.MethodGet+" "):
			out.readsByOperation[op] = d
		default:
			out.byOperation[op] = d
		}
	}
	return out
}

// simTotals reads the simulator's counters of Konnect calls (the test's
// own calls to its /_sim/ API are not counted).
func simTotals(ctx context.Context) (simTotalsT, error) {
	var s simTotalsT
	if err := suite.sim.get(ctx, "/_sim/calls", false, &s.byOperation); err != nil {
		return s, err
	}
	for operation, count := range s.byOperation {
		if strings.HasPrefix(operation, http.MethodGet+" ") {
			s.reads += count
		} else {
			s.writes += count
		}
	}
	var served struct {
		RateLimited             int `json:"rateLimited"`
		RateLimitedWithoutDelay int `json:"rateLimitedWithoutDelay"`
	}
	if err := suite.sim.get(ctx, "/_sim/served", false, &served); err != nil {
		return s, err
	}
	s.rateLimited = served.RateLimited + served.RateLimitedWithoutDelay
	return s, nil
}

// requestFollower reads the simulator's request log every second and keeps
// what the measurement needs of it: when each entity was written, and the
// list pages the drift detection read.
type requestFollower struct {
	mu sync.Mutex
	// writes holds, per entity ID (the last segment of the path), when
	// it was written (PUT or PATCH).
	writes map[string][]time.Time
	lists  []listRead
	err    error
}

// listRead is one page of a collection read.
type listRead struct {
	at   time.Time
	path string
}

type loggedRequest struct {
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Status int       `json:"status"`
}

func (f *requestFollower) run(ctx context.Context, since time.Time) {
	for {
		var records []loggedRequest
		err := suite.sim.get(ctx, "/_sim/requests?since="+url.QueryEscape(since.Format(time.RFC3339Nano)), false, &records)
		f.mu.Lock()
		if err != nil && ctx.Err() == nil {
			f.err = err
		}
		if f.writes == nil {
			f.writes = map[string][]time.Time{}
		}
		for _, r := range records {
			// Requests are logged as they end: a later poll may still bring
			// one that began before the last seen; a second of overlap
			// catches them, and duplicates do not change a first write or
			// a page count much.
			since = maxTime(since, r.Time.Add(-time.Second))
			if r.Status/100 != 2 {
				continue
			}
			switch {
			case r.Method == http.MethodPut || r.Method == http.MethodPatch:
				id := r.Path[strings.LastIndexByte(r.Path, '/')+1:]
				if !slices.ContainsFunc(f.writes[id], r.Time.Equal) {
					f.writes[id] = append(f.writes[id], r.Time)
				}
			case r.Method == http.MethodGet && (strings.HasSuffix(r.Path, "/consumers") || strings.HasSuffix(r.Path, "/key-auths")):
				read := listRead{at: r.Time, path: r.Path}
				if !slices.Contains(f.lists, read) {
					f.lists = append(f.lists, read)
				}
			}
		}
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// firstWrite returns the first write of entity id after at.
func (f *requestFollower) firstWrite(id string, at time.Time) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var first time.Time
	for _, w := range f.writes[id] {
		if w.After(at) && (first.IsZero() || w.Before(first)) {
			first = w
		}
	}
	return first, !first.IsZero()
}

// listedEverything reports how long after from the drift detection had
// read every page of the consumers and key-auth credentials of every
// control plane, each holding its share of pairs.
func (f *requestFollower) listedEverything(from time.Time, controlPlaneIDs []string, pairs int, collections []string) (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var done time.Time
	for i, id := range controlPlaneIDs {
		perPlane := pairs / len(controlPlaneIDs)
		if i < pairs%len(controlPlaneIDs) {
			perPlane++
		}
		pages := max(1, int(math.Ceil(float64(perPlane)/scaleListPage)))
		for _, collection := range collections {
			var reads []time.Time
			for _, l := range f.lists {
				if l.at.After(from) && strings.Contains(l.path, id) && strings.HasSuffix(l.path, "/"+collection) {
					reads = append(reads, l.at)
				}
			}
			if len(reads) < pages {
				return 0, false
			}
			slices.SortFunc(reads, time.Time.Compare)
			done = maxTime(done, reads[pages-1])
		}
	}
	return done.Sub(from), true
}

// specChanger changes consumers' custom_id in Kubernetes, in order of
// creation, and times how long each change took to reach Konnect.
type specChanger struct {
	c *clusterEnv
	// namespace holds the consumers; scaleNamespace when empty.
	namespace string
	next      int
	changes   []specChange
}

type specChange struct {
	id string
	at time.Time
	// namespace, name and generation are the changed consumer's: the
	// change is over once its status reports that generation.
	namespace, name string
	generation      int64
	reported        bool
}

// duringCreate changes the next Programmed consumer every
// scaleChangeEvery until ctx ends.
func (s *specChanger) duringCreate(ctx context.Context, pairs int) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(scaleChangeEvery):
		}
		s.changeNext(ctx, pairs)
	}
}

// changeNext changes consumer s.next if it is Programmed, and moves on.
func (s *specChanger) changeNext(ctx context.Context, pairs int) {
	if s.next >= pairs {
		return
	}
	mapping, err := s.c.resource(consumerKind)
	if err != nil {
		return
	}
	namespace := s.namespace
	if namespace == "" {
		namespace = scaleNamespace
	}
	client := s.c.dynamic.Resource(mapping.Resource).Namespace(namespace)
	consumer, err := client.Get(ctx, scaleConsumerName(s.next), metav1.GetOptions{})
	if err != nil {
		return
	}
	id, _, _ := unstructured.NestedString(consumer.Object, "status", "konnect", "id")
	if id == "" || conditionsOf(consumer)["Programmed"]["status"] != "True" {
		return // not created in Konnect yet: a change would ride on its create
	}
	consumer.Object["custom_id"] = fmt.Sprintf("changed-%d", time.Now().UnixNano())
	// Timed from before the write: the operator hears of it by its watch
	// and may write to Konnect before this client has read the answer.
	at := time.Now()
	updated, err := client.Update(ctx, consumer, metav1.UpdateOptions{})
	if err != nil {
		return
	}
	s.changes = append(s.changes, specChange{id: id, at: at, namespace: namespace, name: updated.GetName(), generation: updated.GetGeneration()})
	s.next++
}

// unreported counts the changes whose consumer's status does not report
// them yet: the operator writes the status after Konnect has answered,
// and with Konnect a network away that is after the write reached it.
func (s *specChanger) unreported(ctx context.Context) int {
	mapping, err := s.c.resource(consumerKind)
	if err != nil {
		return len(s.changes)
	}
	left := 0
	for i := range s.changes {
		change := &s.changes[i]
		if change.reported {
			continue
		}
		consumer, err := s.c.dynamic.Resource(mapping.Resource).Namespace(change.namespace).Get(ctx, change.name, metav1.GetOptions{})
		if err == nil {
			observed, _, _ := unstructured.NestedInt64(consumer.Object, "status", "observedGeneration")
			change.reported = observed >= change.generation && conditionsOf(consumer)["Programmed"]["status"] == "True"
		}
		if !change.reported {
			left++
		}
	}
	return left
}

// changeLatencies are how long spec changes took to reach Konnect.
type changeLatencies struct {
	took []time.Duration
	lost int
}

func (l changeLatencies) quantile(q float64) time.Duration {
	if len(l.took) == 0 {
		return 0
	}
	sorted := slices.Clone(l.took)
	slices.Sort(sorted)
	return sorted[min(len(sorted)-1, int(math.Ceil(q*float64(len(sorted))))-1)]
}

func (l changeLatencies) p99() string {
	return l.quantile(0.99).Round(10 * time.Millisecond).String()
}

func (l changeLatencies) String() string {
	if len(l.took) == 0 {
		return fmt.Sprintf("none measured (%d lost)", l.lost)
	}
	return fmt.Sprintf("%d, p50 %s, p99 %s, max %s (%d not seen in Konnect)", len(l.took),
		l.quantile(0.5).Round(10*time.Millisecond), l.p99(), l.quantile(1).Round(10*time.Millisecond), l.lost)
}

// latencies waits up to wait for every change to be seen written in
// Konnect and reported in its object's status, and returns how long each
// took to reach Konnect. What follows (an idle period) then sees none of
// the changes' writes.
func (s *specChanger) latencies(ctx context.Context, t *testing.T, log *requestFollower, wait time.Duration) changeLatencies {
	deadline := time.Now().Add(wait)
	for {
		var out changeLatencies
		for _, change := range s.changes {
			if at, ok := log.firstWrite(change.id, change.at); ok {
				out.took = append(out.took, at.Sub(change.at))
			} else {
				out.lost++
			}
		}
		unreported := 0
		if out.lost == 0 {
			unreported = s.unreported(ctx)
		}
		if (out.lost == 0 && unreported == 0) || time.Now().After(deadline) || ctx.Err() != nil {
			if out.lost > 0 {
				t.Errorf("%d of %d spec changes not seen in Konnect within %s of the last", out.lost, len(s.changes), wait)
			}
			if unreported > 0 {
				t.Errorf("%d of %d spec changes seen in Konnect but not reported in their status within %s of the last", unreported, len(s.changes), wait)
			}
			return out
		}
		time.Sleep(time.Second)
	}
}

// changeInKonnect changes scaleDriftChanges consumers (from index from on)
// in Konnect through its API, as someone in Konnect's UI would, and
// returns how long after its change the last was overwritten, and how many
// were not within two sync periods.
func changeInKonnect(ctx context.Context, c *clusterEnv, log *requestFollower, controlPlaneIDs []string, pairs, from int) (time.Duration, int, error) {
	mapping, err := c.resource(consumerKind)
	if err != nil {
		return 0, 0, err
	}
	var changes []specChange
	for i := from; i < pairs && len(changes) < scaleDriftChanges; i++ {
		consumer, err := c.dynamic.Resource(mapping.Resource).Namespace(scaleNamespace).Get(ctx, scaleConsumerName(i), metav1.GetOptions{})
		if err != nil {
			return 0, 0, err
		}
		id, _, _ := unstructured.NestedString(consumer.Object, "status", "konnect", "id")
		path := "/v2/control-planes/" + controlPlaneIDs[i%scaleControlPlanes] + "/core-entities/consumers/" + id
		var entity map[string]any
		if err := suite.sim.get(ctx, path, true, &entity); err != nil {
			return 0, 0, err
		}
		entity["custom_id"] = fmt.Sprintf("changed-in-konnect-%d", i) // custom_id is unique
		delete(entity, "created_at")
		delete(entity, "updated_at")
		if err := suite.sim.do(ctx, http.MethodPut, path, true, entity, nil); err != nil {
			return 0, 0, err
		}
		changes = append(changes, specChange{id: id, at: time.Now()})
	}
	var last time.Duration
	deadline := time.Now().Add(2*scaleSyncPeriod + 30*time.Second)
	for {
		left := 0
		for _, change := range changes {
			if at, ok := log.firstWrite(change.id, change.at); ok {
				last = max(last, at.Sub(change.at))
			} else {
				left++
			}
		}
		if left == 0 || time.Now().After(deadline) {
			return last, left, nil
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// cpuProfile writes a CPU profile of d from a profiler at base to file.
func cpuProfile(ctx context.Context, base string, d time.Duration, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(d.Seconds())), nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", req.URL, res.Status)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(file, body, 0o600)
}

// totalsTimeline reads the simulator's request counts every second.
type totalsTimeline struct {
	mu      sync.Mutex
	samples []timedTotals
}

type timedTotals struct {
	at     time.Time
	totals simTotalsT
}

func (l *totalsTimeline) run(ctx context.Context) {
	for {
		totals, err := simTotals(ctx)
		if err == nil {
			l.mu.Lock()
			l.samples = append(l.samples, timedTotals{time.Now(), totals})
			l.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// at returns the last counts read at or before t.
func (l *totalsTimeline) at(t time.Time) (simTotalsT, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.samples) - 1; i >= 0; i-- {
		if !l.samples[i].at.After(t) {
			return l.samples[i].totals, true
		}
	}
	return simTotalsT{}, false
}
