package fence

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const renewDeadline = 10 * time.Second

// TestWritesStopAtTheRenewDeadlineSinceTheLastRenewal: a Lease not yet
// held writes nothing; each renewal that succeeds holds it for the renew
// deadline from when it began; past it, or after a renewal that came too
// late, the Lease is lost for good.
func TestWritesStopAtTheRenewDeadlineSinceTheLastRenewal(t *testing.T) {
	type step struct {
		// after moves the clock; renewedAt, when set, records a renewal
		// begun that long before now.
		after     time.Duration
		renewed   bool
		renewedAt time.Duration
		wantOK    bool
	}
	tests := []struct {
		name  string
		steps []step
		lost  bool
	}{
		{name: "never acquired", steps: []step{{wantOK: false}}},
		{name: "acquired, then renewed every 2s", steps: []step{
			{renewed: true, wantOK: true},
			{after: 2 * time.Second, renewed: true, wantOK: true},
			{after: 2 * time.Second, renewed: true, wantOK: true},
			{after: 9 * time.Second, wantOK: true},
		}},
		{name: "not renewed for the renew deadline", lost: true, steps: []step{
			{renewed: true, wantOK: true},
			{after: renewDeadline - time.Millisecond, wantOK: true},
			{after: time.Millisecond, wantOK: false},
			{after: time.Second, renewed: true, wantOK: false},
		}},
		{name: "a renewal that began late counts from when it began", lost: true, steps: []step{
			{renewed: true, wantOK: true},
			{after: 5 * time.Second, renewed: true, renewedAt: 4 * time.Second, wantOK: true},
			{after: renewDeadline - 4*time.Second, wantOK: false},
		}},
		{name: "a renewal after a pause past the deadline does not hold it again", lost: true, steps: []step{
			{renewed: true, wantOK: true},
			{after: 40 * time.Second, renewed: true, wantOK: false},
			{after: time.Second, renewed: true, wantOK: false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(epoch)
			l := New(clk, renewDeadline)
			for i, s := range tt.steps {
				clk.SetTime(clk.Now().Add(s.after))
				if s.renewed {
					l.Renewed(clk.Now().Add(-s.renewedAt))
				}
				err := l.Check()
				if (err == nil) != s.wantOK {
					t.Fatalf("step %d: Check() = %v, want ok %v", i, err, s.wantOK)
				}
			}
			select {
			case <-l.Lost():
				if !tt.lost {
					t.Error("lost, want held")
				}
				var lost *LostError
				if !errors.As(l.Err(), &lost) {
					t.Errorf("Err() = %v, want a *LostError", l.Err())
				}
			default:
				if tt.lost {
					t.Error("not lost")
				}
			}
		})
	}
}

// recordingAPIServer stands in for the API server and records what
// reaches it.
type recordingAPIServer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	methods []string
}

func newRecordingAPIServer(t *testing.T) *recordingAPIServer {
	a := &recordingAPIServer{}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.methods = append(a.methods, r.Method+" "+r.URL.Path)
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","resourceVersion":"2"}}`))
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *recordingAPIServer) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.methods...)
}

