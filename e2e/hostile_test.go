package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The hostile-server measurement: what the operator binary, run with its
// default flags, costs while one tenant's auth configuration names a
// server of the tenant's own that pages without end, answers every
// request with a body of 1 GiB, and takes requests without ever answering,
// beside another tenant on Konnect (the suite's simulator). Left out of
// make test (minutes); `make bench-hostile` runs it.
const (
	// hostileTenant's auth configuration names the hostile server;
	// otherTenant's the suite's simulator.
	hostileTenant = "hostile-a"
	otherTenant   = "hostile-b"
	// hostileServices are the tenant's services Programmed before its
	// server turns: each control plane's drift listings list them.
	hostileServices = 20
	// perPhase is how many services each tenant creates in each phase:
	// the other's must be Programmed, the hostile one's creates list the
	// hostile server.
	perPhase = 10
)

// hostilePhase is one way the hostile server misbehaves.
type hostilePhase struct {
	name    string
	hostile map[string]any
}

var hostilePhases = []hostilePhase{
	{"pages without end", map[string]any{"endlessPages": true}},
	{"1 GiB bodies", map[string]any{"bodyBytes": int64(1) << 30}},
	{"stalls", map[string]any{"stall": true}},
}

// hostileServed is what the hostile simulator says it did.
type hostileServed struct {
	Served struct {
		Pages         int   `json:"pages"`
		StreamedBytes int64 `json:"streamedBytes"`
		Stalls        int   `json:"stalls"`
	} `json:"served"`
}

