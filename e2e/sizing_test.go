package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The sizing measurement: what the operator binary, run with its default
// flags, costs in memory and CPU for a number of entities. Left out of make
// test (minutes); `make bench-sizing` runs it.
const (
	sizingNamespace    = "sizing"
	sizingControlPlane = "sizing"
	// sizingIdle is how long the operator is watched once everything is
	// Programmed: two and a half of its default one-minute sync periods, so
	// that the idle figures include two drift-detection passes.
	sizingIdle = 150 * time.Second
	// sizingPoll is how often the objects are listed while they are being
	// programmed: listing thousands of objects costs CPU on a machine the
	// operator shares, so not every 200ms as eventually does.
	sizingPoll = 2 * time.Second
	// sizingCreators is how many objects are created at once, as a
	// pipeline applying a large manifest would.
	sizingCreators = 8
)

var apiKeyKind = schema.GroupVersionKind{Group: configurationGroup, Version: "v1alpha1", Kind: "KongCredentialAPIKey"}

// sizingKinds is the mix of the measurement, in the order a group of it is
// created: a service, its route, a consumer and the consumer's key-auth
// credential.
var sizingKinds = []schema.GroupVersionKind{serviceKind, routeKind, consumerKind, apiKeyKind}

// TestSizingOfTheBuiltOperator measures the operator binary with its
// default flags (only the kubeconfig, the simulator's CA and loopback ports
// given) against the simulator's Konnect budget of 3,000 requests a minute:
// KONNECT_SIZING_N entities are created in one control plane, and /proc
// tells the operator's memory and CPU until all are Programmed and then
// over two idle sync periods. It prints the figures the README's Sizing
// section and the chart's default resources come from.
func TestSizingOfTheBuiltOperator(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("KONNECT_SIZING_N"))
	if err != nil || n <= 0 {
		t.Skip("set KONNECT_SIZING_N to a number of entities (make bench-sizing)")
	}
	groups := (n + len(sizingKinds) - 1) / len(sizingKinds)
	entities := groups * len(sizingKinds)
	ctx := t.Context()
	c := suite.cluster
	install(ctx, t, c, "manifests")
	if _, err := c.kubectl(ctx, exportAuth(sizingNamespace, suite.sim.url, suite.sim.token)+sizingControlPlaneManifest, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	// The namespace is left as it is: deleting thousands of entities would
	// take minutes of Konnect's budget, and the control plane goes with the
	// suite.
	op := startMeasuredOperator(ctx, t, c, "sizing")
	sampler := &procSampler{pid: op.cmd.Process.Pid}
	go sampler.run(ctx)
	err = eventually(ctx, patience, func(ctx context.Context) error {
		cp, err := c.get(ctx, controlPlaneKind, sizingNamespace, sizingControlPlane)
		if err != nil {
			return err
		}
		if status := conditionsOf(cp)["Programmed"]["status"]; status != "True" {
			return fmt.Errorf("the control plane is not Programmed: %v", conditionsOf(cp)["Programmed"])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// From here on the simulator counts the entities' requests only.
	if err := suite.sim.do(ctx, http.MethodDelete, "/_sim/calls", false, nil, nil); err != nil {
		t.Fatal(err)
	}

	atStart, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := createInGroups(ctx, c, sizingNamespace, groups, sizingCreators, sizingGroup); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d objects created in %s", entities, time.Since(atStart.at).Round(time.Millisecond))
	if err := waitProgrammed(ctx, t, c, op, sampler, entities, 2*time.Minute+time.Duration(entities)*100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	atProgrammed, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	createReads, createWrites, err := simCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("all %d Programmed after %s; idle for %s", entities, atProgrammed.at.Sub(atStart.at).Round(time.Second), sizingIdle)

	select {
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	case <-op.exited:
		t.Fatalf("the operator exited while idle: %v", op.waitErr)
	case <-time.After(sizingIdle):
	}
	atEnd, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	reads, writes, err := simCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	heap := "?"
	if families, err := op.metrics(ctx); err != nil {
		t.Logf("no heap figure: %v", err)
	} else {
		heap = mebibytes(int64(sumMetric(families, "go_memstats_heap_inuse_bytes", nil)))
	}
	idle := sampler.since(atProgrammed.at)
	lowest, highest := atEnd.rss, atEnd.rss
	for _, s := range idle {
		lowest, highest = min(lowest, s.rss), max(highest, s.rss)
	}
	if err := sampler.failure(); err != nil {
		t.Errorf("sampling /proc: %v", err)
	}

	create := atProgrammed.at.Sub(atStart.at)
	createCPU := atProgrammed.cpu - atStart.cpu
	idleCPU := atEnd.cpu - atProgrammed.cpu
	t.Logf("while idle: RSS between %s and %s over %d samples; Go heap in use at the end %s; %d reads and %d writes to Konnect",
		mebibytes(lowest), mebibytes(highest), len(idle), heap, reads-createReads, writes-createWrites)
	t.Logf("sizing figures (KONNECT_SIZING_N=%d):\n"+
		"| Entities | To Programmed | Peak RSS | RSS idle | CPU during create | CPU idle | Konnect calls (create + idle) |\n"+
		"|---:|---:|---:|---:|---:|---:|---:|\n"+
		"| %d | %s | %s | %s | %.1f s (%.2f cores) | %.3f cores | %d + %d |",
		n, entities, create.Round(time.Second), mebibytes(atEnd.peakRSS), mebibytes(atEnd.rss),
		createCPU.Seconds(), createCPU.Seconds()/create.Seconds(), idleCPU.Seconds()/atEnd.at.Sub(atProgrammed.at).Seconds(),
		createReads+createWrites, reads+writes-createReads-createWrites)
}

// sizingControlPlaneManifest is the control plane every entity of the
// measurement belongs to (it follows exportAuth's auth configuration).
const sizingControlPlaneManifest = `---
apiVersion: konnect.konghq.com/v1alpha2
kind: KonnectGatewayControlPlane
metadata:
  name: ` + sizingControlPlane + `
  namespace: ` + sizingNamespace + `
spec:
  createControlPlaneRequest:
    name: ` + sizingControlPlane + `
    cluster_type: CLUSTER_TYPE_CONTROL_PLANE
  konnect:
    authRef:
      name: konnect
`

// startMeasuredOperator runs the operator binary that a measurement
// measures, named name+"-operator": its default flags (and extra, see
// startDefaultOperator), the ServiceAccount's rights through a kubeconfig
// in the suite's folder name, its log shown if the test fails, and stopped
// when it ends. It returns once the operator is ready.
func startMeasuredOperator(ctx context.Context, t *testing.T, c *clusterEnv, name string, extra ...string) *operatorProcess {
	t.Helper()
	op, err := startDefaultOperator(name+"-operator", serviceAccountKubeconfig(ctx, t, c, name), extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s log:\n%s", op.name, op.tail(4000))
		}
		op.stop(20 * time.Second)
	})
	if err := op.waitReady(ctx, 90*time.Second); err != nil {
		t.Fatal(err)
	}
	return op
}

// serviceAccountKubeconfig writes a kubeconfig with the operator's
// ServiceAccount's rights into the suite's folder name and returns its path.
func serviceAccountKubeconfig(ctx context.Context, t *testing.T, c *clusterEnv, name string) string {
	t.Helper()
	dir := filepath.Join(suite.workDir, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "serviceaccount.kubeconfig")
	if err := writeServiceAccountKubeconfig(ctx, c, kubeconfig); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}

// startDefaultOperator runs the operator binary as a user would outside a
// cluster: its default flags, with only what it cannot run without here
// (the ServiceAccount's kubeconfig, the simulator's CA) and free loopback
// ports in place of the default :8443 and :8081.
// extra flags are added to the defaults (a profiler address, which changes
// nothing of the work).
func startDefaultOperator(name, kubeconfig string, extra ...string) (*operatorProcess, error) {
	metricsPort, err := freePort()
	if err != nil {
		return nil, err
	}
	healthPort, err := freePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--konnect-ca-file=" + suite.sim.caFile,
		suite.sim.allowedHostsArg(),
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort),
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(healthPort),
	}, extra...)
	p, err := startProcess(filepath.Join(suite.workDir, "operators"), name, []string{"POD_NAMESPACE=" + operatorNamespace},
		filepath.Join(suite.binDir, "konnect-operator"), args...)
	if err != nil {
		return nil, err
	}
	return &operatorProcess{
		process:    p,
		metricsURL: fmt.Sprintf("https://127.0.0.1:%d/metrics", metricsPort),
		healthURL:  fmt.Sprintf("http://127.0.0.1:%d", healthPort),
	}, nil
}

