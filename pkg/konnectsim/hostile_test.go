package konnectsim

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestAHostileSimulatorPagesWithoutEnd: endless pages are full, of the
// size asked for, made up after the real first entity, and each names a
// page not named before (control planes: a total that never runs out);
// a repeated cursor names the same page every time. Me still answers.
func TestAHostileSimulatorPagesWithoutEnd(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("hostile", nil)
	c.do("POST", coreURL(cp, "services"), map[string]any{"name": "real", "host": "example.com"}).must(t, 201)

	ts.SetHostile(Hostile{EndlessPages: true})
	offsets := map[string]bool{}
	path := coreURL(cp, "services") + "?size=50"
	for range 3 {
		page := c.do("GET", path, nil).must(t, 200)
		data := page["data"].([]any)
		if len(data) != 50 {
			t.Fatalf("a made-up page holds %d entities, want the 50 asked for", len(data))
		}
		if host := data[0].(map[string]any)["host"]; host != "example.com" {
			t.Fatalf("a made-up service has host %v, want the real one's", host)
		}
		offset, _ := page["offset"].(string)
		if offset == "" || offsets[offset] {
			t.Fatalf("offset %q: want a new one on every page", offset)
		}
		offsets[offset] = true
		path = coreURL(cp, "services") + "?size=50&offset=" + offset
	}
	planes := c.do("GET", "/v2/control-planes?page[size]=10&page[number]=7", nil).must(t, 200)
	if n := len(planes["data"].([]any)); n != 10 {
		t.Fatalf("a made-up page of control planes holds %d, want 10", n)
	}
	if total := planes["meta"].(map[string]any)["page"].(map[string]any)["total"].(float64); total < 1e12 {
		t.Fatalf("the control planes' total is %v, want one that never runs out", total)
	}

	ts.SetHostile(Hostile{RepeatedCursor: true})
	first := c.do("GET", coreURL(cp, "services"), nil).must(t, 200)["offset"]
	again := c.do("GET", coreURL(cp, "services")+"?offset=x", nil).must(t, 200)["offset"]
	if first != again {
		t.Fatalf("repeated cursor named %v then %v, want the same", first, again)
	}
	c.do("GET", "/v3/organizations/me", nil).must(t, 200)
	if got := ts.HostileServed().Pages; got != 6 {
		t.Fatalf("%d made-up pages served, want 6", got)
	}
}

// TestAHostileSimulatorStreamsStallsAndClaims: a body of the size set is
// streamed to a client that reads it all; a stalled request ends only
// when the client gives up; Me answers the organisation ID set.
func TestAHostileSimulatorStreamsStallsAndClaims(t *testing.T) {
	ts, c := startSim(t, Options{})
	const size = 3<<20 + 7
	ts.SetHostile(Hostile{BodyBytes: size, OrganizationID: "not-a-uuid"})
	if id := c.do("GET", "/v3/organizations/me", nil).must(t, 200)["id"]; id != "not-a-uuid" {
		t.Fatalf("Me answered %v, want the claimed ID", id)
	}
	resp := c.raw(t, "/v2/control-planes")
	n, err := io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err != nil || n != size {
		t.Fatalf("read %d bytes (%v), want %d", n, err, size)
	}
	if got := ts.HostileServed().StreamedBytes; got != size-int64(len(`{"data":[`)) {
		t.Fatalf("%d bytes streamed, want %d", got, size-len(`{"data":[`))
	}

	ts.SetHostile(Hostile{Stall: true})
	c.http.Timeout = 200 * time.Millisecond
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v2/control-planes", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err = c.http.Do(req)
	if err == nil {
		_ = resp.Body.Close()
	}
	if !errors.Is(err, context.DeadlineExceeded) && !isTimeout(err) {
		t.Fatalf("a stalled request: %v, want the client's timeout", err)
	}
	if got := ts.HostileServed().Stalls; got != 1 {
		t.Fatalf("%d stalls, want 1", got)
	}
}

func isTimeout(err error) bool {
	var timeout interface{ Timeout() bool }
	return errors.As(err, &timeout) && timeout.Timeout()
}

// raw sends an authenticated GET and returns the answer unread.
func (c *apiClient) raw(t *testing.T, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
