package konnectsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// TestConcurrentClients: parallel writers and readers on fresh and shared
// control planes neither lose writes nor break uniqueness (run with -race).
func TestConcurrentClients(t *testing.T) {
	ts, c := startSim(t, Options{})
	shared := c.newCP("shared", nil)
	const workers, perWorker = 8, 15
	errs := make(chan error, workers*perWorker*3)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			own := ""
			for i := range perWorker {
				send := func(method, path, body string, want int) {
					req, _ := http.NewRequest(method, ts.URL+path, bytes.NewBufferString(body))
					req.Header.Set("Authorization", "Bearer "+testToken)
					if body != "" {
						req.Header.Set("Content-Type", "application/json")
					}
					resp, err := c.http.Do(req)
					if err != nil {
						errs <- err
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					if resp.StatusCode != want {
						errs <- fmt.Errorf("%s %s = %d, want %d", method, path, resp.StatusCode, want)
					}
				}
				if i == 0 {
					req, _ := http.NewRequest("POST", ts.URL+"/v2/control-planes", bytes.NewBufferString(fmt.Sprintf(`{"name":"own-%d"}`, w)))
					req.Header.Set("Authorization", "Bearer "+testToken)
					req.Header.Set("Content-Type", "application/json")
					resp, err := c.http.Do(req)
					if err != nil {
						errs <- err
						return
					}
					var body map[string]any
					_ = json.NewDecoder(resp.Body).Decode(&body)
					_ = resp.Body.Close()
					own, _ = body["id"].(string)
				}
				send("POST", coreURL(shared, "services"), fmt.Sprintf(`{"name":"s-%d-%d","host":"x","tags":["w%d"]}`, w, i, w), 201)
				send("GET", coreURL(own, "services?tags=none"), "", 200)
				send("GET", coreURL(shared, "vaults"), "", 200)
				send("PUT", coreURL(own, fmt.Sprintf("consumers/u-%d", i)), `{"tags":["t"]}`, 200)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(ts.Entities("org-a", shared, "services")); n != workers*perWorker {
		t.Errorf("%d services in the shared control plane, want %d", n, workers*perWorker)
	}
}
