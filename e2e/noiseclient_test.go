package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// noiseClient is another client of an organisation (a decK run in CI, say)
// that spends its whole window: it sends as fast as it can, and when
// refused waits out the Retry-After and starts again.
type noiseClient struct {
	token  string
	client *http.Client
	// refused is closed at the first refusal: the window is spent.
	refused     chan struct{}
	refusedOnce sync.Once

	mu             sync.Mutex
	sent, rejected int
	pausedUntil    time.Time
}

func newNoiseClient(token string) *noiseClient {
	pool := x509.NewCertPool()
	if pem, err := os.ReadFile(suite.sim.caFile); err == nil {
		pool.AppendCertsFromPEM(pem)
	}
	return &noiseClient{
		token:   token,
		refused: make(chan struct{}),
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
			MaxIdleConnsPerHost: noiseSenders,
		}},
	}
}

// noiseSenders is how many requests the other client has under way: enough
// to spend a window of 3,000 within seconds, with Konnect 250 ms away.
const noiseSenders = 64

// run sends until the time until; the window it spent stays spent.
func (n *noiseClient) run(ctx context.Context, until time.Time) {
	var wg sync.WaitGroup
	for range noiseSenders {
		wg.Go(func() {
			for time.Now().Before(until) && ctx.Err() == nil {
				n.mu.Lock()
				pause := time.Until(n.pausedUntil)
				n.mu.Unlock()
				if pause > 0 {
					select {
					case <-ctx.Done():
						return
					case <-time.After(min(pause, time.Until(until))):
					}
					continue
				}
				n.send(ctx)
			}
		})
	}
	wg.Wait()
}

func (n *noiseClient) send(ctx context.Context) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, suite.sim.url+"/v2/control-planes", nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+n.token)
	resp, err := n.client.Do(req)
	if err != nil {
		return
	}
	_ = resp.Body.Close()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent++
	if resp.StatusCode != http.StatusTooManyRequests {
		return
	}
	n.rejected++
	n.refusedOnce.Do(func() { close(n.refused) })
	if seconds, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		n.pausedUntil = time.Now().Add(time.Duration(seconds) * time.Second)
	}
}

func (n *noiseClient) counts() (sent, refused int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sent, n.rejected
}