// TestHostileServerAgainstTheBuiltOperator runs the operator binary with
// its default flags (only the kubeconfig, a CA bundle trusting both
// simulators and loopback ports given) through each phase of the hostile
// server for KONNECT_HOSTILE_PHASE: the other tenant's new services must
// be Programmed meanwhile, the operator must not exit, and it prints its
// peak RSS (VmHWM) per phase and overall, with what the hostile server
// served. The hostile tenant's services say why its server's answers
// were refused.
func TestHostileServerAgainstTheBuiltOperator(t *testing.T) {
	phase, err := time.ParseDuration(os.Getenv("KONNECT_HOSTILE_PHASE"))
	if err != nil || phase <= 0 {
		t.Skip("set KONNECT_HOSTILE_PHASE to how long each phase lasts (make bench-hostile)")
	}
	ctx := t.Context()
	c := suite.cluster
	install(ctx, t, c, "manifests")
	dir := filepath.Join(suite.workDir, "hostile")
	token, err := randomToken()
	if err != nil {
		t.Fatal(err)
	}
	hostile, err := startSimulator(ctx, filepath.Join(dir, "simulator"), token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hostile.process.stop(5 * time.Second) })
	bundle := filepath.Join(dir, "ca.pem")
	if err := concatenate(bundle, suite.sim.caFile, hostile.caFile); err != nil {
		t.Fatal(err)
	}
	manifest := exportAuth(hostileTenant, hostile.url, hostile.token) + "---\n" + tenantControlPlane(hostileTenant) +
		"---\n" + exportAuth(otherTenant, suite.sim.url, suite.sim.token) + "---\n" + tenantControlPlane(otherTenant)
	if _, err := c.kubectl(ctx, manifest, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	op := startMeasuredOperator(ctx, t, c, "hostile", "--konnect-ca-file="+bundle)
	sampler := &procSampler{pid: op.cmd.Process.Pid}
	go sampler.run(ctx)
	t.Cleanup(func() {
		// The server is Konnect again, so that the tenants' objects can go.
		_ = hostile.do(context.WithoutCancel(ctx), http.MethodDelete, "/_sim/hostile", false, nil, nil)
		for _, ns := range []string{hostileTenant, otherTenant} {
			_, _ = c.kubectl(context.WithoutCancel(ctx), "", "delete", "namespace", ns, "--wait=false", "--ignore-not-found")
		}
	})

	if err := createTenantServices(ctx, c, hostileTenant, "steady", hostileServices); err != nil {
		t.Fatal(err)
	}
	if err := waitServicesProgrammed(ctx, op, c, hostileTenant, hostileServices, patience); err != nil {
		t.Fatal(err)
	}
	atStart, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("both tenants ready; RSS %s (peak so far %s)", mebibytes(atStart.rss), mebibytes(atStart.peakRSS))

	table := "| Phase | Other tenant's 10 services Programmed in | Pages made up | Bytes streamed | Requests stalled | Highest RSS in the phase |\n|---|---:|---:|---:|---:|---:|"
	programmedB := 0
	for i, p := range hostilePhases {
		var before hostileServed
		if err := hostile.get(ctx, "/_sim/hostile", false, &before); err != nil {
			t.Fatal(err)
		}
		if err := hostile.do(ctx, http.MethodPut, "/_sim/hostile", false, p.hostile, nil); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		if err := createTenantServices(ctx, c, hostileTenant, fmt.Sprintf("phase%d", i), perPhase); err != nil {
			t.Fatal(err)
		}
		if err := createTenantServices(ctx, c, otherTenant, fmt.Sprintf("phase%d", i), perPhase); err != nil {
			t.Fatal(err)
		}
		programmedB += perPhase
		if err := waitServicesProgrammed(ctx, op, c, otherTenant, programmedB, phase+patience); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		converged := time.Since(began)
		if err := sleepWatching(ctx, op, phase-converged); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		var after hostileServed
		if err := hostile.get(ctx, "/_sim/hostile", false, &after); err != nil {
			t.Fatal(err)
		}
		highest := int64(0)
		for _, s := range sampler.since(began) {
			highest = max(highest, s.rss)
		}
		table += fmt.Sprintf("\n| %s | %s | %d | %s | %d | %s |", p.name, converged.Round(100*time.Millisecond),
			after.Served.Pages-before.Served.Pages, mebibytes(after.Served.StreamedBytes-before.Served.StreamedBytes),
			after.Served.Stalls-before.Served.Stalls, mebibytes(highest))
	}
	if !op.running() {
		t.Fatalf("the operator exited: %v", op.waitErr)
	}
	atEnd, err := readProc(sampler.pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := sampler.failure(); err != nil {
		t.Errorf("sampling /proc: %v", err)
	}
	refused, example, err := refusedServices(ctx, c, hostileTenant)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("hostile-server figures (each phase %s, default flags):\n%s\npeak RSS (VmHWM) %s, RSS at the end %s, no restart; %d of the hostile tenant's services report a refused answer, e.g. %q",
		phase, table, mebibytes(atEnd.peakRSS), mebibytes(atEnd.rss), refused, example)
	if atEnd.peakRSS >= 400<<20 {
		t.Errorf("peak RSS %s, want under 400 MiB", mebibytes(atEnd.peakRSS))
	}
}

// concatenate writes the files from into one file at to.
func concatenate(to string, from ...string) error {
	var all []byte
	for _, f := range from {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		all = append(all, data...)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	return os.WriteFile(to, all, 0o600)
}

// tenantControlPlane is the control plane "cp" of namespace ns (following
// exportAuth's auth configuration).
func tenantControlPlane(ns string) string {
	return strings.ReplaceAll(strings.ReplaceAll(sizingControlPlaneManifest, "namespace: "+sizingNamespace, "namespace: "+ns), "name: "+sizingControlPlane, "name: "+ns)
}

// createTenantServices creates n services prefix-0… in namespace ns, in
// its control plane.
func createTenantServices(ctx context.Context, c *clusterEnv, ns, prefix string, n int) error {
	mapping, err := c.resource(serviceKind)
	if err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
			"name": ns + "-" + name, "host": name + ".example.com",
			"controlPlaneRef": map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": ns}},
		}}}
		obj.SetGroupVersionKind(serviceKind)
		obj.SetName(name)
		if _, err := c.dynamic.Resource(mapping.Resource).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// waitServicesProgrammed waits until want services of ns are Programmed,
// failing if the operator exits first.
func waitServicesProgrammed(ctx context.Context, op *operatorProcess, c *clusterEnv, ns string, want int, timeout time.Duration) error {
	return eventually(ctx, timeout, func(ctx context.Context) error {
		if !op.running() {
			return fmt.Errorf("the operator exited: %w", op.waitErr)
		}
		n, _, err := programmedIn(ctx, c, ns, []schema.GroupVersionKind{serviceKind})
		if err != nil {
			return err
		}
		if n < want {
			return fmt.Errorf("%d of %d services of %s Programmed", n, want, ns)
		}
		return nil
	})
}

// refusedServices counts the services of ns whose Programmed or Drifted
// condition says an answer was refused, and returns one such message.
func refusedServices(ctx context.Context, c *clusterEnv, ns string) (int, string, error) {
	mapping, err := c.resource(serviceKind)
	if err != nil {
		return 0, "", err
	}
	list, err := c.dynamic.Resource(mapping.Resource).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, "", err
	}
	n, example := 0, ""
	for i := range list.Items {
		conditions := conditionsOf(&list.Items[i])
		for _, kind := range []string{"Programmed", "Drifted"} {
			if message := conditions[kind]["message"]; strings.Contains(message, "answer refused") {
				n++
				example = message
				break
			}
		}
	}
	return n, example, nil
}
