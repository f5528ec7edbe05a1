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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
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

// The tests of this file run a controller over ConfigMaps whose reconcile
// makes one Konnect call through pkg/konnect's real client and limiter, on
// a fake clock, against a small HTTPS server standing in for Konnect: the
// ConfigMap's name says whose token the call uses ("a-…" organisation A,
// "b-…" organisation B). Nothing sleeps: the clock moves only when a test
// steps it.

// twoOrganisations stands in for Konnect: it answers GET
// /v3/organizations/me for two tokens, refusing B's first request with a
// 429 that pauses B for a minute, and counts what each token sent.
type twoOrganisations struct {
	srv *httptest.Server
	mu  sync.Mutex
	// requests counts the requests of each organisation ("a", "b").
	requests map[string]int
}

const pauseOfB = time.Minute

func newTwoOrganisations(t *testing.T) *twoOrganisations {
	k := &twoOrganisations{requests: map[string]int{}}
	k.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		org := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer kpat_")
		k.mu.Lock()
		k.requests[org]++
		first := k.requests[org] == 1
		k.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if org == "b" && first {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"message":"API rate limit exceeded"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"id": "org-" + org, "name": org})
	}))
	t.Cleanup(k.srv.Close)
	return k
}

func (k *twoOrganisations) sent(org string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.requests[org]
}

// konnectRun is a controller whose reconciles call Konnect.
type konnectRun struct {
	ctx        context.Context
	clock      *clocktesting.FakeClock
	konnect    *twoOrganisations
	factory    *konnect.ClientFactory
	client     *fake.Clientset
	reg        *prometheus.Registry
	controller *Controller[*corev1.ConfigMap]
	backoff    *backoffRecorder
	reconciled *reconcileLog
	done       chan error
	stop       context.CancelFunc
	running    bool

	mu         sync.Mutex
	foreground map[string][]bool
}

