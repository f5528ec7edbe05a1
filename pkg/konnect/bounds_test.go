package konnect

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/operations"
	"github.com/prometheus/client_golang/prometheus"
)

// The tests of this file stand a hostile server in for Konnect: one that
// answers without end, pages without end, claims organisations or stalls.
// Each checks that what the server did happened (bytes written, pages
// asked for) and that the client stopped where its bounds say.

// hostileServer is an HTTPS server whose handler the test writes, and
// that counts what it wrote and what it was asked.
type hostileServer struct {
	srv     *httptest.Server
	written atomic.Int64

	mu    sync.Mutex
	asked []*http.Request
}

func newHostileServer(t *testing.T, handle func(h *hostileServer, w http.ResponseWriter, r *http.Request)) *hostileServer {
	t.Helper()
	h := &hostileServer{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.asked = append(h.asked, r)
		h.mu.Unlock()
		handle(h, w, r)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hostileServer) requests() []*http.Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*http.Request(nil), h.asked...)
}

func (h *hostileServer) factory(opts Options) *ClientFactory {
	pool := x509.NewCertPool()
	pool.AddCert(h.srv.Certificate())
	opts.RootCAs = pool
	if opts.RequestsPerSecond == 0 {
		opts.RequestsPerSecond, opts.Burst = 1e6, 1e6
	}
	return NewClientFactory(opts)
}

// stream writes n bytes of a JSON array's elements, as a page whose data
// never ends would, without holding them: the same chunk again and again.
// It stops when the client goes.
func (h *hostileServer) stream(w http.ResponseWriter, n int64) {
	chunk := []byte(strings.Repeat(`{"id":"x"},`, 1<<10))
	if _, err := io.WriteString(w, `{"data":[`); err != nil {
		return
	}
	for sent := int64(0); sent < n; sent += int64(len(chunk)) {
		written, err := w.Write(chunk)
		h.written.Add(int64(written))
		if err != nil {
			return
		}
	}
}

// TestAnswersLongerThanTheirLimitAreRefusedAsTheServersFault: an answer
// of 1 GiB, announced or not, is refused once the client's limit is read
// (a page's for a listing, an answer's otherwise), with a
// *ServerFaultError naming the server and the limit; the server could
// write no more than the limit and what the connection buffers before
// the client hung up.
func TestAnswersLongerThanTheirLimitAreRefusedAsTheServersFault(t *testing.T) {
	const (
		limit   = 16 << 10
		oneGiB  = 1 << 30
		buffers = 32 << 20 // what loopback sockets and TLS may hold unread
	)
	for _, tt := range []struct {
		name      string
		announced bool
		call      func(ctx context.Context, api API) error
	}{
		{"an entity, its length announced", true, func(ctx context.Context, api API) error {
			_, err := Call(ctx, serviceOp("get"), func(ctx context.Context) (*operations.GetServiceResponse, error) {
				return api.Services.GetService(ctx, testID, testCP)
			})
			return err
		}},
		{"an entity, streamed", false, func(ctx context.Context, api API) error {
			_, err := Call(ctx, serviceOp("get"), func(ctx context.Context) (*operations.GetServiceResponse, error) {
				return api.Services.GetService(ctx, testID, testCP)
			})
			return err
		}},
		{"a page read raw", false, func(ctx context.Context, api API) error {
			_, err := ListAll(ctx, serviceOp("list"), nil, func(ctx context.Context, page Page) ([]json.RawMessage, *string, error) {
				got, err := api.Pages.ReadPage(ctx, "/v2/control-planes/"+testCP+"/core-entities/services", page)
				return got.Data, got.Offset, err
			})
			return err
		}},
		{"a page read by the SDK", true, func(ctx context.Context, api API) error {
			_, err := calls{api: api}.listServices(ctx, testCP)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostileServer(t, func(h *hostileServer, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tt.announced {
					w.Header().Set("Content-Length", strconv.Itoa(oneGiB))
				}
				h.stream(w, oneGiB)
			})
			f := h.factory(Options{MaxAnswerBytes: limit, MaxPageBytes: limit})
			api := must[API](t, "api")(f.API(h.srv.URL, testToken))
			err := tt.call(t.Context(), api)
			var fault *ServerFaultError
			if !errors.As(err, &fault) || fault.Fault != FaultBodyTooLarge {
				t.Fatalf("a 1 GiB answer: %v, want a refused answer (%s)", err, FaultBodyTooLarge)
			}
			host := strings.TrimPrefix(h.srv.URL, "https://")
			if !strings.Contains(err.Error(), "16 KiB") || !strings.Contains(err.Error(), host) {
				t.Errorf("the error %q does not name the limit (16 KiB) and the server %s", err, host)
			}
			if written := h.written.Load(); written > buffers {
				t.Errorf("the server wrote %d bytes before the client hung up, want at most the limit and the buffers (%d)", written, buffers)
			}
			if IsTransient(err) {
				t.Error("a refused answer is classified as transient: it would be retried at once")
			}
		})
	}
}

