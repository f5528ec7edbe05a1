package e2e

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The scale measurements' modes, read from the environment (make
// bench-scale, bench-scale-orgs and bench-noisy-neighbour pass them on):
//
//   - KONNECT_SCALE_LATENCY (a Go duration, default 0): every Konnect
//     answer of the simulator comes that much later, as from a cluster a
//     network away from Konnect (the simulator's `*=latency:…` fault);
//   - KONNECT_SCALE_KIND=consumer: consumers alone, one busy kind, instead
//     of consumers each with a key-auth credential.
type scaleMode struct {
	latency time.Duration
	oneKind bool
	// load is the machine's load average when the measurement began: the
	// figures depend on how busy the machine was.
	load string
}

func scaleModeOf(t *testing.T) scaleMode {
	t.Helper()
	var m scaleMode
	if v := os.Getenv("KONNECT_SCALE_LATENCY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			t.Fatalf("KONNECT_SCALE_LATENCY=%q: want a duration such as 100ms", v)
		}
		m.latency = d
	}
	switch kind := os.Getenv("KONNECT_SCALE_KIND"); kind {
	case "", "pair":
	case "consumer":
		m.oneKind = true
	default:
		t.Fatalf("KONNECT_SCALE_KIND=%q: want consumer (consumers alone) or pair (the default: consumers each with a key-auth credential)", kind)
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.load = strings.Join(strings.Fields(string(data))[:3], " ")
	}
	return m
}

// objects describes the objects of the measurement.
func (m scaleMode) objects(consumers int) string {
	if m.oneKind {
		return fmt.Sprintf("%d consumers", consumers)
	}
	return fmt.Sprintf("%d consumers each with a key-auth credential", consumers)
}

// answering describes the simulator's latency.
func (m scaleMode) answering() string {
	if m.latency == 0 {
		return "at once"
	}
	return m.latency.String() + " late"
}

// groups returns, for n objects, how many groups to create (one consumer
// each), how many objects they hold and what each group holds.
func (m scaleMode) groups(n int) (groups, objects int, groupOf func(int) []*unstructured.Unstructured) {
	if m.oneKind {
		return n, n, scaleConsumerAlone
	}
	pairs := (n + 1) / 2
	return pairs, 2 * pairs, scalePair
}

// scaleConsumerAlone returns consumer i of scalePair, without a credential.
func scaleConsumerAlone(i int) []*unstructured.Unstructured { return scalePair(i)[:1] }

// delayKonnect makes the suite's simulator answer every Konnect request
// latency late until the test ends.
func delayKonnect(ctx context.Context, t *testing.T, latency time.Duration) {
	t.Helper()
	if latency <= 0 {
		return
	}
	if err := suite.sim.do(ctx, http.MethodPut, "/_sim/faults/*", false, map[string]string{"latency": latency.String()}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := suite.sim.do(context.Background(), http.MethodDelete, "/_sim/faults/*", false, nil, nil); err != nil {
			t.Errorf("removing the simulator's latency: %v", err)
		}
	})
}

// limiterWaits is what the operator's histogram of waits in its Konnect rate
// limiter (konnect_operator_konnect_rate_limiter_wait_seconds) says: the
// longest a worker was blocked, to the bucket, and how many waits lasted
// more than a second.
type limiterWaits struct {
	count, overSecond uint64
	// longest is the smallest bucket bound every wait fits under (+Inf:
	// beyond the last bucket).
	longest float64
}

// limiterWaitsOf reads the waits of organization (every organisation: "").
func limiterWaitsOf(families map[string]*dto.MetricFamily, organization string) limiterWaits {
	var w limiterWaits
	under := map[float64]uint64{}
	for _, m := range families["konnect_operator_konnect_rate_limiter_wait_seconds"].GetMetric() {
		if organization != "" && !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
			return l.GetName() == "organization" && l.GetValue() == organization
		}) {
			continue
		}
		w.count += m.GetHistogram().GetSampleCount()
		for _, b := range m.GetHistogram().GetBucket() {
			under[b.GetUpperBound()] += b.GetCumulativeCount()
		}
	}
	w.longest = math.Inf(1)
	for bound, n := range under {
		if n == w.count && bound < w.longest {
			w.longest = bound
		}
		if bound == 1 {
			w.overSecond = w.count - n
		}
	}
	return w
}

func (w limiterWaits) String() string {
	if w.count == 0 {
		return "no request went through the limiter"
	}
	return fmt.Sprintf("%d requests; the longest wait at most %gs; %d waited more than 1 s", w.count, w.longest, w.overSecond)
}

// organizationOf reads the organisation ID of the auth configuration
// "konnect" in namespace, once Konnect has told the operator.
func organizationOf(ctx context.Context, c *clusterEnv, namespace string) (string, error) {
	var id string
	err := eventually(ctx, 2*time.Minute, func(ctx context.Context) error {
		auth, err := c.get(ctx, authKind, namespace, "konnect")
		if err != nil {
			return err
		}
		if id, _, _ = unstructured.NestedString(auth.Object, "status", "organizationID"); id == "" {
			return fmt.Errorf("%s/konnect has no organisation ID yet", namespace)
		}
		return nil
	})
	return id, err
}

// orgScaleNamespace is the namespace of organisation i's objects.
func orgScaleNamespace(i int) string { return "scale-org-" + string(rune('a'+i)) }

// orgScaleManifest is organisation i's auth configuration (with its
// token) and control planes.
func orgScaleManifest(i int, token string) string {
	ns := orgScaleNamespace(i)
	manifest := "---\n" + exportAuth(ns, suite.sim.url, token)
	for cp := range scaleControlPlanes {
		manifest += strings.ReplaceAll(scaleControlPlaneManifest(cp), "namespace: "+scaleNamespace+"\n", "namespace: "+ns+"\n")
	}
	return manifest
}

// orgShare is what the operator's metrics say of one organisation over a
// period: its requests and 429s.
type orgShare struct {
	requests, rateLimited, deferred float64
}

func orgShareOf(families map[string]*dto.MetricFamily, organization string) orgShare {
	match := map[string]string{"organization": organization}
	return orgShare{
		requests:    sumMetric(families, "konnect_operator_konnect_requests_total", match),
		rateLimited: sumMetric(families, "konnect_operator_konnect_rate_limited_total", match),
		deferred:    sumMetric(families, "konnect_operator_konnect_rate_limiter_deferrals_total", match),
	}
}

func (s orgShare) sub(earlier orgShare) orgShare {
	return orgShare{s.requests - earlier.requests, s.rateLimited - earlier.rateLimited, s.deferred - earlier.deferred}
}

// budgetShare is the share of an organisation's budget that requests sent
// over d are.
func budgetShare(requests float64, d time.Duration) float64 {
	return 100 * requests / d.Minutes() / simRateLimitPerMinute
}

// scaleEnvInt reads a positive count from the environment, or def.
func scaleEnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// pastReadySecond waits until the clock has left the second in which the
// operator became ready: an object created in that second may be older
// than the operator's start (creation timestamps count whole seconds), so
// it is looked up by its UID before it is created, a request more than a
// create needs.
func pastReadySecond(ctx context.Context, op *operatorProcess, readyAt time.Time) error {
	return sleepWatching(ctx, op, time.Until(readyAt.Truncate(time.Second).Add(time.Second)))
}
