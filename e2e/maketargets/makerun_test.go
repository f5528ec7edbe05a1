package maketargets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestMakeRunEndsCleanlyOnCtrlC is `make run` as a user types it, in a
// terminal (a pseudo-terminal here, so that Ctrl-C is the terminal's SIGINT
// to the foreground process group, as for a user): the sample becomes
// Programmed without Warning Events, the README's metrics command prints a
// few lines, the mirror and adoption samples apply with the IDs it prints, and Ctrl-C
// ends it with status 0, leaving no process behind.
func TestMakeRunEndsCleanlyOnCtrlC(t *testing.T) {
	ctx := t.Context()
	if signal.Ignored(syscall.SIGINT) {
		// Started in the background by a shell without job control, this
		// process ignores SIGINT, and so would make and the script, which
		// cannot trap a signal ignored when it started. Catching it here
		// makes the children start with the default disposition again.
		caught := make(chan os.Signal, 1)
		signal.Notify(caught, syscall.SIGINT)
		defer signal.Stop(caught)
	}
	kubectlPath := kubectlBinary(t)
	local := filepath.Join(t.TempDir(), "local")
	ports := freePorts(t, 3)
	cmd := exec.Command("make", "run")
	cmd.Dir = root
	cmd.Env = append(cleanEnv("KONNECT_TOKEN", "KUBECONFIG", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"),
		"KONNECT_OPERATOR_LOCAL="+local,
		"BIN_DIR="+filepath.Join(t.TempDir(), "bin"),
		"SIMULATOR_PORT="+ports[0], "METRICS_PORT="+ports[1], "HEALTH_PORT="+ports[2],
	)
	term, err := startInTerminal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer term.stop()

	ready, err := term.waitFor(`Press Ctrl-C to stop everything`, 10*time.Minute)
	if err != nil {
		t.Fatalf("make run did not get ready: %v\n%s", err, term.output())
	}
	if !strings.Contains(ready, "Every object is Programmed") {
		t.Errorf("make run did not see the sample Programmed:\n%s", ready)
	}

	kubectl := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, kubectlPath,
			append([]string{"--kubeconfig", filepath.Join(local, "kubeconfig")}, args...)...).CombinedOutput()
		return string(out), err
	}
	// Each of these samples names entities made in the simulator outside the
	// operator; make run prints the command that puts their IDs in. The
	// adoption sample goes to a namespace of its own, so that what its
	// adoption records stays out of the check of demo's Warnings below.
	for _, tc := range []struct{ sample, condition, object, namespace string }{
		{"konnect-gateway-control-plane-mirror", "Mirrored", "konnectgatewaycontrolplane/mirrored-cp", "demo"},
		{"kongservice-adopt", "Adopted", "kongroute/legacy-orders", "demo-adopt"},
	} {
		t.Run(tc.sample+" applies with the IDs make run prints", func(t *testing.T) {
			m := regexp.MustCompile(`(?m)^\s*(sed .* manifests/samples/` + tc.sample + `\.yaml) \| kubectl apply -n demo -f -$`).FindStringSubmatch(ready)
			if m == nil {
				t.Fatalf("make run prints no command for %s:\n%s", tc.sample, ready)
			}
			sed := exec.CommandContext(ctx, "sh", "-c", m[1])
			sed.Dir = root
			manifest, err := sed.Output()
			if err != nil {
				t.Fatal(err)
			}
			if out, err := kubectl("create", "namespace", tc.namespace); err != nil && !strings.Contains(out, "AlreadyExists") {
				t.Fatalf("%v: %s", err, out)
			}
			apply := exec.CommandContext(ctx, kubectlPath,
				"--kubeconfig", filepath.Join(local, "kubeconfig"), "apply", "-n", tc.namespace, "-f", "-")
			apply.Stdin = bytes.NewReader(manifest)
			if out, err := apply.CombinedOutput(); err != nil {
				t.Fatalf("kubectl apply: %v\n%s", err, out)
			}
			if out, err := kubectl("wait", "-n", tc.namespace, "--for=condition="+tc.condition, "--timeout=1m", tc.object); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
		})
	}
	t.Run("the README's metrics command prints a few lines", func(t *testing.T) {
		resp, err := http.Get("http://127.0.0.1:" + ports[1] + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		lines := regexp.MustCompile(`(?m)^konnect_operator_(entity_operations|konnect_requests)_total`).FindAll(body, -1)
		t.Logf("the metrics example prints %d lines of the %d in /metrics", len(lines), bytes.Count(body, []byte("\n")))
		if len(lines) == 0 || len(lines) > 40 {
			t.Fatalf("the metrics example prints %d lines, want a few", len(lines))
		}
	})
	t.Run("a clean first apply records no Warning", func(t *testing.T) {
		// Long enough for a reference problem to outlast its grace period.
		time.Sleep(12 * time.Second)
		out, err := kubectl("get", "events", "-n", "demo", "--field-selector", "type=Warning", "-o", "custom-columns=REASON:.reason,OBJECT:.involvedObject.name,MESSAGE:.message", "--no-headers")
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if strings.TrimSpace(out) != "" {
			t.Fatalf("Warning Events:\n%s", out)
		}
	})

	begin := time.Now()
	if err := term.ctrlC(); err != nil {
		t.Fatal(err)
	}
	err = term.wait(2 * time.Minute)
	t.Logf("make run stopped %s after Ctrl-C", time.Since(begin).Round(time.Millisecond))
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		t.Fatalf("make run ended with %v after Ctrl-C:\n%s", exit, term.output())
	case err != nil:
		t.Fatal(err)
	}
	if !strings.Contains(term.output(), "Stopped.") {
		t.Errorf("make run did not say it stopped:\n%s", term.output())
	}
	if left := processesMentioning(local); len(left) > 0 {
		t.Errorf("processes left running: %s", strings.Join(left, "; "))
	}
	for _, port := range ports {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
			_ = c.Close()
			t.Errorf("port %s still answers", port)
		}
	}
}