// TestAListingPageTooLargeIsAskedAgainSmaller: a page of 1,000 entities
// over the page limit is asked for again in pages of 100, which fit; one
// that does not fit even then is refused.
func TestAListingPageTooLargeIsAskedAgainSmaller(t *testing.T) {
	const limit = 16 << 10
	for _, tt := range []struct {
		name        string
		smallFits   bool
		wantSizes   []string
		wantRefused bool
	}{
		{"entities ten times larger than a full page allows", true, []string{"1000", "100"}, false},
		{"entities larger still", false, []string{"1000", "100"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostileServer(t, func(h *hostileServer, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.URL.Query().Get("size") == "100" && tt.smallFits {
					_, _ = io.WriteString(w, `{"data":[{"id":"a"}],"offset":null}`)
					return
				}
				h.stream(w, 1<<20)
			})
			api := must[API](t, "api")(h.factory(Options{MaxPageBytes: limit}).API(h.srv.URL, testToken))
			got, err := ListAll(t.Context(), serviceOp("list"), nil, func(ctx context.Context, page Page) ([]json.RawMessage, *string, error) {
				p, err := api.Pages.ReadPage(ctx, "/v2/control-planes/"+testCP+"/core-entities/services", page)
				return p.Data, p.Offset, err
			})
			var sizes []string
			for _, r := range h.requests() {
				sizes = append(sizes, r.URL.Query().Get("size"))
			}
			if strings.Join(sizes, ",") != strings.Join(tt.wantSizes, ",") {
				t.Errorf("pages asked in sizes %v, want %v", sizes, tt.wantSizes)
			}
			switch {
			case tt.wantRefused && !IsServerFault(err):
				t.Fatalf("listing: %v, want a refused answer", err)
			case !tt.wantRefused && (err != nil || len(got) != 1):
				t.Fatalf("listing: %d entities, %v; want the one of the smaller page", len(got), err)
			}
		})
	}
}

// TestListingsStopAtTheirLimits: a server that pages without end, pages
// that do not get smaller, or an offset it named before stop the listing
// at its limit, with the fault that says which; the server was asked for
// exactly the pages up to it.
func TestListingsStopAtTheirLimits(t *testing.T) {
	limits := ListingLimits{Entities: 25, Pages: 5, Bytes: 6 << 10}
	for _, tt := range []struct {
		name      string
		page      func(n int) (entities int, padding int, next string)
		wantFault Fault
		wantPages int
		wantText  string
	}{
		{"pages without end", func(n int) (int, int, string) { return 1, 0, fmt.Sprint("o", n) }, FaultListingTooLong, 5, "after 5 pages"},
		{"more entities than a listing holds", func(n int) (int, int, string) { return 10, 0, fmt.Sprint("o", n) }, FaultListingTooLong, 3, "more than 25 entities"},
		{"an offset named twice", func(int) (int, int, string) { return 1, 0, "same" }, FaultRepeatedPage, 2, `"same"`},
		{"more bytes than an organisation's listings hold", func(n int) (int, int, string) { return 1, 2 << 10, fmt.Sprint("o", n) }, FaultListingTooLong, 3, "6 KiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var served atomic.Int32
			h := newHostileServer(t, func(_ *hostileServer, w http.ResponseWriter, _ *http.Request) {
				n, padding, next := tt.page(int(served.Add(1)))
				items := make([]string, n)
				for i := range items {
					items[i] = fmt.Sprintf(`{"id":"e%d","name":"%s"}`, i, strings.Repeat("x", padding))
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = fmt.Fprintf(w, `{"data":[%s],"offset":%q}`, strings.Join(items, ","), next)
			})
			api := must[API](t, "api")(h.factory(Options{Listing: limits}).API(h.srv.URL, testToken))
			_, err := ListAll(t.Context(), serviceOp("list"), nil, func(ctx context.Context, page Page) ([]json.RawMessage, *string, error) {
				p, err := api.Pages.ReadPage(ctx, "/v2/control-planes/"+testCP+"/core-entities/services", page)
				return p.Data, p.Offset, err
			})
			var fault *ServerFaultError
			if !errors.As(err, &fault) || fault.Fault != tt.wantFault || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("listing: %v, want %s saying %q", err, tt.wantFault, tt.wantText)
			}
			if got := len(h.requests()); got != tt.wantPages {
				t.Errorf("the server was asked for %d pages, want %d", got, tt.wantPages)
			}
		})
	}
}

