package localcluster

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// spawner starts child processes from one goroutine locked to its OS thread
// for the life of the cluster; see the package documentation for why.
type spawner struct {
	requests chan spawnRequest
	done     chan struct{}
}

type spawnRequest struct {
	cmd    *exec.Cmd
	result chan<- error
}

func newSpawner() *spawner {
	s := &spawner{requests: make(chan spawnRequest), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *spawner) loop() {
	defer close(s.done)
	runtime.LockOSThread()
	for req := range s.requests {
		req.result <- req.cmd.Start()
	}
	// Unlocking hands the thread back to the runtime instead of ending it; the
	// children are gone by now anyway.
	runtime.UnlockOSThread()
}

// start starts cmd on the spawner's thread.
func (s *spawner) start(cmd *exec.Cmd) error {
	result := make(chan error, 1)
	s.requests <- spawnRequest{cmd: cmd, result: result}
	return <-result
}

// close ends the spawner; it must not be used afterwards.
func (s *spawner) close() {
	close(s.requests)
	<-s.done
}

// childProcessAttributes puts a child in its own process group (so stopping
// it also reaches anything it forks, and a terminal's Ctrl-C reaches only the
// parent, which then stops the children in order) and has the kernel kill it
// when the thread that started it ends.
func childProcessAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// process is one running component.
type process struct {
	name     string
	cmd      *exec.Cmd
	tail     *tailBuffer
	exited   chan struct{}
	waitErr  error
	stopping atomic.Bool
	logFile  *os.File
}

// stop sends SIGTERM to the component's process group, and SIGKILL when it
// has not exited within grace.
func (p *process) stop(grace time.Duration) {
	p.stopping.Store(true)
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	if p.logFile != nil {
		_ = p.logFile.Close()
	}
}

// exitError returns the component's exit as an error with its last output.
func (p *process) exitError() *ComponentExitedError {
	err := p.waitErr
	if err == nil {
		err = errors.New("exit status 0")
	}
	return &ComponentExitedError{Component: p.name, Err: err, LogTail: p.tail.String()}
}

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu        sync.Mutex
	buf       []byte
	size      int
	truncated bool
}

func newTailBuffer(size int) *tailBuffer { return &tailBuffer{size: size} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if excess := len(t.buf) - t.size; excess > 0 {
		t.buf = append(t.buf[:0], t.buf[excess:]...)
		t.truncated = true
	}
	return len(p), nil
}

// String returns the kept bytes, starting at a line boundary when older
// bytes were dropped.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.buf
	if t.truncated {
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	return string(out)
}

// prefixWriter writes whole lines, each prefixed with the component name, to
// a writer shared by several components.
type prefixWriter struct {
	mu      *sync.Mutex
	w       io.Writer
	prefix  string
	pending []byte
}

func (p *prefixWriter) Write(data []byte) (int, error) {
	p.pending = append(p.pending, data...)
	for {
		i := bytes.IndexByte(p.pending, '\n')
		if i < 0 {
			return len(data), nil
		}
		p.mu.Lock()
		_, err := fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.pending[:i])
		p.mu.Unlock()
		p.pending = p.pending[i+1:]
		if err != nil {
			return len(data), err
		}
	}
}
