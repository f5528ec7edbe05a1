package controller

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/operations"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// outageKonnect stands in for Konnect with two tokens: A's requests are
// always answered; B's are answered 503 while B is down. Each object's
// call reads the control plane its name names, so that an outage fails
// many requests, as it does the objects of an organisation.
type outageKonnect struct {
	srv *httptest.Server
	mu  sync.Mutex
	// down is whether B's requests fail; sent counts each token's
	// requests, probes B's probes (a list of one control plane).
	down   bool
	sent   map[string]int
	probes int
	// paths are B's requests, in order.
	paths []string
}

func newOutageKonnect(t *testing.T) *outageKonnect {
	k := &outageKonnect{sent: map[string]int{}}
	k.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		org := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer kpat_")
		k.mu.Lock()
		k.sent[org]++
		if org == "b" {
			k.paths = append(k.paths, r.Method+" "+r.URL.String())
		}
		if r.URL.Path == "/v2/control-planes" && org == "b" {
			k.probes++
		}
		down := k.down && org == "b"
		k.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case down:
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"message":"service unavailable"}`))
		case r.URL.Path == "/v2/control-planes":
			_, _ = w.Write([]byte(`{"data":[],"meta":{"page":{"number":1,"size":1,"total":0}}}`))
		default:
			id := strings.TrimPrefix(r.URL.Path, "/v2/control-planes/")
			_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "name": id})
		}
	}))
	t.Cleanup(k.srv.Close)
	return k
}

func (k *outageKonnect) setDown(down bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.down = down
}

func (k *outageKonnect) count(org string) (sent, probes int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.sent[org], k.probes
}

// outageRun is a controller of ConfigMaps whose reconcile reads, with the
// token its name names ("a-…", "b-…"), the control plane of its name.
type outageRun struct {
	*konnectRun
	konnect *outageKonnect
}

func newOutageRun(t *testing.T, workers int) *outageRun {
	logger := ktesting.NewLogger(t, ktesting.NewConfig())
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	r := &outageRun{konnect: newOutageKonnect(t)}
	r.konnectRun = &konnectRun{
		ctx:        ctx,
		clock:      clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		client:     fake.NewClientset(),
		reg:        prometheus.NewPedanticRegistry(),
		reconciled: &reconcileLog{calls: map[string]int{}},
		done:       make(chan error, 1),
		foreground: map[string][]bool{},
		stop:       cancel,
	}
	t.Cleanup(func() { r.shutDown(t) })
	trusted := x509.NewCertPool()
	trusted.AddCert(r.konnect.srv.Certificate())
	r.factory = konnect.NewClientFactory(konnect.Options{RootCAs: trusted, RequestsPerSecond: 1000, Burst: 1000, Clock: r.clock})
	factory := kubeinformers.NewSharedInformerFactory(r.client, 0)
	configMaps := NewInformer[*corev1.ConfigMap](corev1.Resource("configmaps"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().ConfigMaps().Informer()})
	r.backoff = &backoffRecorder{
		// No delay: what a failure's backoff would be is counted, not waited.
		TypedRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](0, 0),
		backoff:          map[string]int{},
	}
	var err error
	r.controller, err = New("ConfigMap", configMaps, ReconcilerFunc(r.readControlPlane), Options{
		Workers: workers, RateLimiter: r.backoff, Metrics: metrics.NewControllerMetrics(r.reg), Clock: r.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	return r
}

func (r *outageRun) readControlPlane(ctx context.Context, key cache.ObjectName) (Result, error) {
	r.reconciled.add(key.String())
	org, _, _ := strings.Cut(key.Name, "-")
	api, err := r.factory.API(r.konnect.srv.URL, "kpat_"+org)
	if err != nil {
		return Result{}, err
	}
	_, err = konnect.Call(ctx, konnect.Operation{Verb: "get", Entity: "control_plane"}, func(ctx context.Context) (*operations.GetControlPlaneResponse, error) {
		return api.ControlPlanes.GetControlPlane(ctx, key.Name)
	})
	return Result{}, err
}

// TestObjectsOfAHeldOrganisationWaitForItsReleaseNotTheirBackoff: while
// Konnect fails B's requests, the fifth failure holds B; B's other objects
// meet the hold without a request and without a failure's backoff, and
// wait off the workers while A's objects go on; the probe Konnect answers
// brings every one of B's objects back at once.
func TestObjectsOfAHeldOrganisationWaitForItsReleaseNotTheirBackoff(t *testing.T) {
	r := newOutageRun(t, 2)
	r.konnect.setDown(true)
	bs := []string{"b-1", "b-2", "b-3", "b-4", "b-5", "b-6", "b-7", "b-8", "b-9", "b-10"}
	r.create(t, bs...)
	r.run()

	// The first failures are retried at once (the test's backoff is 0);
	// by then B is held.
	r.eventually(t, "every object of B to be parked", func() bool {
		return r.controller.Idle() && r.controller.parkedCount() == len(bs)
	})
	// Five failures hold B; the other worker may have had one more request
	// on its way by then.
	const beforeHold = 5 + 1
	sentDuringOutage, _ := r.konnect.count("b")
	if sentDuringOutage > beforeHold {
		t.Errorf("B's objects sent %d requests before B was held, want at most %d", sentDuringOutage, beforeHold)
	}
	backedOff := 0
	for _, name := range bs {
		backedOff += r.backoff.times("ns/" + name)
	}
	if backedOff > beforeHold {
		t.Errorf("B's objects were backed off %d times as failures, want at most the %d failures before the hold", backedOff, beforeHold)
	}

	// A is not held: its objects reach Konnect while B's wait.
	as := []string{"a-1", "a-2", "a-3"}
	r.create(t, as...)
	r.eventually(t, "A's objects to reach Konnect", func() bool { sent, _ := r.konnect.count("a"); return sent == len(as) })

	// An event of a parked object meets the hold again, unsent.
	r.controller.Enqueue(cache.ObjectName{Namespace: "ns", Name: "b-1"})
	r.eventually(t, "the event to be handled", func() bool {
		return r.controller.Idle() && r.reconciled.count("ns/b-1") >= 2 && r.controller.parkedCount() == len(bs)
	})
	if sent, _ := r.konnect.count("b"); sent != sentDuringOutage {
		r.konnect.mu.Lock()
		t.Errorf("B sent %d requests after its hold began, want none: %v", sent-sentDuringOutage, r.konnect.paths)
		r.konnect.mu.Unlock()
	}

	// The first probe (at 2s ± 20%) finds B still down: nothing comes back.
	r.clock.Step(2400 * time.Millisecond)
	r.eventually(t, "the first probe", func() bool { _, probes := r.konnect.count("b"); return probes == 1 })
	r.eventually(t, "the controller to settle", r.controller.Idle)
	if r.controller.parkedCount() != len(bs) {
		t.Fatalf("%d objects parked after a failed probe, want %d", r.controller.parkedCount(), len(bs))
	}

	// Konnect answers the next probe (4s ± 20%): every object comes back.
	r.konnect.setDown(false)
	reconciledBefore := map[string]int{}
	for _, name := range bs {
		reconciledBefore[name] = r.reconciled.count("ns/" + name)
	}
	r.clock.Step(4800 * time.Millisecond)
	r.eventually(t, "every object of B to reach Konnect", func() bool {
		sent, _ := r.konnect.count("b")
		return sent == sentDuringOutage+2+len(bs)
	})
	r.eventually(t, "the controller to settle", r.controller.Idle)
	for _, name := range bs {
		if got := r.reconciled.count("ns/"+name) - reconciledBefore[name]; got != 1 {
			t.Errorf("%s was reconciled %d times after the release, want once", name, got)
		}
	}
	if got := seriesValue(t, r.reg, `konnect_operator_reconcile_total{kind="ConfigMap",result="held"}`); got < float64(len(bs)) {
		t.Errorf(`reconcile_total{result="held"} = %v, want at least %d`, got, len(bs))
	}
}

// TestChangeParkedOnAHoldKeepsItsForegroundLane: a user's change that met
// its organisation held comes back, once released, in the foreground lane.
func TestChangeParkedOnAHoldKeepsItsForegroundLane(t *testing.T) {
	r := newOutageRun(t, 1)
	r.konnect.setDown(true)
	api, err := r.factory.API(r.konnect.srv.URL, "kpat_b")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		_, _ = konnect.Call(r.ctx, konnect.Operation{Verb: "get", Entity: "control_plane"}, func(ctx context.Context) (*operations.GetControlPlaneResponse, error) {
			return api.ControlPlanes.GetControlPlane(ctx, "warm-up-"+string(rune('a'+i)))
		})
	}
	var mu sync.Mutex
	var lanes []bool
	r.controller.reconciler = ReconcilerFunc(func(ctx context.Context, key cache.ObjectName) (Result, error) {
		mu.Lock()
		lanes = append(lanes, konnect.IsForeground(ctx))
		mu.Unlock()
		return r.readControlPlane(ctx, key)
	})
	reconciles := func() []bool {
		mu.Lock()
		defer mu.Unlock()
		return append([]bool(nil), lanes...)
	}
	r.run()
	r.eventually(t, "the controller to start", r.controller.Idle)
	r.controller.enqueueChange(cache.ObjectName{Namespace: "ns", Name: "b-changed"})
	r.eventually(t, "the change to be parked", func() bool { return r.controller.Idle() && r.controller.parkedCount() == 1 })
	r.konnect.setDown(false)
	r.clock.Step(2400 * time.Millisecond)
	r.eventually(t, "the change to come back", func() bool {
		return r.controller.Idle() && r.controller.parkedCount() == 0 && len(reconciles()) == 2
	})
	if got := reconciles(); !got[0] || !got[1] {
		t.Errorf("the change's reconciles in the foreground: %v, want [true true]", got)
	}
}
