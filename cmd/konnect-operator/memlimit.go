package main

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// memoryLimitShare is the share of the container's memory limit that the
// Go runtime is asked to stay under (GOMEMLIMIT), leaving the rest to what
// the runtime does not count (stacks, the binary, buffers of the kernel).
const memoryLimitShare = 0.9

// cacheGCPercent is how far the heap may grow over what is live before the
// Go runtime collects (GOGC), unless GOGC says otherwise. Nearly all of the
// operator's heap is its caches, which live as long as the process, and it
// makes garbage at the pace of its watches and of Konnect's budget: Go's
// default of 100 would keep as much memory again as the caches hold, for
// garbage that the collector can take back sooner at little cost.
const cacheGCPercent = 25

// cgroupMemoryFiles hold the container's memory limit: cgroup v2, then v1.
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// setMemoryLimit gives the Go runtime a soft memory limit of 90% of the
// container's, unless GOMEMLIMIT says otherwise. Without one the heap may
// grow to twice what is live before a collection (GOGC=100): an operator
// whose caches hold 400 MiB would then use 800, and be killed at a limit
// of 512 rather than collect sooner. It returns the limit set, 0 for none.
func setMemoryLimit(files []string) int64 {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return 0
	}
	limit := containerMemoryLimit(files)
	if limit <= 0 {
		return 0
	}
	soft := int64(float64(limit) * memoryLimitShare)
	debug.SetMemoryLimit(soft)
	return soft
}

// containerMemoryLimit reads the memory limit of the process's cgroup, 0
// when there is none (or it cannot be read).
func containerMemoryLimit(files []string) int64 {
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		value := strings.TrimSpace(string(data))
		if value == "max" {
			return 0
		}
		limit, err := strconv.ParseInt(value, 10, 64)
		// cgroup v1 says "no limit" with a number near the largest int64.
		if err != nil || limit <= 0 || limit >= 1<<60 {
			return 0
		}
		return limit
	}
	return 0
}

// setGCPercent sets the collector's target to cacheGCPercent unless GOGC
// is set, and returns the percentage set, 0 for none.
func setGCPercent() int {
	if _, set := os.LookupEnv("GOGC"); set {
		return 0
	}
	debug.SetGCPercent(cacheGCPercent)
	return cacheGCPercent
}
