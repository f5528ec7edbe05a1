package konnect

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxHeaderDelay caps delays read from response headers, so that a broken
// header cannot stop every controller for hours. Konnect's windows are a
// minute long.
const maxHeaderDelay = 10 * time.Minute

// defaultWindow is the length of a rate-limit window whose length Konnect
// does not state: RateLimit-Limit alone says how many requests, not over
// how long, and Konnect's windows have always been a minute.
const defaultWindow = time.Minute

// retryAfter is how long Konnect asks a rate-limited client to wait:
// Retry-After (seconds or an HTTP date), else RateLimit-Reset. The second
// result is false when the answer names no positive delay; Konnect's
// connection-level limiter answers 429 that way. An HTTP date is Konnect's
// wall-clock time, and is counted from now (the real time, whatever clock
// the limiter runs on).
func retryAfter(header http.Header, now time.Time) (time.Duration, bool) {
	if d, ok := headerSeconds(header, "Retry-After"); ok && d > 0 {
		return d, true
	}
	if v := header.Get("Retry-After"); v != "" {
		if at, err := http.ParseTime(v); err == nil {
			if d := at.Sub(now); d > 0 {
				return min(d, maxHeaderDelay), true
			}
		}
	}
	if d, ok := headerSeconds(header, "RateLimit-Reset"); ok && d > 0 {
		return d, true
	}
	return 0, false
}

// windowBudget is the organisation's budget as Konnect states it: how many
// requests per window, and how long the window is. X-RateLimit-Limit-Minute
// names its window; RateLimit-Limit is read with the window of a
// RateLimit-Policy "w=" parameter when there is one, else defaultWindow.
func windowBudget(header http.Header) (requests int64, window time.Duration, ok bool) {
	if n, ok := headerInt(header, "X-RateLimit-Limit-Minute"); ok && n > 0 {
		return n, time.Minute, true
	}
	n, ok := headerInt(header, "RateLimit-Limit")
	if !ok || n <= 0 {
		return 0, 0, false
	}
	window = defaultWindow
	if w, ok := policyWindow(header.Get("RateLimit-Policy")); ok {
		window = w
	}
	return n, window, true
}

// policyWindow reads the "w=" parameter (seconds) of the first policy in a
// RateLimit-Policy header such as `3000;w=60`.
func policyWindow(policy string) (time.Duration, bool) {
	first, _, _ := strings.Cut(policy, ",")
	for _, param := range strings.Split(first, ";")[1:] {
		name, value, found := strings.Cut(strings.TrimSpace(param), "=")
		if !found || !strings.EqualFold(strings.TrimSpace(name), "w") {
			continue
		}
		seconds, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || seconds <= 0 || time.Duration(seconds)*time.Second > maxHeaderDelay {
			return 0, false
		}
		return time.Duration(seconds) * time.Second, true
	}
	return 0, false
}

// headerSeconds reads a header holding a number of seconds (fractions
// allowed), capped at maxHeaderDelay.
func headerSeconds(header http.Header, name string) (time.Duration, bool) {
	v := strings.TrimSpace(header.Get(name))
	if v == "" {
		return 0, false
	}
	seconds, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(seconds) || seconds < 0 {
		return 0, false
	}
	if seconds > maxHeaderDelay.Seconds() {
		return maxHeaderDelay, true
	}
	return time.Duration(seconds * float64(time.Second)), true
}

// headerInt reads a header holding an integer. A list ("3000, 3000;w=60",
// as some RateLimit-Limit drafts send) is read up to its first item.
func headerInt(header http.Header, name string) (int64, bool) {
	v := strings.TrimSpace(header.Get(name))
	if v == "" {
		return 0, false
	}
	v, _, _ = strings.Cut(v, ",")
	v, _, _ = strings.Cut(v, ";")
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return n, err == nil
}
