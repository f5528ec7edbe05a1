package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The outage tests take Konnect, the API server or the leader away for a
// while and judge what the built operator did meanwhile and after by the
// simulator's request log and the Lease's times. Their world is a
// namespace of services, each with a route, under one control plane whose
// token lives in a Secret, a simulator of its own that answers as late as
// Konnect does (outageLatency), and operators that run with the
// Deployment's flags, a 30s sync period and leader election, as a user
// runs them.

// outageLength is how long Konnect stays away in the outage tests:
// $KONNECT_OUTAGE, or a minute, which is longer than the first steps of
// an object's own failure backoff (a minute of failures backs an object
// off for about 50 seconds), so that a release that waited for them would
// show. make test-outages runs five minutes.
var outageLength = durationFromEnv("KONNECT_OUTAGE", time.Minute)

// outageServices is how many services (each with a route) an outage
// world starts with: $KONNECT_OUTAGE_SERVICES, or 12.
var outageServices = intFromEnv("KONNECT_OUTAGE_SERVICES", 12)

// outageLatency is how late the outage worlds' simulator handles every
// Konnect request, as Konnect does across a network (100ms and more):
// $KONNECT_OUTAGE_LATENCY, a Go duration (0 for at once), or
// defaultOutageLatency. The simulator's own latency, not a fault, so that
// the tests' faults and their lifting leave it.
func outageLatency(t *testing.T) time.Duration {
	t.Helper()
	v := os.Getenv("KONNECT_OUTAGE_LATENCY")
	if v == "" {
		return defaultOutageLatency
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		t.Fatalf("KONNECT_OUTAGE_LATENCY=%q: want a duration such as 100ms, or 0", v)
	}
	return d
}

// defaultOutageLatency is the outage worlds' latency when
// $KONNECT_OUTAGE_LATENCY is not set, as in make test's runs: none. make
// test-outages, whose figures the documentation gives, sets 100ms.
const defaultOutageLatency = 0

func durationFromEnv(name string, fallback time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil && d > 0 {
		return d
	}
	return fallback
}

func intFromEnv(name string, fallback int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err == nil && n > 0 {
		return n
	}
	return fallback
}

// outageWorld is one outage test's world.
type outageWorld struct {
	t    *testing.T
	c    *clusterEnv
	name string
	ns   string
	sim  *simulator
	// latency is how late the simulator handles every Konnect request.
	latency time.Duration
	// token is what the token Secret holds.
	token string
	args  []string // the Deployment's
	extra []string // the world's own, after the harness's
	kube  string   // the ServiceAccount's kubeconfig
	ops   []*operatorProcess
	// replaced marks the replicas that exited and were started anew.
	replaced map[*operatorProcess]bool
	// versions is the spec version of each service index the cluster
	// declares; an index missing was deleted.
	versions map[int]int
}

// syncPeriodOfTheOutageTests is the operators' --sync-period, as the
// outages were first measured with.
const syncPeriodOfTheOutageTests = 30 * time.Second

// newOutageWorld sets up n services (and their routes) at version 1 in the
// namespace outage-<name> of c; extra flags come after the world's own.
func newOutageWorld(ctx context.Context, t *testing.T, c *clusterEnv, name string, n int, extra ...string) *outageWorld {
	t.Helper()
	install(ctx, t, c, "manifests")
	token, err := randomToken()
	if err != nil {
		t.Fatal(err)
	}
	latency := outageLatency(t)
	sim, err := startSimulator(ctx, filepath.Join(suite.workDir, "outage-"+name, "simulator"), token, nil, "--latency="+latency.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.process.stop(5 * time.Second) })
	w := &outageWorld{t: t, c: c, name: name, ns: "outage-" + name, sim: sim, latency: latency, token: token, versions: map[int]int{}, replaced: map[*operatorProcess]bool{}}
	for i := range n {
		w.versions[i] = 1
	}
	if _, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.kube = filepath.Join(suite.workDir, "outage-"+name, "serviceaccount.kubeconfig")
	if err := writeServiceAccountKubeconfig(ctx, c, w.kube); err != nil {
		t.Fatal(err)
	}
	if w.args, err = deploymentArgs(ctx, c); err != nil {
		t.Fatal(err)
	}
	w.extra = append([]string{
		"--konnect-ca-file=" + sim.caFile,
		sim.allowedHostsArg(),
		"--watch-namespaces=" + w.ns,
		"--leader-elect=true",
		"--leader-elect-resource-name=" + w.leaseName(),
		"--sync-period=" + syncPeriodOfTheOutageTests.String(),
		"--log-format=text",
	}, extra...)
	t.Cleanup(func() {
		for _, op := range w.ops {
			if op.running() {
				if t.Failed() {
					t.Logf("%s log:\n%s", op.name, op.tail(6000))
				}
				op.stop(10 * time.Second)
			}
		}
	})
	// Before the operators and the simulator stop (cleanups run last
	// first), so that a failed test leaves nothing for the next ones.
	t.Cleanup(w.cleanUp)
	return w
}