// TestAProcessWhoseLeaseRanOutWritesNeitherToKonnectNorStatus: with the
// clock moved past the renew deadline since the last renewal, a Konnect
// create and a status write are refused without reaching either server;
// reads of both still go, and before the deadline both writes went.
func TestAProcessWhoseLeaseRanOutWritesNeitherToKonnectNorStatus(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	lease := New(clk, renewDeadline)
	sim := konnectsim.Start(t, konnectsim.Options{Tokens: map[string]string{"kpat_fence": "acme"}})
	factory := konnect.NewClientFactory(konnect.Options{RootCAs: sim.CAPool, Clock: clk, WriteFence: lease.Check})
	api, err := factory.API(sim.URL, "kpat_fence")
	if err != nil {
		t.Fatal(err)
	}
	apiServer := newRecordingAPIServer(t)
	kube := kubernetes.NewForConfigOrDie(&rest.Config{Host: apiServer.srv.URL, WrapTransport: lease.WrapTransport})
	ctx := context.Background()
	createControlPlane := func(name string) error {
		_, err := konnect.Call(ctx, konnect.Operation{Verb: "create", Entity: "control_plane"}, func(ctx context.Context) (*operations.CreateControlPlaneResponse, error) {
			return api.ControlPlanes.CreateControlPlane(ctx, components.CreateControlPlaneRequest{Name: name})
		})
		return err
	}
	listControlPlanes := func() error {
		_, err := konnect.Call(ctx, konnect.Operation{Verb: "list", Entity: "control_plane"}, func(ctx context.Context) (*operations.ListControlPlanesResponse, error) {
			return api.ControlPlanes.ListControlPlanes(ctx, operations.ListControlPlanesRequest{})
		})
		return err
	}
	writeStatus := func() error {
		_, err := kube.CoreV1().Pods("ns").UpdateStatus(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}, metav1.UpdateOptions{})
		return err
	}

	lease.Renewed(clk.Now())
	clk.Step(renewDeadline - time.Second)
	if err := createControlPlane("while-leading"); err != nil {
		t.Fatalf("a write while the Lease is held: %v", err)
	}
	if err := writeStatus(); err != nil {
		t.Fatalf("a status write while the Lease is held: %v", err)
	}

	clk.Step(time.Second)
	konnectBefore, apiBefore := len(sim.Requests()), len(apiServer.seen())
	err = createControlPlane("after-the-deadline")
	var refused *konnect.WriteRefusedError
	var lost *LostError
	if !errors.As(err, &refused) || !errors.As(err, &lost) {
		t.Fatalf("a Konnect write past the deadline: %v, want it refused for the lost Lease", err)
	}
	if err := writeStatus(); !errors.As(err, &lost) {
		t.Fatalf("a status write past the deadline: %v, want it refused for the lost Lease", err)
	}
	if n := len(sim.Requests()) - konnectBefore; n != 0 {
		t.Errorf("%d requests reached Konnect after the deadline", n)
	}
	if seen := apiServer.seen()[apiBefore:]; len(seen) != 0 {
		t.Errorf("requests reached the API server after the deadline: %v", seen)
	}
	select {
	case <-lease.Lost():
	default:
		t.Error("the Lease is not lost after a refused write")
	}

	if err := listControlPlanes(); err != nil {
		t.Errorf("a Konnect read after the deadline: %v", err)
	}
	if _, err := kube.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{}); err != nil {
		t.Errorf("a read of the API server after the deadline: %v", err)
	}
	if got := len(sim.ControlPlanes(mustOrg(t, sim))); got != 1 {
		t.Errorf("Konnect holds %d control planes, want only the one written while leading", got)
	}
}

func mustOrg(t *testing.T, sim *konnectsim.TestServer) string {
	t.Helper()
	id, ok := sim.OrganizationID("acme")
	if !ok {
		t.Fatal("no organisation acme")
	}
	return id
}

// fakeLock is a leader-election lock that accepts or refuses writes.
type fakeLock struct {
	resourcelock.Interface
	identity string
	fail     error
	// writes are the records written.
	writes []resourcelock.LeaderElectionRecord
}

func (f *fakeLock) Identity() string { return f.identity }
func (f *fakeLock) Create(_ context.Context, r resourcelock.LeaderElectionRecord) error {
	f.writes = append(f.writes, r)
	return f.fail
}
func (f *fakeLock) Update(_ context.Context, r resourcelock.LeaderElectionRecord) error {
	f.writes = append(f.writes, r)
	return f.fail
}

// TestLockCountsOnlyThisProcesssSuccessfulRenewals: a renewal holds the
// Lease from when it began; a failed one, and the release (which names no
// holder), do not.
func TestLockCountsOnlyThisProcesssSuccessfulRenewals(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	lease := New(clk, renewDeadline)
	inner := &fakeLock{identity: "me"}
	lock := lease.Lock(inner)
	ctx := context.Background()

	inner.fail = errors.New("conflict")
	_ = lock.Create(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
	if lease.Check() == nil {
		t.Fatal("held after a failed acquisition")
	}
	inner.fail = nil
	if err := lock.Create(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	if err := lease.Check(); err != nil {
		t.Fatalf("not held after the acquisition: %v", err)
	}
	clk.Step(renewDeadline / 2)
	_ = lock.Update(ctx, resourcelock.LeaderElectionRecord{HolderIdentity: ""}) // the release
	clk.Step(renewDeadline / 2)
	if lease.Check() == nil {
		t.Error("the release held the Lease longer")
	}
}

// TestAProcessThatMayHaveLostItsLeaseDoesNotReleaseIt: releasing writes a
// Lease without holder over whatever the Lease holds now, which may be
// another process's by then: it is refused once the renew deadline has
// passed, and goes while the Lease is held.
func TestAProcessThatMayHaveLostItsLeaseDoesNotReleaseIt(t *testing.T) {
	for _, tt := range []struct {
		name     string
		after    time.Duration
		released bool
	}{
		{name: "held", after: renewDeadline / 2, released: true},
		{name: "past the renew deadline", after: renewDeadline, released: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(epoch)
			lease := New(clk, renewDeadline)
			inner := &fakeLock{identity: "me"}
			lock := lease.Lock(inner)
			if err := lock.Update(context.Background(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
				t.Fatal(err)
			}
			clk.Step(tt.after)
			err := lock.Update(context.Background(), resourcelock.LeaderElectionRecord{})
			if released := len(inner.writes) == 2; released != tt.released || (err == nil) != tt.released {
				t.Errorf("released = %v (%v), want %v", released, err, tt.released)
			}
		})
	}
}
