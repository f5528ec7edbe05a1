package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// process is a binary the suite runs, with its output in a log file.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	waitErr error
}

// startProcess runs binary with args and extra environment, its output in
// dir/name.log. The process dies with the test binary (parent-death signal).
func startProcess(dir, name string, env []string, binary string, args ...string) (*process, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &process{name: name, logPath: filepath.Join(dir, name+".log"), exited: make(chan struct{})}
	logFile, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(binary, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	p.cmd.Dir = suite.root
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		_ = logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

// running reports whether the process has not exited.
func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM (what Ctrl-C or a pod's termination sends) and
// SIGKILL after grace; it reports whether the process exited in time.
func (p *process) stop(grace time.Duration) bool {
	if !p.running() {
		return true
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return true
	case <-time.After(grace):
		p.kill()
		return false
	}
}

// kill ends the process at once, as a node failure or OOM kill would.
func (p *process) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// tail returns the last n bytes of the process's log.
func (p *process) tail(n int64) string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return err.Error()
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	return string(data)
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// simulator is the konnect-simulator binary serving HTTPS on loopback.
type simulator struct {
	process *process
	url     string
	caFile  string
	token   string
	// neighbours are tokens of other organisations (named neighbour-1, …),
	// for measurements with several organisations.
	neighbours []string
	client     *http.Client
}

// allowedHostsArg lets the operator, or kubectl konnect, send tokens to
// this simulator besides Konnect's own hosts.
func (s *simulator) allowedHostsArg() string {
	return "--konnect-allowed-hosts=" + strings.Join(append(slices.Clone(konnect.DefaultAllowedHosts), strings.TrimPrefix(s.url, "https://")), ",")
}

// simNeighbours is how many other organisations the simulator holds
// besides the suite's own.
const simNeighbours = 3

// neighbourName is the name of the organisation of neighbours[i].
func neighbourName(i int) string { return "neighbour-" + strconv.Itoa(i+1) }

// simRateLimitPerMinute is the simulator's budget per organisation: what
// Konnect has been seen to allow.
const simRateLimitPerMinute = 3000

// startSimulator runs the simulator binary in dir with token and
// neighbours as its organisations; extra flags come after the harness's.
func startSimulator(ctx context.Context, dir, token string, neighbours []string, extra ...string) (*simulator, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// The tokens go in a file, never on a command line.
	tokenFile := filepath.Join(dir, "tokens")
	tokens := token + "\n"
	for i, neighbour := range neighbours {
		tokens += neighbour + "=" + neighbourName(i) + "\n"
	}
	if err := os.WriteFile(tokenFile, []byte(tokens), 0o600); err != nil {
		return nil, err
	}
	s := &simulator{url: "https://127.0.0.1:" + strconv.Itoa(port), caFile: filepath.Join(dir, "ca.pem"), token: token, neighbours: neighbours}
	args := append([]string{
		"--listen=127.0.0.1:" + strconv.Itoa(port), "--ca-out=" + s.caFile, "--token-file=" + tokenFile, "--quiet",
		// Konnect's budget, with its RateLimit-* headers on every answer.
		"--rate-limit-per-minute=" + strconv.Itoa(simRateLimitPerMinute),
		// The provider account the cloud-gateway samples name.
		"--provider-account=aws=" + sampleProviderAccount,
	}, extra...)
	if s.process, err = startProcess(dir, "konnect-simulator", nil, filepath.Join(suite.binDir, "konnect-simulator"), args...); err != nil {
		return nil, err
	}
	err = eventually(ctx, patience, func(ctx context.Context) error {
		if !s.process.running() {
			return errors.New("exited: " + s.process.tail(2000))
		}
		if s.client == nil {
			pem, err := os.ReadFile(s.caFile)
			if err != nil {
				return err
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return errors.New("no certificate in " + s.caFile)
			}
			s.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
		}
		var health map[string]string
		return s.get(ctx, "/_sim/healthz", false, &health)
	})
	if err != nil {
		s.process.kill()
		return nil, fmt.Errorf("simulator did not come up: %w", err)
	}
	return s, nil
}

// get GETs path from the simulator (with the token for Konnect's own API)
// and decodes the JSON answer into out.
func (s *simulator) get(ctx context.Context, path string, authenticated bool, out any) error {
	return s.do(ctx, http.MethodGet, path, authenticated, nil, out)
}

func (s *simulator) do(ctx context.Context, method, path string, authenticated bool, body, out any) error {
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.url+path, reader)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if authenticated {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, data)
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, out)
}

// simOrg is an organisation as /_sim/orgs shows it.
type simOrg struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Entities int    `json:"entities"`
	// Requests and RateLimited count what the organisation's budget
	// allowed and refused since the simulator started.
	Requests    int `json:"requests"`
	RateLimited int `json:"rateLimited"`
}

// entities counts what the simulator holds: control planes and everything
// in them, over every organisation.
func (s *simulator) entities(ctx context.Context) (int, error) {
	var orgs []simOrg
	if err := s.get(ctx, "/_sim/orgs", false, &orgs); err != nil {
		return 0, err
	}
	n := 0
	for _, o := range orgs {
		n += o.Entities
	}
	return n, nil
}

// ownOrganizations lists the simulator's organisations besides the
// neighbours, which only the multi-organisation measurements use: the
// suite's own token's one.
func (s *simulator) ownOrganizations(ctx context.Context) ([]simOrg, error) {
	var orgs []simOrg
	if err := s.get(ctx, "/_sim/orgs", false, &orgs); err != nil {
		return nil, err
	}
	neighbour := map[string]bool{}
	for i := range s.neighbours {
		neighbour[neighbourName(i)] = true
	}
	own := orgs[:0]
	for _, o := range orgs {
		if !neighbour[o.Name] {
			own = append(own, o)
		}
	}
	return own, nil
}

// violations lists the OpenAPI violations the simulator saw.
func (s *simulator) violations(ctx context.Context) ([]string, error) {
	var out []string
	err := s.get(ctx, "/_sim/violations", false, &out)
	return out, err
}
