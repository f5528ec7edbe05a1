package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
