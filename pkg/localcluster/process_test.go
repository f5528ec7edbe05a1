package localcluster

import (
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestTailBufferKeepsTheEndFromALineBoundary(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		writes []string
		want   string
	}{
		{name: "short output is kept whole", size: 64, writes: []string{"one\n", "two\n"}, want: "one\ntwo\n"},
		{name: "overflow drops the oldest bytes up to a line start", size: 10, writes: []string{"first line\n", "ab\n", "cd\n"}, want: "ab\ncd\n"},
		{name: "output exactly filling the buffer is kept whole", size: 8, writes: []string{"abc\n", "def\n"}, want: "abc\ndef\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tail := newTailBuffer(tt.size)
			for _, w := range tt.writes {
				if n, err := tail.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := tail.String(); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPrefixWriterPrefixesWholeLines(t *testing.T) {
	var out strings.Builder
	var mu sync.Mutex
	w := &prefixWriter{mu: &mu, w: &out, prefix: "[etcd] "}
	for _, chunk := range []string{"hel", "lo\nwor", "ld\n", "partial"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := out.String(), "[etcd] hello\n[etcd] world\n"; got != want {
		t.Fatalf("got %q, want %q (a partial line waits for its end)", got, want)
	}
}

// startFromExitingLockedGoroutine starts `sleep` through start from a
// goroutine that locks its thread and returns still locked, which ends the
// thread. The channel receives the child's wait status when it exits.
func startFromExitingLockedGoroutine(t *testing.T, start func(*exec.Cmd) error) <-chan syscall.WaitStatus {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = childProcessAttributes()
	errs := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		errs <- start(cmd)
	}()
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	exited := make(chan syscall.WaitStatus, 1)
	go func() {
		_ = cmd.Wait()
		exited <- cmd.ProcessState.Sys().(syscall.WaitStatus)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return exited
}

func TestChildrenStartedOnTheSpawnerOutliveTheCallersThread(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep binary")
	}
	s := newSpawner()
	defer s.close()
	exited := startFromExitingLockedGoroutine(t, s.start)
	select {
	case status := <-exited:
		t.Fatalf("child started through the spawner died (%v) when the caller's thread ended", status.Signal())
	case <-time.After(time.Second):
	}
}

// The control experiment: without the spawner the caller's ended thread takes
// the child with it, which is what the spawner exists to prevent. If this
// stops failing, the runtime kept the thread (for example the main thread,
// which it parks instead of ending), and the test above proves nothing.
func TestChildrenStartedOnAnEndingThreadAreKilled(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep binary")
	}
	exited := startFromExitingLockedGoroutine(t, (*exec.Cmd).Start)
	select {
	case status := <-exited:
		if status.Signal() != syscall.SIGKILL {
			t.Fatalf("child of an ended thread exited with %v, want killed by SIGKILL", status)
		}
	case <-time.After(time.Minute):
		t.Fatal("child of an ended thread still runs")
	}
}