// createInGroups creates, in namespace, the objects groupOf returns for
// each of groups groups, creators groups at a time, as pipelines applying
// large manifests would.
func createInGroups(ctx context.Context, c *clusterEnv, namespace string, groups, creators int, groupOf func(int) []*unstructured.Unstructured) error {
	next := make(chan int)
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(next)
		for i := range groups {
			select {
			case next <- i:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	for range creators {
		g.Go(func() error {
			for i := range next {
				for _, obj := range groupOf(i) {
					mapping, err := c.resource(obj.GroupVersionKind())
					if err != nil {
						return err
					}
					if _, err := c.dynamic.Resource(mapping.Resource).Namespace(namespace).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
						return fmt.Errorf("create %s %s: %w", obj.GetKind(), obj.GetName(), err)
					}
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// sizingGroup returns the objects of group i, one of each of sizingKinds,
// in that order.
func sizingGroup(i int) []*unstructured.Unstructured {
	name := fmt.Sprintf("app-%05d", i)
	controlPlaneRef := func() map[string]any {
		return map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": sizingControlPlane}}
	}
	return []*unstructured.Unstructured{
		sizingObject(serviceKind, name, map[string]any{"spec": map[string]any{
			"name": name, "host": name + ".example.com", "port": int64(443), "protocol": "https",
			"controlPlaneRef": controlPlaneRef(),
		}}),
		sizingObject(routeKind, name, map[string]any{"spec": map[string]any{
			"name": name, "protocols": []any{"http", "https"}, "paths": []any{"/" + name},
			"serviceRef": map[string]any{"type": "namespacedRef", "namespacedRef": map[string]any{"name": name}},
		}}),
		sizingObject(consumerKind, name, map[string]any{"username": name, "spec": map[string]any{
			"controlPlaneRef": controlPlaneRef(),
		}}),
		sizingObject(apiKeyKind, name, map[string]any{"spec": map[string]any{
			"consumerRef": map[string]any{"name": name}, "key": "sizing-key-" + name,
		}}),
	}
}

func sizingObject(gvk schema.GroupVersionKind, name string, content map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: content}
	obj.SetGroupVersionKind(gvk)
	obj.SetName(name)
	obj.SetNamespace(sizingNamespace)
	return obj
}

// waitProgrammed lists the measurement's objects every sizingPoll until
// want of them are Programmed, and logs the progress now and then.
func waitProgrammed(ctx context.Context, t *testing.T, c *clusterEnv, op *operatorProcess, sampler *procSampler, want int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var lastLog time.Time
	for {
		if !op.running() {
			return fmt.Errorf("the operator exited: %w", op.waitErr)
		}
		programmed, err := countProgrammed(ctx, c)
		if err != nil {
			return err
		}
		if programmed >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d objects Programmed after %s", programmed, want, timeout)
		}
		if time.Since(lastLog) >= 20*time.Second {
			lastLog = time.Now()
			if s, ok := sampler.last(); ok {
				t.Logf("%d of %d Programmed; RSS %s, CPU %.1f s", programmed, want, mebibytes(s.rss), s.cpu.Seconds())
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(sizingPoll):
		}
	}
}

// countProgrammed counts the measurement's objects whose Programmed
// condition is True. ResourceVersion 0 lets the API server answer from its
// watch cache, the cheapest list there is.
func countProgrammed(ctx context.Context, c *clusterEnv) (int, error) {
	n, _, err := programmedIn(ctx, c, sizingNamespace, sizingKinds)
	return n, err
}

// simCalls returns how many reads (GET) and writes the simulator has
// answered since its counters were last reset.
func simCalls(ctx context.Context) (reads, writes int, err error) {
	var calls map[string]int
	if err := suite.sim.get(ctx, "/_sim/calls", false, &calls); err != nil {
		return 0, 0, err
	}
	for operation, n := range calls {
		if strings.HasPrefix(operation, http.MethodGet+" ") {
			reads += n
		} else {
			writes += n
		}
	}
	return reads, writes, nil
}

func mebibytes(bytes int64) string {
	return fmt.Sprintf("%.0f MiB", float64(bytes)/(1<<20))
}
