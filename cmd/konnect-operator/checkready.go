package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// checkReadyPeriod is how often checkReady asks again.
const checkReadyPeriod = 2 * time.Second

// errNotReady says that /readyz never answered 200 in time.
var errNotReady = errors.New("not ready")

// checkReady GETs url (a replica's /readyz) until it answers 200 or timeout
// passes, and says what it last heard on out. It is what the chart's `helm
// test` pod runs: the operator's image has no shell nor curl, and needs
// none.
func checkReady(ctx context.Context, out io.Writer, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: checkReadyPeriod}
	var last string
	for {
		status, body, err := get(ctx, client, url)
		switch {
		case err != nil:
			last = err.Error()
		case status == http.StatusOK:
			_, err := fmt.Fprintf(out, "%s: %d %s\n", url, status, body)
			return err
		default:
			last = fmt.Sprintf("%d %s", status, body)
		}
		select {
		case <-ctx.Done():
			_, _ = fmt.Fprintf(out, "%s: %s\n", url, last)
			return fmt.Errorf("%s after %s: %w (%s)", url, timeout, errNotReady, last)
		case <-time.After(checkReadyPeriod):
		}
	}
}

func get(ctx context.Context, client *http.Client, url string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close() //nolint:errcheck // read-only
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return resp.StatusCode, strings.TrimSpace(string(body)), nil
}
