package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
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

	step("kubectl apply --server-side -k manifests installs the operator, its NetworkPolicy and PodDisruptionBudget", func(t *testing.T) {
		install(ctx, t, c, "manifests")
		checkDeployment(ctx, t, c)
		checkInstallGuards(ctx, t, c, operatorNamespace)
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
		if lead, err = leader(ctx, c, ops, patience); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s leads", lead.name)
	})

	step("every sample is applied server-side", func(t *testing.T) {
		mirrorSource, adopted, err := createMirrorSource(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { suite.mirrorSource = mirrorSource })
		// Konnect rate-limits now and then: the first requests the operator
		// sends are answered 429, which it waits out and counts.
		if err := suite.sim.do(ctx, "POST", "/_sim/force429", false, map[string]any{"count": forced429s, "retryAfter": "1s"}, nil); err != nil {
			t.Fatal(err)
		}
		files, err := sampleFiles()
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			s, err := prepareSample(file, map[string]string{
				sampleMirrorID: mirrorSource, sampleAdoptServiceID: adopted[0], sampleAdoptRouteID: adopted[1],
			})
			if err != nil {
				t.Fatal(err)
			}
			samples = append(samples, s)
		}
		// Applied side by side, as a team's CI would apply many files: the
		// operator waits for what an object refers to, whatever the order.
		var g errgroup.Group
		g.SetLimit(4)
		for _, s := range samples {
			g.Go(func() error {
				if err := applySample(ctx, c, s); err != nil {
					return fmt.Errorf("%s: %w", s.file, err)
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
	})
	begin := time.Now()
	waitSamples(ctx, c, samples, patience)
	t.Logf("samples settled in %s", time.Since(begin).Round(time.Millisecond))
	t.Run("samples", func(t *testing.T) {
		// Each sample is only read here (kubectl get and describe), so
		// they are read side by side.
		for _, s := range samples {
			t.Run(s.file, func(t *testing.T) {
				t.Parallel()
				checkSample(ctx, t, c, s)
			})
		}
	})

	step("/metrics answers only callers allowed to read it", func(t *testing.T) {
		for _, op := range ops {
			checkMetricsAccess(ctx, t, c, op)
		}
	})
	var leaderScrape scrapeResult
	step("only the leader reconciles, and its metrics moved", func(t *testing.T) {
		leaderScrape = checkMetrics(ctx, t, ops, lead)
	})
	step("the standby takes over within the lease duration when the leader is killed, without duplicates", func(t *testing.T) {
		lead = failover(ctx, t, c, ops, lead)
	})
	step("kubectl delete of a protected object is refused with what to do", func(t *testing.T) {
		checkProtected(ctx, t, c, samples[0].reconciled()[0])
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
	// Last, so that a metric another change has yet to add fails this alone
	// and the journey above still runs to its end.
	t.Run("what Prometheus, the dashboard and the alerts expect is served", func(t *testing.T) {
		checkServedMetrics(t, leaderScrape.text, leaderScrape.families)
	})
}

// scrapeResult is one scrape of /metrics, as served and as parsed.
type scrapeResult struct {
	text     []byte
	families map[string]*dto.MetricFamily
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
		if err := eventually(ctx, patience, func(ctx context.Context) error { return checkDescribe(ctx, c, o) }); err != nil {
			t.Error(err)
		}
	}
}

// createMirrorSource creates, directly in Konnect, the control plane the
// Mirror and adoption samples mirror, with the service and route the
// adoption sample adopts, and returns their IDs.
func createMirrorSource(ctx context.Context) (string, [2]string, error) {
	var cp, service, route struct {
		ID string `json:"id"`
	}
	err := suite.sim.do(ctx, "POST", "/v2/control-planes", true, map[string]any{
		"name": "e2e-mirrored-source", "cluster_type": "CLUSTER_TYPE_CONTROL_PLANE",
	}, &cp)
	if err != nil {
		return "", [2]string{}, fmt.Errorf("create the control plane to mirror: %w", err)
	}
	entities := "/v2/control-planes/" + cp.ID + "/core-entities/"
	err = suite.sim.do(ctx, "POST", entities+"services", true, map[string]any{
		"name": "legacy-orders", "host": "legacy-orders.example.com", "port": 8080, "protocol": "http",
	}, &service)
	if err == nil {
		err = suite.sim.do(ctx, "POST", entities+"routes", true, map[string]any{
			"name": "legacy-orders", "paths": []string{"/legacy-orders"}, "service": map[string]string{"id": service.ID},
		}, &route)
	}
	if err != nil {
		return "", [2]string{}, fmt.Errorf("create the entities the adoption sample adopts: %w", err)
	}
	return cp.ID, [2]string{service.ID, route.ID}, nil
}

// forced429s is how many 429s the simulator answers the first requests of
// the journey with.
const forced429s = 3

// checkMetrics scrapes both replicas: the leader's reconcile and Konnect
// request metrics moved, labelled with the organisation, the standby's did
// not; both count the same objects from their caches. It returns the
// leader's scrape.
func checkMetrics(ctx context.Context, t *testing.T, ops []*operatorProcess, lead *operatorProcess) scrapeResult {
	orgs, err := suite.sim.ownOrganizations(ctx)
	if err != nil || len(orgs) != 1 {
		t.Fatalf("the simulator's organisations besides the neighbours: %v, %v", orgs, err)
	}
	org := map[string]string{"organization": orgs[0].ID}
	programmed := map[string]string{"kind": "KongService", "condition": "Programmed", "status": "True"}
	var leaderScrape scrapeResult
	objects := map[*operatorProcess]float64{}
	for _, op := range ops {
		text, err := op.scrape(ctx)
		if err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
		if err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		reconciles := sumMetric(families, "konnect_operator_reconcile_total", nil)
		successes := sumMetric(families, "konnect_operator_reconcile_total", map[string]string{"result": "success"})
		requests := sumMetric(families, konnect.MetricRequests, nil)
		creates := sumMetric(families, konnect.MetricRequests, map[string]string{"code": "201"})
		durations := sumMetric(families, "konnect_operator_reconcile_duration_seconds", nil)
		leading := sumMetric(families, metrics.MetricLeader, nil)
		objects[op] = sumMetric(families, metrics.MetricObjects, programmed)
		checkCompatibleMetrics(t, op.name, families, op == lead)
		if op == lead {
			leaderScrape = scrapeResult{text: text, families: families}
			t.Logf("leader %s: %v reconciles (%v successful), %v Konnect requests (%v answered 201); queues %v",
				op.name, reconciles, successes, requests, creates, labelValues(families, "workqueue_depth", "name"))
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
			if n := sumMetric(families, konnect.MetricRequests, org); n == 0 || n == requests {
				t.Errorf("%v of %v Konnect requests counted for organisation %s: want most, but not Me's before it was known", n, requests, orgs[0].ID)
			}
			if n := sumMetric(families, konnect.MetricRateLimited, nil); n < forced429s {
				t.Errorf("%v 429s counted, want the %d the simulator answered", n, forced429s)
			}
			if _, ok := families[konnect.MetricRemaining]; !ok || sumMetric(families, konnect.MetricRemaining, org) <= 0 {
				t.Errorf("no %s for organisation %s, or none left", konnect.MetricRemaining, orgs[0].ID)
			}
			if leading != 1 {
				t.Errorf("the leader's %s = %v, want 1", metrics.MetricLeader, leading)
			}
			continue
		}
		if reconciles != 0 || requests != 0 {
			t.Errorf("standby %s reconciled (%v reconciles, %v Konnect requests) while not leading", op.name, reconciles, requests)
		}
		if leading != 0 {
			t.Errorf("the standby's %s = %v, want 0", metrics.MetricLeader, leading)
		}
	}
	for _, op := range ops {
		if objects[op] == 0 || objects[op] != objects[lead] {
			t.Errorf("%s counts %v Programmed KongServices, the leader %v: want the same, more than none", op.name, objects[op], objects[lead])
		}
	}
	return leaderScrape
}

// checkProtected annotates o protected: kubectl delete is then refused with
// a message that says to remove the annotation, and works again once it is
// removed (the object itself is deleted later, with the rest).
func checkProtected(ctx context.Context, t *testing.T, c *clusterEnv, o *unstructured.Unstructured) {
	resource, err := kubectlName(c, o)
	if err != nil {
		t.Fatal(err)
	}
	object := append([]string{resource + "/" + o.GetName()}, namespaceArgs(o)...)
	if _, err := c.kubectl(ctx, "", append([]string{"annotate"}, append(object, "konnect.konghq.com/protected=true")...)...); err != nil {
		t.Fatal(err)
	}
	// The policy may reach the API server's admission a moment after it.
	err = eventually(ctx, patience, func(ctx context.Context) error {
		_, err := c.kubectl(ctx, "", append([]string{"delete", "--dry-run=server"}, object...)...)
		if err == nil || !strings.Contains(err.Error(), "remove the annotation first") {
			return fmt.Errorf("kubectl delete was not refused as it should be: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.kubectl(ctx, "", append([]string{"annotate"}, append(object, "konnect.konghq.com/protected-")...)...); err != nil {
		t.Fatal(err)
	}
	if _, err := c.kubectl(ctx, "", append([]string{"delete", "--dry-run=server"}, object...)...); err != nil {
		t.Fatalf("kubectl delete refused once the annotation is gone: %v", err)
	}
}