// cleanEnv returns the environment without the named variables.
func cleanEnv(drop ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, d := range drop {
			keep = keep && name != d
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var ports []string
	var listeners []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
		ports = append(ports, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	for _, l := range listeners {
		_ = l.Close()
	}
	return ports
}

// processesMentioning lists the processes whose command line contains s.
func processesMentioning(s string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(s)) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(bytes.TrimRight(cmdline, "\x00")), "\x00", " "))
		}
	}
	return out
}

// terminal is a command running in a pseudo-terminal of its own.
type terminal struct {
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	buf    bytes.Buffer
	done   chan error
	// drained is closed once everything written to the terminal has been
	// read (the last writer closed it); the command may exit before.
	drained chan struct{}
}

// startInTerminal starts cmd as the session leader of a new pseudo-terminal,
// its standard input, output and error.
func startInTerminal(cmd *exec.Cmd) (*terminal, error) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	var unlock int32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		_ = master.Close()
		return nil, fmt.Errorf("unlock the pseudo-terminal: %w", err)
	}
	var n uint32
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		_ = master.Close()
		return nil, fmt.Errorf("name the pseudo-terminal: %w", err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		_ = master.Close()
		return nil, err
	}
	defer func() { _ = slave.Close() }()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		_ = master.Close()
		return nil, err
	}
	term := &terminal{cmd: cmd, master: master, done: make(chan error, 1), drained: make(chan struct{})}
	go func() {
		defer close(term.drained)
		chunk := make([]byte, 4096)
		for {
			n, err := master.Read(chunk)
			term.mu.Lock()
			term.buf.Write(chunk[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { term.done <- cmd.Wait() }()
	return term, nil
}

func ioctl(f *os.File, request uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), request, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// output is what the command wrote, with the terminal's line ends made
// plain.
func (term *terminal) output() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return strings.ReplaceAll(term.buf.String(), "\r\n", "\n")
}

// waitFor waits until the output matches pattern and returns it.
func (term *terminal) waitFor(pattern string, timeout time.Duration) (string, error) {
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if out := term.output(); re.MatchString(out) {
			return out, nil
		}
		select {
		case err := <-term.done:
			term.done <- err
			return "", fmt.Errorf("the command ended before printing %q: %w", pattern, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	return "", fmt.Errorf("no %q after %s", pattern, timeout)
}

// ctrlC types Ctrl-C: the terminal sends SIGINT to its foreground process
// group.
func (term *terminal) ctrlC() error {
	_, err := term.master.Write([]byte{0x03})
	return err
}

// wait waits for the command to end and returns how it ended.
func (term *terminal) wait(timeout time.Duration) error {
	select {
	case err := <-term.done:
		term.done <- err
		// The last lines may still be on their way through the terminal.
		select {
		case <-term.drained:
		case <-time.After(5 * time.Second):
		}
		return err
	case <-time.After(timeout):
		return fmt.Errorf("still running %s after Ctrl-C", timeout)
	}
}

// stop ends a command that still runs, as a user would (Ctrl-C), and
// kills what is left of its process group if that does not work.
func (term *terminal) stop() {
	defer func() { _ = term.master.Close() }()
	select {
	case err := <-term.done:
		term.done <- err
		return
	default:
	}
	if term.ctrlC() == nil && term.wait(time.Minute) == nil {
		return
	}
	_ = syscall.Kill(-term.cmd.Process.Pid, syscall.SIGKILL)
}
