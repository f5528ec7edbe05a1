package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// chaosWorld is one chaos test's world: the shipped manifests installed, a
// simulator of its own (its own organisation and faults), a namespace
// holding a token Secret, an auth configuration, a control plane, n
// services each with a route, and n consumers; and the operator processes
// that run against them, as the ServiceAccount.
type chaosWorld struct {
	t     *testing.T
	c     *clusterEnv
	name  string
	sim   *simulator
	ns    string
	n     int
	rng   *rand.Rand
	args  []string // the Deployment's
	extra []string // the world's own, after the harness's
	kube  string   // the ServiceAccount's kubeconfig
	ops   []*operatorProcess
	kills int
	// version is the spec version last applied; Konnect must end up with it.
	version int
}

var (
	routeKind    = schema.GroupVersionKind{Group: configurationGroup, Version: "v1alpha1", Kind: "KongRoute"}
	consumerKind = schema.GroupVersionKind{Group: configurationGroup, Version: "v1", Kind: "KongConsumer"}
	authKind     = schema.GroupVersionKind{Group: konnectGroup, Version: "v1alpha1", Kind: "KonnectAPIAuthConfiguration"}
)

// newChaosWorld sets up a world of 2n+2 Konnect objects (plus the token
// Secret) in the namespace chaos-<name>. The seed of its random moments is
// logged, so that a failure can be replayed.
func newChaosWorld(ctx context.Context, t *testing.T, name string, n int) *chaosWorld {
	t.Helper()
	c := suite.cluster
	install(ctx, t, c, "manifests")
	token, err := randomToken()
	if err != nil {
		t.Fatal(err)
	}
	sim, err := startSimulator(ctx, filepath.Join(suite.workDir, "chaos-"+name, "simulator"), token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.process.stop(5 * time.Second) })
	seed := uint64(time.Now().UnixNano())
	t.Logf("chaos %s: seed %d", name, seed)
	w := &chaosWorld{t: t, c: c, name: name, sim: sim, ns: "chaos-" + name, n: n, rng: rand.New(rand.NewPCG(seed, seed>>1))}
	if _, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.kube = filepath.Join(suite.workDir, "chaos-"+name, "serviceaccount.kubeconfig")
	if err := writeServiceAccountKubeconfig(ctx, c, w.kube); err != nil {
		t.Fatal(err)
	}
	if w.args, err = deploymentArgs(ctx, c); err != nil {
		t.Fatal(err)
	}
	w.extra = append(w.extra,
		"--konnect-ca-file="+sim.caFile,
		sim.allowedHostsArg(),
		"--watch-namespaces="+w.ns,
		"--leader-elect-resource-name=chaos-"+name,
		"--konnect-request-timeout=2s",
		"--konnect-rate-limit=25", "--konnect-burst=25",
		"--log-format=text",
	)
	t.Cleanup(func() {
		for _, op := range w.ops {
			if op.running() {
				if t.Failed() {
					t.Logf("%s log:\n%s", op.name, op.tail(4000))
				}
				op.stop(10 * time.Second)
			}
		}
	})
	// Runs before the operators and the simulator stop (cleanups run last
	// first), so that a failed test leaves nothing for the next ones.
	t.Cleanup(w.cleanUp)
	return w
}

// start runs one more operator; with leader election, it competes for the
// world's own Lease.
func (w *chaosWorld) start(leaderElect bool) *operatorProcess {
	w.t.Helper()
	name := fmt.Sprintf("chaos-%s-%d", w.name, len(w.ops))
	op, err := startOperator(name, w.kube, w.args, append(w.extra, fmt.Sprintf("--leader-elect=%v", leaderElect))...)
	if err != nil {
		w.t.Fatal(err)
	}
	w.ops = append(w.ops, op)
	return op
}

// kill sends SIGKILL to op, as an OOM kill or a node failure would.
func (w *chaosWorld) kill(op *operatorProcess) {
	op.kill()
	w.kills++
}

// pause waits a random moment between lo and hi.
func (w *chaosWorld) pause(lo, hi time.Duration) {
	time.Sleep(lo + time.Duration(w.rng.Int64N(int64(hi-lo)+1)))
}

// killRepeatedly SIGKILLs the single operator at random moments and starts
// a new one each time, times times, or until stop answers true. The first
// kill comes whatever stop says, within firstWithin of the call; the next
// ones between lo and hi apart. It returns the kills and when the first
// came.
func (w *chaosWorld) killRepeatedly(times int, firstWithin, lo, hi time.Duration, stop func() bool) (int, time.Time) {
	done := 0
	var first time.Time
	for done < times && (done == 0 || !stop()) {
		if done == 0 {
			w.pause(0, firstWithin)
			first = time.Now()
		} else {
			w.pause(lo, hi)
		}
		w.kill(w.ops[len(w.ops)-1])
		done++
		w.start(false)
	}
	return done, first
}

