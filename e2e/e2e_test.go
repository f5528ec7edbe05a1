package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// TestOperatorAsUsersRunIt is the user's journey, in order: install the
// manifests, run two replicas as the ServiceAccount, apply every sample,
// look at the objects with kubectl, scrape the metrics, lose the leader,
// delete everything.
func TestOperatorAsUsersRunIt(t *testing.T) {
	ctx := t.Context()
	c := suite.cluster
	var ops []*operatorProcess
	var lead *operatorProcess
	var samples []*sample
	stopAtEnd := func(op *operatorProcess) {
		t.Cleanup(func() {
			if op.running() {
				t.Logf("%s log:\n%s", op.name, op.tail(4000))
				op.stop(10 * time.Second)
			}
		})
	}
	step := func(name string, f func(t *testing.T)) {
		t.Helper()
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	step("kubectl apply --server-side -k manifests installs the operator", func(t *testing.T) {
		install(ctx, t, c, "manifests")
		checkDeployment(ctx, t, c)
	})
	step("the ServiceAccount has the access the operator needs and no more", func(t *testing.T) {
		checkAccess(ctx, t, c, accessTable("default", "default"))
	})
	step("the operator may change nothing of a Secret but its finalizer", func(t *testing.T) {
		checkSecretWrites(ctx, t, c)
	})
	step("two replicas start as the ServiceAccount and one leads", func(t *testing.T) {
		ops = startOperators(ctx, t, c, 2)
		for _, op := range ops {
			stopAtEnd(op)
		}
		var err error
		if lead, err = leader(ctx, c, ops, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s leads", lead.name)
	})

	step("every sample is applied server-side", func(t *testing.T) {
		mirrorSource, err := createMirrorSource(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { suite.mirrorSource = mirrorSource })
		files, err := sampleFiles()
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			s, err := prepareSample(file, map[string]string{sampleMirrorID: mirrorSource})
			if err != nil {
				t.Fatal(err)
			}
			if err := applySample(ctx, c, s); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			samples = append(samples, s)
		}
	})
	begin := time.Now()
	waitSamples(ctx, c, samples, 2*time.Minute)
	t.Logf("samples settled in %s", time.Since(begin).Round(time.Millisecond))
	t.Run("samples", func(t *testing.T) {
		for _, s := range samples {
			t.Run(s.file, func(t *testing.T) { checkSample(ctx, t, c, s) })
		}
	})

	step("/metrics answers only callers allowed to read it", func(t *testing.T) {
		for _, op := range ops {
			checkMetricsAccess(ctx, t, c, op)
		}
	})
	step("only the leader reconciles, and its metrics moved", func(t *testing.T) {
		checkMetrics(ctx, t, ops, lead)
	})
	step("the standby takes over within the lease duration when the leader is killed, without duplicates", func(t *testing.T) {
		lead = failover(ctx, t, c, ops, lead)
	})
	step("deleting everything leaves nothing in Konnect", func(t *testing.T) {
		deleteEverything(ctx, t, c, samples)
	})
	step("the simulator saw no OpenAPI violation", func(t *testing.T) {
		violations, err := suite.sim.violations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range violations {
			t.Error(v)
		}
	})
	for _, op := range ops {
		if op.running() && !op.stop(20*time.Second) {
			t.Errorf("%s did not stop within 20s of SIGTERM", op.name)
		}
	}
}

// checkSample reports one sample: ready, then what kubectl get and kubectl
// describe show of each of its objects.
func checkSample(ctx context.Context, t *testing.T, c *clusterEnv, s *sample) {
	if s.waitErr != nil {
		t.Fatal(s.waitErr)
	}
	for _, o := range s.reconciled() {
		if err := checkGetColumns(ctx, c, o); err != nil {
			t.Error(err)
		}
		// Events reach the API server asynchronously.
		if err := eventually(ctx, 15*time.Second, func(ctx context.Context) error { return checkDescribe(ctx, c, o) }); err != nil {
			t.Error(err)
		}
	}
}

// createMirrorSource creates, directly in Konnect, the control plane the
// Mirror sample mirrors, and returns its ID.
func createMirrorSource(ctx context.Context) (string, error) {
	var cp struct {
		ID string `json:"id"`
	}
	err := suite.sim.do(ctx, "POST", "/v2/control-planes", true, map[string]any{
		"name": "e2e-mirrored-source", "cluster_type": "CLUSTER_TYPE_CONTROL_PLANE",
	}, &cp)
	if err != nil {
		return "", fmt.Errorf("create the control plane to mirror: %w", err)
	}
	return cp.ID, nil
}

// checkMetrics scrapes both replicas: the leader's reconcile and Konnect
// request metrics moved, the standby's did not.
func checkMetrics(ctx context.Context, t *testing.T, ops []*operatorProcess, lead *operatorProcess) {
	for _, op := range ops {
		families, err := op.metrics(ctx)
		if err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		reconciles := sumMetric(families, "konnect_operator_reconcile_total", nil)
		successes := sumMetric(families, "konnect_operator_reconcile_total", map[string]string{"result": "success"})
		requests := sumMetric(families, konnect.MetricRequests, nil)
		creates := sumMetric(families, konnect.MetricRequests, map[string]string{"code": "201"})
		durations := sumMetric(families, "konnect_operator_reconcile_duration_seconds", nil)
		if op == lead {
			t.Logf("leader %s: %v reconciles (%v successful), %v Konnect requests (%v answered 201); queues %v",
				op.name, reconciles, successes, requests, creates, labelValues(families, "konnect_operator_workqueue_depth", "name"))
			if successes == 0 || durations == 0 {
				t.Errorf("the leader's reconcile metrics did not move: %v successful reconciles, %v timed", successes, durations)
			}
			if requests == 0 || creates == 0 {
				t.Errorf("the leader's Konnect request metrics did not move: %v requests, %v creates", requests, creates)
			}
			for _, kind := range []string{"KonnectGatewayControlPlane", "KongService", "KongRoute", "KongConsumer"} {
				if sumMetric(families, "konnect_operator_reconcile_total", map[string]string{"kind": kind, "result": "success"}) == 0 {
					t.Errorf("no successful %s reconcile counted", kind)
				}
			}
			continue
		}
		if reconciles != 0 || requests != 0 {
			t.Errorf("standby %s reconciled (%v reconciles, %v Konnect requests) while not leading", op.name, reconciles, requests)
		}
	}
}
