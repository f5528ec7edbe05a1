package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// exitBound is how long the test waits for the operator to exit once it has
// a reason to. Whether it stopped in time is the operator's own verdict:
// past its shutdown timeout (20s, within a pod's 30s grace period) it gives
// up and exits non-zero, which the SIGTERM case refuses. The bound itself
// only ends a test whose operator hangs, on however busy a machine.
const exitBound = 2 * time.Minute

// startBareOperator runs the operator as the cluster's administrator with
// leader election on its own Lease in "default", and returns it with its
// metrics and health addresses. metricsAddr "" picks a free port.
func startBareOperator(t *testing.T, name, metricsAddr string) (*operatorProcess, string) {
	t.Helper()
	healthPort, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	if metricsAddr == "" {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		metricsAddr = "127.0.0.1:" + strconv.Itoa(port)
	}
	lease := "e2e-" + name
	p, err := startProcess(filepath.Join(suite.workDir, "operators"), name, nil, filepath.Join(suite.binDir, "konnect-operator"),
		"--kubeconfig="+suite.cluster.KubeconfigPath,
		"--konnect-ca-file="+suite.sim.caFile,
		suite.sim.allowedHostsArg(),
		"--leader-elect=true",
		"--leader-elect-resource-namespace=default",
		"--leader-elect-resource-name="+lease,
		"--leader-elect-lease-duration="+leaseDuration.String(),
		"--leader-elect-renew-deadline="+renewDeadline.String(),
		"--leader-elect-retry-period="+retryPeriod.String(),
		"--metrics-bind-address="+metricsAddr,
		"--health-probe-bind-address=127.0.0.1:"+strconv.Itoa(healthPort),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.running() {
			p.kill()
		}
		if t.Failed() {
			t.Logf("%s log:\n%s", name, p.tail(3000))
		}
	})
	return &operatorProcess{process: p, healthURL: "http://127.0.0.1:" + strconv.Itoa(healthPort)}, lease
}

// waitExit waits up to bound for the process to exit and returns how long
// it took and its exit code.
func waitExit(t *testing.T, p *process, since time.Time, bound time.Duration) (time.Duration, int) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(bound):
		t.Fatalf("%s still runs %s later", p.name, bound)
	}
	took := time.Since(since)
	var exitErr *exec.ExitError
	switch {
	case p.waitErr == nil:
		return took, 0
	case errors.As(p.waitErr, &exitErr):
		return took, exitErr.ExitCode()
	}
	t.Fatalf("%s: %v", p.name, p.waitErr)
	return took, -1
}

// leadingOn waits until the operator holds lease and its caches synced.
func leadingOn(ctx context.Context, t *testing.T, op *operatorProcess, lease string) {
	t.Helper()
	if err := op.waitReady(ctx, patience); err != nil {
		t.Fatal(err)
	}
	err := eventually(ctx, patience, func(ctx context.Context) error {
		l, err := suite.cluster.kube.CoordinationV1().Leases("default").Get(ctx, lease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != op.identity() {
			return fmt.Errorf("the Lease is held by %v", l.Spec.HolderIdentity)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOperatorExitsPromptly: whatever stops it (SIGTERM, a port in use, a
// lost Lease), the operator stops its informers, workers and servers and
// exits, within its shutdown timeout (exit code 0 after SIGTERM), non-zero
// when something failed.
func TestOperatorExitsPromptly(t *testing.T) {
	ctx := t.Context()
	installCRDs(ctx, t, suite.cluster)
	t.Run("a metrics port in use fails the start", func(t *testing.T) {
		taken, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = taken.Close() }()
		start := time.Now()
		op, _ := startBareOperator(t, "port-taken", taken.Addr().String())
		took, code := waitExit(t, op.process, start, exitBound)
		t.Logf("exited with code %d after %s", code, took.Round(time.Millisecond))
		if code == 0 {
			t.Fatal("exited 0 although it could not serve its metrics")
		}
		if log := op.tail(2000); !strings.Contains(log, "address already in use") {
			t.Fatalf("the log does not say why:\n%s", log)
		}
	})
	t.Run("SIGTERM while leading stops it cleanly and releases the Lease", func(t *testing.T) {
		op, lease := startBareOperator(t, "sigterm", "")
		leadingOn(ctx, t, op, lease)
		start := time.Now()
		if err := op.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		took, code := waitExit(t, op.process, start, exitBound)
		t.Logf("exited with code %d %s after SIGTERM", code, took.Round(time.Millisecond))
		if code != 0 {
			t.Fatalf("exit code %d after SIGTERM, want 0", code)
		}
		l, err := suite.cluster.kube.CoordinationV1().Leases("default").Get(ctx, lease, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
			t.Fatalf("the Lease is still held by %q", *l.Spec.HolderIdentity)
		}
	})
	t.Run("a lost Lease stops it with an error", func(t *testing.T) {
		op, lease := startBareOperator(t, "lease-lost", "")
		leadingOn(ctx, t, op, lease)
		// Another holder takes the Lease, as after a network partition.
		leases := suite.cluster.kube.CoordinationV1().Leases("default")
		l, err := leases.Get(ctx, lease, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		other, hour := "someone-else", int32(3600)
		now := metav1.NewMicroTime(time.Now())
		l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.AcquireTime, l.Spec.RenewTime = &other, &hour, &now, &now
		if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		took, code := waitExit(t, op.process, start, renewDeadline+retryPeriod+exitBound)
		t.Logf("exited with code %d %s after losing the Lease (renew deadline %s)", code, took.Round(time.Millisecond), renewDeadline)
		if code == 0 {
			t.Fatal("exited 0 after losing the Lease")
		}
		if log := op.tail(3000); !strings.Contains(log, "lost the leader-election lease") {
			t.Fatalf("the log does not say why:\n%s", log)
		}
	})
}

// installCRDs applies manifests/crd as the administrator (as the full
// install does) and waits until every CRD is Established, so that the
// operator's caches can sync.
func installCRDs(ctx context.Context, t *testing.T, c *clusterEnv) {
	t.Helper()
	if _, err := c.kubectl(ctx, "", "apply", "--server-side", "-k", filepath.Join(suite.root, "manifests", "crd")); err != nil {
		t.Fatal(err)
	}
	waitCRDsEstablished(ctx, t, c)
}