func (w *outageWorld) leaseName() string { return "outage-" + w.name }

// answering says how late the simulator answers, for the figures.
func (w *outageWorld) answering() string {
	if w.latency == 0 {
		return "the simulator answering at once"
	}
	return "the simulator answering " + w.latency.String() + " late"
}

// checkAnsweredLate fails the test for a request of log that the
// simulator answered sooner than its latency: the figures would not be
// the ones they say.
func (w *outageWorld) checkAnsweredLate(log requestLog) {
	w.t.Helper()
	for _, r := range log {
		if r.Status != 0 && r.Duration < w.latency {
			w.t.Errorf("%s %s was answered %s after it reached the simulator, sooner than its latency %s", r.Method, r.Path, r.Duration, w.latency)
			return
		}
	}
}

// start runs one more replica; it competes for the world's Lease.
func (w *outageWorld) start() *operatorProcess {
	w.t.Helper()
	op, err := startOperator(fmt.Sprintf("outage-%s-%d", w.name, len(w.ops)), w.kube, w.args, w.extra...)
	if err != nil {
		w.t.Fatal(err)
	}
	w.ops = append(w.ops, op)
	return op
}

// restartExited starts a replica in place of each that exited, as the
// kubelet restarts a container, and returns how many it started.
func (w *outageWorld) restartExited() int {
	w.t.Helper()
	started := 0
	for _, op := range slices.Clone(w.ops) {
		if !op.running() && !w.replaced[op] {
			w.replaced[op] = true
			w.start()
			started++
		}
	}
	return started
}

