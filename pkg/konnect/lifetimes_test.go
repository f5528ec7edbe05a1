package konnect

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/operations"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
)

// organizationServer answers Me with the organisation org() names, and
// any other request with an entity and a RateLimit-Remaining header (so
// that every series of the organisation exists).
func organizationServer(t *testing.T, org func() string) *hostileServer {
	return newHostileServer(t, func(_ *hostileServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("RateLimit-Remaining", "100")
		if r.URL.Path == "/v3/organizations/me" {
			_ = json.NewEncoder(w).Encode(map[string]string{"id": org(), "name": "org"})
			return
		}
		_, _ = io.WriteString(w, `{"id":"`+testID+`","host":"h"}`)
	})
}

func getService(ctx context.Context, c *Client) error {
	_, err := Call(ctx, serviceOp("get"), func(ctx context.Context) (*operations.GetServiceResponse, error) {
		return c.API().Services.GetService(ctx, testID, testCP)
	})
	return err
}

// TestForgetReleasesTheClientItsLimiterAndItsOrganisationsSeries: two
// tokens of one organisation share its limiter; forgetting one keeps it
// and the organisation's series, forgetting the last drops the limiter
// and every series labelled with the organisation, and a request still
// made through the forgotten client brings none back.
func TestForgetReleasesTheClientItsLimiterAndItsOrganisationsSeries(t *testing.T) {
	h := organizationServer(t, func() string { return orgA })
	reg := prometheus.NewRegistry()
	f := h.factory(Options{Metrics: NewMetrics(reg)})
	ctx := t.Context()
	one := must[*Client](t, "client one")(f.Client(h.srv.URL, "kpat_one"))
	two := must[*Client](t, "client two")(f.Client(h.srv.URL, "kpat_two"))
	if got := f.Limiters(); got != 2 {
		t.Fatalf("%d limiters before Me, want one per token", got)
	}
	for _, c := range []*Client{one, two} {
		must[Organization](t, "me")(c.Me(ctx))
		if err := getService(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.Limiters(); got != 1 {
		t.Fatalf("%d limiters after Me, want the organisation's alone", got)
	}
	before := seriesOf(t, reg, orgA)
	for _, name := range []string{MetricRequests, MetricDuration, MetricLimiterWait, MetricRemaining, MetricLimiterRate, MetricLimiterDeferrals, MetricInFlight} {
		if !contains(before, name) {
			t.Fatalf("no series %s{organization=%s} to release: %v", name, orgA, before)
		}
	}

	f.Forget(h.srv.URL, "kpat_one")
	if got, clients := f.Limiters(), f.Clients(); got != 1 || clients != 1 {
		t.Fatalf("after forgetting one of two tokens: %d limiters, %d clients; want 1 and 1", got, clients)
	}
	if len(seriesOf(t, reg, orgA)) == 0 {
		t.Fatal("the organisation's series went with one of its two clients")
	}
	f.Forget(h.srv.URL, "kpat_two")
	if got, clients := f.Limiters(), f.Clients(); got != 0 || clients != 0 {
		t.Fatalf("after forgetting both: %d limiters, %d clients; want none", got, clients)
	}
	if left := seriesOf(t, reg, orgA); len(left) > 0 {
		t.Fatalf("series of the organisation left after its last client: %v", left)
	}
	// Whoever still has a forgotten client (a request that waited for its
	// turn across a token's replacement) sends nothing with it.
	var transient *TransientError
	if err := getService(ctx, two); !errors.As(err, &transient) || !strings.Contains(err.Error(), "token was replaced") {
		t.Fatalf("a request through a forgotten client: %v, want it refused unsent", err)
	}
	if back := seriesOf(t, reg, orgA); len(back) > 0 {
		t.Fatalf("a request through a forgotten client brought series back: %v", back)
	}
}

// TestAServerClaimingOrganisationAfterOrganisationLeavesOneLimiter: a
// server that answers Me with a new organisation every time leaves the
// client one limiter, and series of the last organisation alone.
func TestAServerClaimingOrganisationAfterOrganisationLeavesOneLimiter(t *testing.T) {
	var claimed []string
	h := organizationServer(t, func() string {
		claimed = append(claimed, uuid.NewString())
		return claimed[len(claimed)-1]
	})
	reg := prometheus.NewRegistry()
	f := h.factory(Options{Metrics: NewMetrics(reg)})
	c := must[*Client](t, "client")(f.Client(h.srv.URL, testToken))
	for range 20 {
		must[Organization](t, "me")(c.Me(t.Context()))
		if err := getService(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.Limiters(); got != 1 {
		t.Errorf("%d limiters after 20 organisations claimed, want 1", got)
	}
	for i, org := range claimed {
		last := i == len(claimed)-1
		if present := len(seriesOf(t, reg, org)) > 0; present != last {
			t.Errorf("organisation %d of %d: series present %v, want %v", i+1, len(claimed), present, last)
		}
	}
}

// TestTheFactoryDropsTheClientUsedLeastRecentlyAtItsBound: past
// MaxClients, a new client takes the place of the one used least
// recently, whose limiter goes with it; the others stay.
func TestTheFactoryDropsTheClientUsedLeastRecentlyAtItsBound(t *testing.T) {
	h := organizationServer(t, func() string { return orgA })
	f := h.factory(Options{MaxClients: 2})
	client := func(token string) *Client { return must[*Client](t, token)(f.Client(h.srv.URL, token)) }
	one, two := client("kpat_one"), client("kpat_two")
	if client("kpat_one") != one {
		t.Fatal("the first client was not reused")
	}
	client("kpat_three")
	if got, limiters := f.Clients(), f.Limiters(); got != 2 || limiters != 2 {
		t.Fatalf("%d clients and %d limiters at a bound of 2", got, limiters)
	}
	if client("kpat_one") != one {
		t.Error("the client used most recently was dropped")
	}
	if client("kpat_two") == two {
		t.Error("the client used least recently was kept")
	}
}

// TestAnAnswerTrickledAfterItsHeadersStaysInFlightUntilRead: a server
// that sends its headers at once and its body slowly keeps one of the
// organisation's requests in flight until the body is read, so that the
// in-flight cap bounds what it ties up; a body that never comes ends at
// the request's timeout.
func TestAnAnswerTrickledAfterItsHeadersStaysInFlightUntilRead(t *testing.T) {
	release := make(chan struct{})
	var headersSent atomic.Bool
	h := newHostileServer(t, func(_ *hostileServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":[`)
		w.(http.Flusher).Flush()
		headersSent.Store(true)
		select {
		case <-release:
			_, _ = io.WriteString(w, `],"offset":null}`)
		case <-r.Context().Done():
		}
	})
	reg := prometheus.NewRegistry()
	f := h.factory(Options{Metrics: NewMetrics(reg), Timeout: time.Minute})
	api := must[API](t, "api")(f.API(h.srv.URL, testToken))
	read := func() <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := api.Pages.ReadPage(t.Context(), "/v2/control-planes/"+testCP+"/core-entities/services", Page{Size: 1})
			done <- err
		}()
		return done
	}
	done := read()
	waitUntil(t, "the headers to be sent", headersSent.Load)
	waitUntil(t, "the page to count in flight", func() bool { return gathered(t, reg, MetricInFlight, OrganizationUnknown) == 1 })
	select {
	case err := <-done:
		t.Fatalf("the page was read before its body came: %v", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := gathered(t, reg, MetricInFlight, OrganizationUnknown); got != 0 {
		t.Fatalf("%v requests in flight once the body was read, want 0", got)
	}

	// The stalled server never ends its answer, not even once the client
	// has gone: only the test's end lets its handler return.
	never := make(chan struct{})
	stalled := newHostileServer(t, func(_ *hostileServer, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":[`)
		w.(http.Flusher).Flush()
		<-never
	})
	t.Cleanup(func() { close(never) })
	sf := stalled.factory(Options{Metrics: NewMetrics(prometheus.NewRegistry()), Timeout: 200 * time.Millisecond})
	c := must[*Client](t, "client")(sf.Client(stalled.srv.URL, testToken))
	_, err := Call(t.Context(), serviceOp("list"), func(ctx context.Context) (RawPage, error) {
		return c.API().Pages.ReadPage(ctx, "/v2/control-planes/"+testCP+"/core-entities/services", Page{Size: 1})
	})
	if !IsTransient(err) || !contains([]string{err.Error()}, "list service: transient error: request timed out") {
		t.Fatalf("a body that never comes: %v, want the request timed out", err)
	}
	if got := c.limiter().state().inFlight; got != 0 {
		t.Fatalf("%d requests in flight after the timeout, want 0", got)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