// writesSince counts the Konnect writes (anything but GET) that started
// after t: work that was left when something happened at t.
// waitWrites polls the simulator's log until it holds n writes since t.
func (w *chaosWorld) waitWrites(ctx context.Context, t time.Time, n int) {
	w.t.Helper()
	err := eventually(ctx, convergeLimit, func(ctx context.Context) error {
		if got := w.writesSince(ctx, t); got < n {
			return fmt.Errorf("%d writes to Konnect so far", got)
		}
		return nil
	})
	if err != nil {
		w.t.Fatalf("waiting for %d writes to Konnect: %v", n, err)
	}
}

func (w *chaosWorld) writesSince(ctx context.Context, t time.Time) int {
	w.t.Helper()
	log, err := w.requests(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	n := 0
	for _, r := range log {
		if r.Method != http.MethodGet && r.Time.After(t) {
			n++
		}
	}
	return n
}

// manifest is the world at spec version v: what changes between versions
// is every service's host, every route's path and every consumer's
// custom_id, so that Konnect shows which version it holds.
func (w *chaosWorld) manifest(v int) string {
	var b strings.Builder
	b.WriteString(controlPlaneWorld(w.sim.token, w.sim.url, w.ns))
	cpRef := "  controlPlaneRef:\n    type: konnectNamespacedRef\n    konnectNamespacedRef:\n      name: cp\n"
	for i := range w.n {
		fmt.Fprintf(&b, "---\napiVersion: configuration.konghq.com/v1alpha1\nkind: KongService\nmetadata:\n  name: svc-%d\nspec:\n  name: svc-%d\n  host: %s\n%s",
			i, i, serviceHost(i, v), cpRef)
		fmt.Fprintf(&b, "---\napiVersion: configuration.konghq.com/v1alpha1\nkind: KongRoute\nmetadata:\n  name: route-%d\nspec:\n  name: route-%d\n  paths: [%s]\n  serviceRef:\n    type: namespacedRef\n    namespacedRef:\n      name: svc-%d\n",
			i, i, routePath(i, v), i)
		fmt.Fprintf(&b, "---\napiVersion: configuration.konghq.com/v1\nkind: KongConsumer\nmetadata:\n  name: consumer-%d\nusername: consumer-%d\ncustom_id: %s\nspec:\n%s",
			i, i, consumerID(i, v), cpRef)
	}
	return b.String()
}

func serviceHost(i, v int) string { return fmt.Sprintf("svc-%d-v%d.example.com", i, v) }
func routePath(i, v int) string   { return fmt.Sprintf("/svc-%d/v%d", i, v) }
func consumerID(i, v int) string  { return fmt.Sprintf("consumer-%d-v%d", i, v) }

// apply applies spec version v server-side.
func (w *chaosWorld) apply(ctx context.Context, v int) {
	w.t.Helper()
	if _, err := w.c.kubectl(ctx, w.manifest(v), "apply", "--server-side", "-n", w.ns, "-f", "-"); err != nil {
		w.t.Fatal(err)
	}
	w.version = v
}

// objects counts the world's Konnect objects.
func (w *chaosWorld) objects() int { return 3*w.n + 2 }

// converged reports why the world is not yet what version w.version
// declares, in the cluster and in Konnect; nil when it is.
func (w *chaosWorld) converged(ctx context.Context) error {
	programmed := 0
	var notReady []string
	for _, gvk := range []schema.GroupVersionKind{authKind, controlPlaneKind, serviceKind, routeKind, consumerKind} {
		items, err := w.c.list(ctx, gvk, w.ns)
		if err != nil {
			return err
		}
		for i := range items {
			cond := conditionsOf(&items[i])[readyCondition(gvk.Kind)]
			if cond["status"] == "True" && cond["observedGeneration"] == fmt.Sprint(items[i].GetGeneration()) {
				programmed++
			} else if len(notReady) < 5 {
				notReady = append(notReady, fmt.Sprintf("%s %s (generation %d): %s", gvk.Kind, items[i].GetName(), items[i].GetGeneration(), describeCondition(cond)))
			}
		}
	}
	if programmed != w.objects() {
		return fmt.Errorf("%d of %d objects ready at their generation; not: %s", programmed, w.objects(), strings.Join(notReady, "; "))
	}
	return w.konnectHoldsTheLatestSpec(ctx)
}

// konnectEntity is what the checks read of an entity.
type konnectEntity struct {
	ID       string   `json:"id"`
	Tags     []string `json:"tags"`
	Host     string   `json:"host"`
	Paths    []string `json:"paths"`
	CustomID string   `json:"custom_id"`
}

// konnectHoldsTheLatestSpec checks that Konnect holds exactly one entity
// per object, found by the object's UID tag, each with the latest spec.
func (w *chaosWorld) konnectHoldsTheLatestSpec(ctx context.Context) error {
	var cps struct {
		Data []struct {
			ID     string            `json:"id"`
			Labels map[string]string `json:"labels"`
		} `json:"data"`
	}
	if err := w.sim.get(ctx, "/v2/control-planes", true, &cps); err != nil {
		return err
	}
	cp, err := w.c.get(ctx, controlPlaneKind, w.ns, "cp")
	if err != nil {
		return err
	}
	if len(cps.Data) != 1 || cps.Data[0].Labels[controller.TagKeyUID] != string(cp.GetUID()) {
		return fmt.Errorf("%d control planes in Konnect, want exactly the one labelled with the control plane's UID", len(cps.Data))
	}
	cpID := cps.Data[0].ID
	checks := []struct {
		gvk        schema.GroupVersionKind
		collection string
		prefix     string
		latest     func(i int, e konnectEntity) bool
	}{
		{serviceKind, "services", "svc-", func(i int, e konnectEntity) bool { return e.Host == serviceHost(i, w.version) }},
		{routeKind, "routes", "route-", func(i int, e konnectEntity) bool { return slices.Equal(e.Paths, []string{routePath(i, w.version)}) }},
		{consumerKind, "consumers", "consumer-", func(i int, e konnectEntity) bool { return e.CustomID == consumerID(i, w.version) }},
	}
	for _, check := range checks {
		var page struct {
			Data []konnectEntity `json:"data"`
		}
		if err := w.sim.get(ctx, "/v2/control-planes/"+cpID+"/core-entities/"+check.collection+"?size=1000", true, &page); err != nil {
			return err
		}
		byUID := map[string][]konnectEntity{}
		for _, e := range page.Data {
			for _, tag := range e.Tags {
				if uid, ok := strings.CutPrefix(tag, controller.TagKeyUID+":"); ok {
					byUID[uid] = append(byUID[uid], e)
				}
			}
		}
		items, err := w.c.list(ctx, check.gvk, w.ns)
		if err != nil {
			return err
		}
		if len(page.Data) != len(items) {
			return fmt.Errorf("%d %s in Konnect for %d objects", len(page.Data), check.collection, len(items))
		}
		for j := range items {
			found := byUID[string(items[j].GetUID())]
			if len(found) != 1 {
				return fmt.Errorf("%s %s: %d Konnect entities carry its UID tag, want 1", check.gvk.Kind, items[j].GetName(), len(found))
			}
			var i int
			if _, err := fmt.Sscanf(strings.TrimPrefix(items[j].GetName(), check.prefix), "%d", &i); err != nil {
				return err
			}
			if !check.latest(i, found[0]) {
				return fmt.Errorf("%s %s: Konnect holds %+v, not spec version %d", check.gvk.Kind, items[j].GetName(), found[0], w.version)
			}
		}
	}
	return nil
}

// waitConverged waits until converged and returns how long it took.
func (w *chaosWorld) waitConverged(ctx context.Context, since time.Time, limit time.Duration) time.Duration {
	w.t.Helper()
	if err := waitFor(ctx, limit, w.converged); err != nil {
		w.t.Fatalf("chaos %s: not converged: %v", w.name, err)
	}
	return time.Since(since)
}

// deleteNamespace deletes the world's namespace at once, as a user would.
func (w *chaosWorld) deleteNamespace(ctx context.Context) {
	w.t.Helper()
	if err := w.c.kube.CoreV1().Namespaces().Delete(ctx, w.ns, metav1.DeleteOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

// namespaceGone reports whether the namespace is deleted.
func (w *chaosWorld) namespaceGone(ctx context.Context) bool {
	_, err := w.c.kube.CoreV1().Namespaces().Get(ctx, w.ns, metav1.GetOptions{})
	return apierrors.IsNotFound(err)
}

// stuck lists what is left of the namespace: its objects of the operator's
// kinds and its Secrets, with their finalizers.
func (w *chaosWorld) stuck(ctx context.Context) []string {
	var left []string
	for _, gvk := range []schema.GroupVersionKind{authKind, controlPlaneKind, serviceKind, routeKind, consumerKind} {
		items, err := w.c.list(ctx, gvk, w.ns)
		if err != nil {
			return []string{err.Error()}
		}
		for _, item := range items {
			left = append(left, describeLeft(gvk.Kind, &item))
		}
	}
	secrets, err := w.c.kube.CoreV1().Secrets(w.ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, s := range secrets.Items {
			left = append(left, fmt.Sprintf("Secret %s (finalizers %v)", s.Name, s.Finalizers))
		}
	}
	return left
}

func describeCondition(c map[string]string) string {
	if c == nil {
		return "no condition yet"
	}
	return fmt.Sprintf("%s/%s at generation %s: %s", c["status"], c["reason"], c["observedGeneration"], c["message"])
}

func describeLeft(kind string, obj *unstructured.Unstructured) string {
	return fmt.Sprintf("%s %s (finalizers %v)", kind, obj.GetName(), obj.GetFinalizers())
}

// waitDeleted waits until the namespace is gone and Konnect holds nothing
// of the world's organisation, and returns how long it took; on a timeout
// it fails the test with what is stuck and what is left.
func (w *chaosWorld) waitDeleted(ctx context.Context, since time.Time, limit time.Duration) time.Duration {
	w.t.Helper()
	err := waitFor(ctx, limit, func(ctx context.Context) error {
		if !w.namespaceGone(ctx) {
			return fmt.Errorf("namespace %s still there; stuck: %s", w.ns, strings.Join(w.stuck(ctx), ", "))
		}
		n, err := w.sim.entities(ctx)
		if err != nil {
			return err
		}
		if n != 0 {
			return fmt.Errorf("%d entities left in Konnect", n)
		}
		return nil
	})
	if err != nil {
		w.t.Fatalf("chaos %s: %v", w.name, err)
	}
	return time.Since(since)
}

// checkNoViolations fails the test for every OpenAPI violation the
// world's simulator saw.
func (w *chaosWorld) checkNoViolations(ctx context.Context) {
	violations, err := w.sim.violations(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, v := range violations {
		w.t.Error(v)
	}
}

// requests returns the simulator's request log.
func (w *chaosWorld) requests(ctx context.Context) ([]simRequest, error) {
	var out []simRequest
	err := w.sim.get(ctx, "/_sim/requests", false, &out)
	return out, err
}

// simRequest is one entry of the simulator's request log.
type simRequest struct {
	Method      string    `json:"method"`
	OperationID string    `json:"operationId"`
	Status      int       `json:"status"`
	Time        time.Time `json:"time"`
}

// waitFor polls check every half second for up to limit and returns nil
// once it does, or its last answer that was not cut short by the deadline.
func waitFor(ctx context.Context, limit time.Duration, check func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("not done after %s: %w", limit, last)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("not done after %s: %w", limit, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// cleanUp deletes what a failed test left: the namespace, with an operator
// running to delete its entities, and, if it still does not go, the
// finalizers of what is stuck (reported), so that the tests that follow
// start from a clean cluster.
func (w *chaosWorld) cleanUp() {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if w.namespaceGone(ctx) {
		return
	}
	running := false
	for _, op := range w.ops {
		running = running || op.running()
	}
	if !running {
		w.start(false)
	}
	_ = w.c.kube.CoreV1().Namespaces().Delete(ctx, w.ns, metav1.DeleteOptions{})
	if waitFor(ctx, time.Minute, func(ctx context.Context) error {
		if !w.namespaceGone(ctx) {
			return fmt.Errorf("still there")
		}
		return nil
	}) == nil {
		return
	}
	stuck := w.stuck(ctx)
	w.t.Errorf("chaos %s: the namespace was not deleted after the test; removing the finalizers of %s", w.name, strings.Join(stuck, ", "))
	for _, gvk := range []schema.GroupVersionKind{authKind, controlPlaneKind, serviceKind, routeKind, consumerKind} {
		items, _ := w.c.list(ctx, gvk, w.ns)
		for i := range items {
			items[i].SetFinalizers(nil)
			if mapping, err := w.c.resource(gvk); err == nil {
				_, _ = w.c.dynamic.Resource(mapping.Resource).Namespace(w.ns).Update(ctx, &items[i], metav1.UpdateOptions{})
			}
		}
	}
	if secrets, err := w.c.kube.CoreV1().Secrets(w.ns).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range secrets.Items {
			secrets.Items[i].Finalizers = nil
			_, _ = w.c.kube.CoreV1().Secrets(w.ns).Update(ctx, &secrets.Items[i], metav1.UpdateOptions{})
		}
	}
}

// controlPlaneWorld is what the chaos and outage worlds declare first: a
// token Secret, the auth configuration "auth" that names it and serverURL,
// and the control plane "cp" (named name in Konnect).
func controlPlaneWorld(token, serverURL, name string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  name: konnect-token
  labels:
    konghq.com/credential: konnect
stringData:
  token: %s
---
apiVersion: konnect.konghq.com/v1alpha1
kind: KonnectAPIAuthConfiguration
metadata:
  name: auth
spec:
  type: secretRef
  secretRef:
    name: konnect-token
  serverURL: %s
---
apiVersion: konnect.konghq.com/v1alpha2
kind: KonnectGatewayControlPlane
metadata:
  name: cp
spec:
  createControlPlaneRequest:
    name: %s
    cluster_type: CLUSTER_TYPE_CONTROL_PLANE
  konnect:
    authRef:
      name: auth
`, token, serverURL, name)
}