// newKonnectRun builds the controller with workers workers; its reconcile
// of a ConfigMap asks Konnect whose token it holds.
func newKonnectRun(t *testing.T, workers int) *konnectRun {
	logger := ktesting.NewLogger(t, ktesting.NewConfig())
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	r := &konnectRun{
		ctx:        ctx,
		clock:      clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		konnect:    newTwoOrganisations(t),
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
	r.factory = konnect.NewClientFactory(konnect.Options{RootCAs: trusted, RequestsPerSecond: 10, Burst: 10, Clock: r.clock})
	factory := kubeinformers.NewSharedInformerFactory(r.client, 0)
	configMaps := NewInformer[*corev1.ConfigMap](corev1.Resource("configmaps"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().ConfigMaps().Informer()})
	r.backoff = &backoffRecorder{
		TypedRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](time.Millisecond, 20*time.Millisecond),
		backoff:          map[string]int{},
	}
	var err error
	r.controller, err = New("ConfigMap", configMaps, ReconcilerFunc(r.reconcile), Options{
		Workers: workers, RateLimiter: r.backoff, Metrics: metrics.NewControllerMetrics(r.reg), Clock: r.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	return r
}

// reconcile asks Konnect whose token the ConfigMap's name names, as a
// kind's functions call Konnect, and hands a refusal for the budget to the
// loop as EntityReconciler does.
func (r *konnectRun) reconcile(ctx context.Context, key cache.ObjectName) (Result, error) {
	r.reconciled.add(key.String())
	r.mu.Lock()
	r.foreground[key.Name] = append(r.foreground[key.Name], konnect.IsForeground(ctx))
	r.mu.Unlock()
	org, _, _ := strings.Cut(key.Name, "-")
	api, err := r.factory.API(r.konnect.srv.URL, "kpat_"+org)
	if err != nil {
		return Result{}, err
	}
	_, err = konnect.Call(ctx, konnect.Operation{Verb: "get", Entity: "organization"}, func(ctx context.Context) (*operations.GetOrganizationsMeResponse, error) {
		return api.Me.GetOrganizationsMe(ctx)
	})
	if limited := konnectRateLimited(err); limited != nil {
		return Result{}, limited
	}
	return Result{}, err
}

func (r *konnectRun) create(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := r.client.CoreV1().ConfigMaps("ns").Create(r.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func (r *konnectRun) run() {
	r.running = true
	go func() { r.done <- r.controller.Run(r.ctx) }()
}

// shutDown stops the controller and waits for its workers.
func (r *konnectRun) shutDown(t *testing.T) {
	r.stop()
	if r.running {
		if err := <-r.done; err != nil {
			t.Errorf("the controller stopped with %v", err)
		}
	}
}

// eventually polls cond; a minute's patience bounds a broken test on a
// loaded machine, it measures nothing.
func (r *konnectRun) eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(r.ctx, time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// pauseB has B's first request refused with the 429 that pauses B.
func (r *konnectRun) pauseB(t *testing.T) {
	t.Helper()
	if _, err := r.reconcile(konnect.WithDeferral(r.ctx), cache.ObjectName{Namespace: "ns", Name: "b-warm-up"}); err == nil {
		t.Fatal("B's first request was not refused")
	}
	if r.konnect.sent("b") != 1 {
		t.Fatal("B's first request did not reach Konnect")
	}
}

// TestOrganisationPausedDoesNotDelayAnothersReconciles: with a single
// worker, B's limiter paused for a minute (a 429's Retry-After) and B's objects
// queued before A's, every object of A reaches Konnect while the clock
// stands still; each of B's is reconciled once and waits for its turn,
// off the worker, without a request and without the failure backoff; once
// the pause is over, B's objects go, a token's spacing apart.
func TestOrganisationPausedDoesNotDelayAnothersReconciles(t *testing.T) {
	r := newKonnectRun(t, 1)
	r.pauseB(t)
	bs, as := []string{"b-1", "b-2", "b-3"}, []string{"a-1", "a-2", "a-3", "a-4", "a-5"}
	r.create(t, bs...)
	r.create(t, as...)
	r.run()

	r.eventually(t, "A's objects to reach Konnect", func() bool { return r.konnect.sent("a") == len(as) })
	r.eventually(t, "B's objects to be deferred", func() bool { return r.controller.Idle() })
	if got := r.konnect.sent("b"); got != 1 {
		t.Errorf("B sent %d requests during its pause, want only the one refused", got)
	}
	for _, name := range bs {
		if got := r.reconciled.count("ns/" + name); got != 1 {
			t.Errorf("%s was reconciled %d times during the pause, want once (then it waits for its turn)", name, got)
		}
		if got := r.backoff.times("ns/" + name); got != 0 {
			t.Errorf("%s was backed off %d times as a failure, want none", name, got)
		}
	}

	// The pause ends at 60s; B's turns are 60s, 60.1s and 60.2s (10/s).
	r.clock.Step(pauseOfB - time.Millisecond)
	r.eventually(t, "the controller to settle", r.controller.Idle)
	if got := r.konnect.sent("b"); got != 1 {
		t.Fatalf("B sent %d requests before its pause ended, want 1", got)
	}
	r.clock.Step(time.Millisecond)
	r.eventually(t, "B's first object to go at the pause's end", func() bool { return r.konnect.sent("b") == 2 })
	r.clock.Step(200 * time.Millisecond)
	r.eventually(t, "every object of B to reach Konnect", func() bool { return r.konnect.sent("b") == 1+len(bs) })
	r.eventually(t, "the controller to settle", r.controller.Idle)
	for _, name := range bs {
		if got := r.reconciled.count("ns/" + name); got != 2 {
			t.Errorf("%s was reconciled %d times, want twice (deferred, then sent at its turn)", name, got)
		}
	}
	if got := seriesValue(t, r.reg, `controller_runtime_active_workers{controller="ConfigMap"}`); got != 0 {
		t.Errorf("controller_runtime_active_workers = %v with nothing to do, want 0", got)
	}
}

// TestPausedRequestReleasesItsWorker: a reconcile whose Konnect call meets
// the limiter's pause ends at once and frees its worker: nothing of it
// waits on the clock but the queue's timer for its turn, which brings it
// back no earlier than the turn; a user's change deferred so comes back in
// the foreground lane.
func TestPausedRequestReleasesItsWorker(t *testing.T) {
	r := newKonnectRun(t, 1)
	r.pauseB(t)
	r.run()
	r.eventually(t, "the controller to start", r.controller.Idle)
	idleWaiters := r.clock.Waiters() // the queues' heartbeats
	r.create(t, "b-changed")
	r.eventually(t, "the new object to be deferred", func() bool { return r.controller.Idle() && r.reconciled.count("ns/b-changed") == 1 })
	// The user changes it while it waits for its turn.
	r.controller.enqueueChange(cache.ObjectName{Namespace: "ns", Name: "b-changed"})
	r.eventually(t, "the change to be deferred", func() bool { return r.controller.Idle() && r.reconciled.count("ns/b-changed") == 2 })
	if busy := r.controller.busy.Load(); busy != 0 {
		t.Fatalf("%d workers busy while the only object waits for its turn, want 0", busy)
	}
	// What waits on the clock is the queue's timer, not a worker in the
	// limiter (which would be a second waiter).
	if waiters := r.clock.Waiters() - idleWaiters; waiters != 1 {
		t.Errorf("%d more waiters on the clock than when idle, want 1: the queue's timer for the turn", waiters)
	}
	r.clock.Step(pauseOfB)
	r.eventually(t, "the change to reach Konnect at its turn", func() bool { return r.konnect.sent("b") == 2 })
	r.eventually(t, "the controller to settle", r.controller.Idle)
	r.mu.Lock()
	lanes := r.foreground["b-changed"]
	r.mu.Unlock()
	if want := []bool{false, true, true}; len(lanes) != len(want) || lanes[1] != want[1] || lanes[2] != want[2] || lanes[0] != want[0] {
		t.Errorf("reconciles of the changed object in the foreground: %v, want %v (the change keeps its lane after its deferral)", lanes, want)
	}
	if got := r.backoff.times("ns/b-changed"); got != 0 {
		t.Errorf("the deferred object was backed off %d times as a failure, want none", got)
	}
}

// TestObjectBroughtEarlyWaitsForItsTurn: an object whose call was deferred
// to its turn and that another event brings early (a reference that
// changed, a delay of its own that runs out first) is not reconciled
// before its turn, so that it does not take the place of those before it
// in line; and it still comes at its turn, although the queue keeps only
// the earliest of an object's delays.
func TestObjectBroughtEarlyWaitsForItsTurn(t *testing.T) {
	r := newKonnectRun(t, 1)
	r.pauseB(t)
	r.run()
	r.eventually(t, "the controller to start", r.controller.Idle)
	key := cache.ObjectName{Namespace: "ns", Name: "b-1"}
	// A delay of its own (a retry after a bare 429, say) is pending when
	// its call is deferred: the queue keeps that earlier delay, not the
	// turn's.
	r.controller.queue.AddAfter(key, 10*time.Second)
	r.controller.Enqueue(key)
	r.eventually(t, "the object to be deferred", func() bool { return r.controller.Idle() && r.reconciled.count(key.String()) == 1 })
	r.controller.Enqueue(key) // and a reference of it changes
	r.clock.Step(10 * time.Second)
	r.eventually(t, "the controller to settle", r.controller.Idle)
	if got := r.reconciled.count(key.String()); got != 1 {
		t.Fatalf("the object was reconciled %d times before its turn, want once (the deferral)", got)
	}
	r.clock.Step(pauseOfB - 10*time.Second)
	r.eventually(t, "the object to reach Konnect at its turn", func() bool { return r.konnect.sent("b") == 2 })
	if got := r.reconciled.count(key.String()); got != 2 {
		t.Errorf("the object was reconciled %d times, want twice (deferred, then at its turn)", got)
	}
}
