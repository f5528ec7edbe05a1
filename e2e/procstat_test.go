package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicksPerSecond is USER_HZ, the unit of utime and stime in
// /proc/PID/stat: 100 on every Linux architecture Go builds this suite for.
const clockTicksPerSecond = 100

// procSample is what /proc says of a process at one moment.
type procSample struct {
	at      time.Time
	rss     int64 // VmRSS, bytes
	peakRSS int64 // VmHWM, bytes: the highest RSS since the process started
	cpu     time.Duration
}

// readProc reads the memory and CPU time of process pid from
// /proc/PID/status and /proc/PID/stat.
func readProc(pid int) (procSample, error) {
	s := procSample{at: time.Now()}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	scanner := bufio.NewScanner(bytes.NewReader(status))
	for scanner.Scan() {
		field, value, ok := strings.Cut(scanner.Text(), ":")
		if !ok {
			continue
		}
		switch field {
		case "VmRSS":
			s.rss, err = kibibytes(value)
		case "VmHWM":
			s.peakRSS, err = kibibytes(value)
		}
		if err != nil {
			return s, fmt.Errorf("/proc/%d/status: %s: %w", pid, field, err)
		}
	}
	if s.rss == 0 || s.peakRSS == 0 {
		return s, fmt.Errorf("/proc/%d/status has no VmRSS or VmHWM", pid)
	}

	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, err
	}
	// The command name, in parentheses, may hold spaces: the fields that
	// follow are counted from its closing parenthesis. utime and stime are
	// fields 14 and 15; field 3 is the first after it.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return s, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 13 {
		return s, fmt.Errorf("/proc/%d/stat: %d fields after the command name", pid, len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return s, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	s.cpu = time.Duration(ticks) * time.Second / clockTicksPerSecond
	return s, nil
}

// kibibytes parses a /proc/PID/status size ("  123456 kB") into bytes.
func kibibytes(value string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), "kB")), 10, 64)
	return n << 10, err
}

// procSampler reads a process's /proc every second until its context ends
// or the process is gone.
type procSampler struct {
	pid     int
	mu      sync.Mutex
	samples []procSample
	err     error
}

func (p *procSampler) run(ctx context.Context) {
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		s, err := readProc(p.pid)
		p.mu.Lock()
		if err != nil {
			p.err = err
			p.mu.Unlock()
			return
		}
		p.samples = append(p.samples, s)
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// last returns the latest sample.
func (p *procSampler) last() (procSample, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.samples) == 0 {
		return procSample{}, false
	}
	return p.samples[len(p.samples)-1], true
}

// since returns the samples taken at or after t.
func (p *procSampler) since(t time.Time) []procSample {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []procSample
	for _, s := range p.samples {
		if !s.at.Before(t) {
			out = append(out, s)
		}
	}
	return out
}

// failure returns why sampling stopped early, if it did.
func (p *procSampler) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}
