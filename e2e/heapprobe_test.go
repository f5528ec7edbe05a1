package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// liveHeap asks the operator's profiler at base for a collection and returns
// the bytes the heap still holds after it (the runtime's HeapAlloc): what
// the operator's caches, records and indexes keep alive, without the
// garbage that RSS also counts until the next collection. With file set,
// it also writes the heap profile there (go tool pprof -sample_index=
// inuse_space reads it). The collection it forces comes after the RSS
// readings it is compared with.
func liveHeap(ctx context.Context, base, file string) (int64, error) {
	text, err := profilerGet(ctx, base+"/debug/pprof/heap?gc=1&debug=1")
	if err != nil {
		return 0, err
	}
	live, err := heapAllocOf(text)
	if err != nil {
		return 0, err
	}
	if file != "" {
		profile, err := profilerGet(ctx, base+"/debug/pprof/heap")
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(file, profile, 0o600); err != nil {
			return 0, err
		}
	}
	return live, nil
}

// heapAllocOf reads "# HeapAlloc = N" from a heap profile in its text form
// (debug=1), which ends with the runtime's memory statistics.
func heapAllocOf(text []byte) (int64, error) {
	scanner := bufio.NewScanner(bytes.NewReader(text))
	scanner.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for scanner.Scan() {
		if value, ok := strings.CutPrefix(scanner.Text(), "# HeapAlloc = "); ok {
			return strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		}
	}
	if err := scanner.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no HeapAlloc in the heap profile")
}

// profilerGet reads url from the operator's profiler.
func profilerGet(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, res.Status)
	}
	return io.ReadAll(res.Body)
}

func TestHeapAllocIsReadFromTheProfileText(t *testing.T) {
	text := "heap profile: 1: 2 [3: 4] @ heap/1048576\n\n# runtime.MemStats\n# Alloc = 123\n# TotalAlloc = 456\n# HeapAlloc = 789\n# HeapSys = 1000\n"
	got, err := heapAllocOf([]byte(text))
	if err != nil || got != 789 {
		t.Fatalf("heapAllocOf = %d, %v; want 789", got, err)
	}
	if _, err := heapAllocOf([]byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n")); err == nil {
		t.Fatal("a profile without HeapAlloc was read")
	}
}