// TestAnOrganisationsListingsShareOneBudget: what one listing of an
// organisation holds counts against another running beside it; once the
// first is done, the second has the whole budget again.
func TestAnOrganisationsListingsShareOneBudget(t *testing.T) {
	page := `{"data":[{"id":"a","name":"` + strings.Repeat("x", 3<<10) + `"}],"offset":null}`
	h := newHostileServer(t, func(_ *hostileServer, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, page)
	})
	api := must[API](t, "api")(h.factory(Options{Listing: ListingLimits{Bytes: 5 << 10}}).API(h.srv.URL, testToken))
	read := func(ctx context.Context) error {
		_, err := api.Pages.ReadPage(ctx, "/v2/control-planes/"+testCP+"/core-entities/services", Page{Size: 1})
		return err
	}
	ctx, first := StartListing(t.Context(), serviceOp("list"))
	if err := read(ctx); err != nil {
		t.Fatalf("the first listing: %v", err)
	}
	ctx2, second := StartListing(t.Context(), serviceOp("list"))
	if err := read(ctx2); !IsServerFault(err) {
		t.Fatalf("a second listing beside the first: %v, want it refused (3 KiB + 3 KiB > 5 KiB)", err)
	}
	second.Done()
	first.Done()
	ctx3, third := StartListing(t.Context(), serviceOp("list"))
	defer third.Done()
	if err := read(ctx3); err != nil {
		t.Fatalf("a listing after both ended: %v, want the budget free again", err)
	}
}

// TestAnOrganisationIDThatIsNoUUIDIsRefused: Me refuses an ID of another
// shape before it names a limiter or a metric series.
func TestAnOrganisationIDThatIsNoUUIDIsRefused(t *testing.T) {
	for _, id := range []string{"org-1", strings.Repeat("a", 36), "D99C041A-C7CF-46A2-BF3A-44BB5F75400E-", `"><script>`} {
		t.Run(id, func(t *testing.T) {
			h := newHostileServer(t, func(_ *hostileServer, w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]string{"id": id, "name": "x"})
			})
			reg := prometheus.NewRegistry()
			f := h.factory(Options{Metrics: NewMetrics(reg)})
			_, err := f.Organization(t.Context(), h.srv.URL, testToken)
			var fault *ServerFaultError
			if !errors.As(err, &fault) || fault.Fault != FaultOrganizationID {
				t.Fatalf("Me answered %q: %v, want %s", id, err, FaultOrganizationID)
			}
			if got := f.Limiters(); got != 1 {
				t.Errorf("%d limiters, want only the token's", got)
			}
			if series := seriesOf(t, reg, id); len(series) > 0 {
				t.Errorf("series labelled with the refused ID: %v", series)
			}
			if len(h.requests()) != 1 {
				t.Errorf("%d requests, want the one Me", len(h.requests()))
			}
		})
	}
}

// seriesOf names the metric families that hold a series labelled with
// organization.
func seriesOf(t *testing.T, reg *prometheus.Registry, organization string) []string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "organization" && l.GetValue() == organization {
					out = append(out, f.GetName())
				}
			}
		}
	}
	return out
}

// TestAListingOfASmallCollectionStopsAtItsOwnLimit: AtMost lowers the
// entity limit of one listing below the client's.
func TestAListingOfASmallCollectionStopsAtItsOwnLimit(t *testing.T) {
	_, listing := StartListing(t.Context(), Operation{Verb: "list", Entity: "control_plane"})
	defer listing.Done()
	listing.AtMost(15)
	if err := listing.Page(10, "2"); err != nil {
		t.Fatalf("10 of at most 15: %v", err)
	}
	err := listing.Page(10, "3")
	var fault *ServerFaultError
	if !errors.As(err, &fault) || fault.Fault != FaultListingTooLong || !strings.Contains(err.Error(), "more than 15 entities") {
		t.Fatalf("20 of at most 15: %v, want the listing refused at 15", err)
	}
}

// TestTheListingsOfOneWholeShareItsEntityLimit: listings started within
// another (each group's members within a control plane's memberships)
// count their entities against the whole's limit, though each alone is
// within its own.
func TestTheListingsOfOneWholeShareItsEntityLimit(t *testing.T) {
	ctx, whole := StartListing(t.Context(), Operation{Verb: "list", Entity: "consumer_group_member"})
	defer whole.Done()
	whole.read.sentBy(ListingLimits{Entities: 100}, "konnect.example")
	part := func() error {
		_, l := StartListing(ctx, Operation{Verb: "list", Entity: "consumer"})
		defer l.Done()
		l.read.sentBy(ListingLimits{Entities: 100}, "konnect.example")
		return l.Page(60, "")
	}
	if err := part(); err != nil {
		t.Fatalf("the first part, 60 of 100: %v", err)
	}
	err := part()
	if !IsServerFault(err) || !strings.Contains(err.Error(), "more than 100 entities in all") {
		t.Fatalf("the second part, 120 of 100 in all: %v, want the whole refused", err)
	}
}