// leader waits until a running replica other than not holds the world's
// Lease, and returns it and the Lease.
func (w *outageWorld) leader(ctx context.Context, not *operatorProcess) (*operatorProcess, *leaseTimes) {
	w.t.Helper()
	var found *operatorProcess
	var times *leaseTimes
	err := eventually(ctx, leaseDuration+patience, func(ctx context.Context) error {
		lt, err := w.lease(ctx)
		if err != nil {
			return err
		}
		for _, op := range w.ops {
			if op != not && op.running() && op.identity() == lt.holder {
				found, times = op, lt
				return nil
			}
		}
		return fmt.Errorf("the Lease is held by %q", lt.holder)
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return found, times
}

// leaseTimes is what the world's Lease says.
type leaseTimes struct {
	holder            string
	acquired, renewed time.Time
	duration          time.Duration
	transitions       int32
}

func (w *outageWorld) lease(ctx context.Context) (*leaseTimes, error) {
	lease, err := w.c.kube.CoordinationV1().Leases(operatorNamespace).Get(ctx, w.leaseName(), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	lt := &leaseTimes{}
	if s := lease.Spec; s.HolderIdentity != nil {
		lt.holder = *s.HolderIdentity
	}
	if s := lease.Spec; s.AcquireTime != nil {
		lt.acquired = s.AcquireTime.Time
	}
	if s := lease.Spec; s.RenewTime != nil {
		lt.renewed = s.RenewTime.Time
	}
	if s := lease.Spec; s.LeaseDurationSeconds != nil {
		lt.duration = time.Duration(*s.LeaseDurationSeconds) * time.Second
	}
	if s := lease.Spec; s.LeaseTransitions != nil {
		lt.transitions = *s.LeaseTransitions
	}
	return lt, nil
}

func serviceHostOf(i, v int) string { return fmt.Sprintf("svc-%d-v%d.example.com", i, v) }
func routePathOf(i, v int) string   { return fmt.Sprintf("/svc-%d/v%d", i, v) }

// manifest is what the world declares: its token Secret, auth
// configuration, control plane, and each service of versions with its
// route.
func (w *outageWorld) manifest() string {
	var b strings.Builder
	b.WriteString(controlPlaneWorld(w.token, w.sim.url, w.ns))
	for _, i := range w.indices() {
		v := w.versions[i]
		fmt.Fprintf(&b, "---\napiVersion: configuration.konghq.com/v1alpha1\nkind: KongService\nmetadata:\n  name: svc-%d\nspec:\n  name: svc-%d\n  host: %s\n  controlPlaneRef:\n    type: konnectNamespacedRef\n    konnectNamespacedRef:\n      name: cp\n",
			i, i, serviceHostOf(i, v))
		fmt.Fprintf(&b, "---\napiVersion: configuration.konghq.com/v1alpha1\nkind: KongRoute\nmetadata:\n  name: route-%d\nspec:\n  name: route-%d\n  paths: [%s]\n  serviceRef:\n    type: namespacedRef\n    namespacedRef:\n      name: svc-%d\n",
			i, i, routePathOf(i, v), i)
	}
	return b.String()
}

// indices are the service indices the world declares, in order.
func (w *outageWorld) indices() []int {
	out := make([]int, 0, len(w.versions))
	for i := range w.versions {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// apply applies what the world declares server-side, and deletes the
// services (and routes) of deleted, as a user's CI would.
func (w *outageWorld) apply(ctx context.Context, deleted ...int) {
	w.t.Helper()
	if _, err := w.c.kubectl(ctx, w.manifest(), "apply", "--server-side", "-n", w.ns, "-f", "-"); err != nil {
		w.t.Fatal(err)
	}
	if len(deleted) == 0 {
		return
	}
	args := []string{"delete", "-n", w.ns, "--wait=false"}
	for _, i := range deleted {
		args = append(args, fmt.Sprintf("kongroute/route-%d", i), fmt.Sprintf("kongservice/svc-%d", i))
	}
	if _, err := w.c.kubectl(ctx, "", args...); err != nil {
		w.t.Fatal(err)
	}
}

// objects counts the world's Konnect objects: auth configuration, control
// plane, services and routes.
func (w *outageWorld) objects() int { return 2 + 2*len(w.versions) }

// converged reports why the world is not yet what it declares, in the
// cluster and in Konnect; nil when it is.
func (w *outageWorld) converged(ctx context.Context) error {
	ready, want := 0, w.objects()
	var notReady []string
	for _, gvk := range []schema.GroupVersionKind{authKind, controlPlaneKind, serviceKind, routeKind} {
		items, err := w.c.list(ctx, gvk, w.ns)
		if err != nil {
			return err
		}
		for i := range items {
			cond := conditionsOf(&items[i])[readyCondition(gvk.Kind)]
			switch {
			case items[i].GetDeletionTimestamp() != nil:
				notReady = append(notReady, fmt.Sprintf("%s %s is being deleted", gvk.Kind, items[i].GetName()))
			case cond["status"] == "True" && cond["observedGeneration"] == fmt.Sprint(items[i].GetGeneration()):
				ready++
			default:
				notReady = append(notReady, fmt.Sprintf("%s %s (generation %d): %s", gvk.Kind, items[i].GetName(), items[i].GetGeneration(), describeCondition(cond)))
			}
		}
	}
	if ready != want || len(notReady) > 0 {
		return fmt.Errorf("%d of %d objects ready at their generation; not: %s", ready, want, strings.Join(first(notReady, 5), "; "))
	}
	return w.konnectHoldsTheDeclaredSpec(ctx)
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }

// waitConverged waits until the world converged and returns when it saw so.
func (w *outageWorld) waitConverged(ctx context.Context, limit time.Duration) time.Time {
	w.t.Helper()
	if err := waitFor(ctx, limit, w.converged); err != nil {
		w.t.Fatalf("outage %s: not converged: %v", w.name, err)
	}
	return time.Now()
}

// cleanUp deletes the world's namespace with an operator running, as the
// chaos tests do, so that a failed test leaves nothing behind.
func (w *outageWorld) cleanUp() {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if _, err := w.c.kube.CoreV1().Namespaces().Get(ctx, w.ns, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return
	}
	_ = w.sim.do(ctx, "DELETE", "/_sim/faults", false, nil, nil)
	running := false
	for _, op := range w.ops {
		running = running || op.running()
	}
	if !running {
		w.start()
	}
	_ = w.c.kube.CoreV1().Namespaces().Delete(ctx, w.ns, metav1.DeleteOptions{})
	err := waitFor(ctx, 2*time.Minute, func(ctx context.Context) error {
		if _, err := w.c.kube.CoreV1().Namespaces().Get(ctx, w.ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s still there", w.ns)
		}
		return w.sim.empty(ctx)
	})
	if err != nil {
		w.t.Errorf("outage %s: the world was not deleted after the test: %v", w.name, err)
	}
}
