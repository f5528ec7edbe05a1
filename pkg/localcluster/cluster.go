package localcluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Options configure a local cluster.
type Options struct {
	// BinDir holds etcd, kube-apiserver, kube-controller-manager and kubectl.
	// "" means $KONNECT_OPERATOR_CACHE/bin, else <module root>/.cache/bin;
	// that folder is built (or refreshed) by hack/build-control-plane.sh.
	// An explicit folder is used as it is.
	BinDir string
	// Dir holds the cluster's data, keys, kubeconfig and logs. "" means a new
	// temporary folder, removed by Stop; a given folder is kept, but every
	// Start begins with an empty cluster (new keys, fresh etcd data), since
	// tokens signed with the keys of an earlier start would not verify.
	Dir string
	// CRDDir, when set, is a folder of CRD manifests installed before Start
	// returns, each waited for until Established.
	CRDDir string
	// Logs receives the components' output, each line prefixed with the
	// component's name. nil means one file per component in Dir.
	Logs io.Writer
}

// Cluster is a running control plane.
type Cluster struct {
	// Dir holds the cluster's data, keys, kubeconfig and (without
	// Options.Logs) the component logs <component>.log and pid files
	// <component>.pid.
	Dir string
	// KubeconfigPath is an admin kubeconfig for the cluster.
	KubeconfigPath string
	// Server is the API server's URL, https://127.0.0.1:<port>.
	Server string
	// Config is the admin configuration: a static token in group
	// system:masters, trusting the cluster's CA.
	Config *rest.Config
	// KubectlPath is the kubectl binary matching the API server.
	KubectlPath string
	// StartupDuration is how long Start took, without building binaries.
	StartupDuration time.Duration

	removeDir bool
	binDir    string
	pki       *pki
	spawner   *spawner
	logMu     sync.Mutex
	logs      io.Writer
	processes []*process
	failed    chan error
	stopOnce  sync.Once
	stopErr   error
}

// startupBudget bounds how long the components may take to become ready when
// the caller's context has no deadline.
const startupBudget = 2 * time.Minute

// Start builds the binaries when they are missing, then starts etcd,
// kube-apiserver and kube-controller-manager, and returns once the API
// server is ready, the controller manager is working and the CRDs of
// opts.CRDDir are Established. ctx bounds the start only; the cluster runs
// until Stop or until this process exits.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	binDir, err := ensureBinaries(ctx, opts.BinDir, os.Stderr)
	if err != nil {
		return nil, err
	}
	begin := time.Now()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, startupBudget)
		defer cancel()
	}

	c := &Cluster{
		Dir:         opts.Dir,
		binDir:      binDir,
		KubectlPath: filepath.Join(binDir, kubectlBinary),
		logs:        opts.Logs,
		failed:      make(chan error, 1),
	}
	if c.Dir == "" {
		if c.Dir, err = os.MkdirTemp("", "localcluster-"); err != nil {
			return nil, err
		}
		c.removeDir = true
	} else if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, err
	}
	if c.Dir, err = filepath.Abs(c.Dir); err != nil {
		return nil, err
	}
	c.KubeconfigPath = filepath.Join(c.Dir, "kubeconfig")

	started := false
	defer func() {
		if !started {
			_ = c.Stop()
		}
	}()
	if err := os.RemoveAll(filepath.Join(c.Dir, "etcd")); err != nil {
		return nil, err
	}
	if err := c.start(ctx, opts); err != nil {
		return nil, err
	}
	started = true
	c.StartupDuration = time.Since(begin)
	return c, nil
}

func (c *Cluster) start(ctx context.Context, opts Options) error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdClientPort, etcdPeerPort, apiServerPort := ports[0], ports[1], ports[2]

	if c.pki, err = writePKI(filepath.Join(c.Dir, "pki")); err != nil {
		return err
	}
	token, err := randomToken()
	if err != nil {
		return err
	}
	// The controller manager has an identity of its own, and runs each
	// controller as its ServiceAccount, as clusters do: admission then
	// tells a namespace's deletion from a user's delete.
	controllerManagerToken, err := randomToken()
	if err != nil {
		return err
	}
	tokenFile := filepath.Join(c.Dir, "tokens.csv")
	tokens := token + "," + adminUser + "," + adminUser + ",system:masters\n" +
		controllerManagerToken + "," + controllerManagerUser + "," + controllerManagerUser + "\n"
	if err := os.WriteFile(tokenFile, []byte(tokens), 0o600); err != nil {
		return err
	}
	c.Server = fmt.Sprintf("https://127.0.0.1:%d", apiServerPort)
	c.Config = &rest.Config{
		Host:            c.Server,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.pki.caPEM},
		QPS:             clientQPS,
		Burst:           clientBurst,
	}
	if err := c.WriteKubeconfig(c.KubeconfigPath, c.Config); err != nil {
		return err
	}
	c.spawner = newSpawner()

	etcd, err := c.startProcess(etcdBinary, etcdArgs(c.Dir, etcdClientPort, etcdPeerPort))
	if err != nil {
		return err
	}
	if err := waitEtcd(ctx, etcd, etcdClientPort); err != nil {
		return err
	}
	apiServer, err := c.startProcess(apiServerBinary, apiServerArgs(c.Dir, c.pki, tokenFile, apiServerPort, etcdClientPort))
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	if err := waitAPIServer(ctx, apiServer, client); err != nil {
		return err
	}
	// CRDs go in before the controller manager starts so that its garbage
	// collector discovers them at once; resources added later are found at
	// its next discovery pass (every 30 seconds).
	if opts.CRDDir != "" {
		if err := c.InstallCRDs(ctx, opts.CRDDir); err != nil {
			return err
		}
	}
	controllerManagerConfig := rest.CopyConfig(c.Config)
	controllerManagerConfig.BearerToken = controllerManagerToken
	controllerManagerKubeconfig := filepath.Join(c.Dir, "controller-manager.kubeconfig")
	if err := c.WriteKubeconfig(controllerManagerKubeconfig, controllerManagerConfig); err != nil {
		return err
	}
	controllerManager, err := c.startProcess(controllerManagerBinary, controllerManagerArgs(controllerManagerKubeconfig, c.pki))
	if err != nil {
		return err
	}
	return waitControllerManager(ctx, controllerManager, client)
}

// Failed receives the first component that exits before Stop, as a
// *ComponentExitedError.
func (c *Cluster) Failed() <-chan error { return c.failed }

// Stop stops the components (controller manager, API server, then etcd) and
// removes Dir when Start created it. It is safe to call more than once.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		for i := len(c.processes) - 1; i >= 0; i-- {
			c.processes[i].stop(stopGrace)
			_ = os.Remove(filepath.Join(c.Dir, c.processes[i].name+".pid"))
		}
		if c.spawner != nil {
			c.spawner.close()
		}
		if c.removeDir {
			c.stopErr = os.RemoveAll(c.Dir)
		}
	})
	return c.stopErr
}

// stopGrace is how long a component may take to exit after SIGTERM.
const stopGrace = 10 * time.Second

func (c *Cluster) startProcess(name string, args []string) (*process, error) {
	p := &process{name: name, tail: newTailBuffer(8 << 10), exited: make(chan struct{})}
	var out io.Writer
	if c.logs != nil {
		out = &prefixWriter{mu: &c.logMu, w: c.logs, prefix: "[" + name + "] "}
	} else {
		f, err := os.OpenFile(filepath.Join(c.Dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		p.logFile = f
		out = f
	}
	p.cmd = newCommand(filepath.Join(c.binDir, name), args)
	// One writer for both streams, so that exec copies them in one goroutine
	// and lines keep their order.
	combined := io.MultiWriter(out, p.tail)
	p.cmd.Stdout, p.cmd.Stderr = combined, combined
	p.cmd.Dir = c.Dir
	if err := c.spawner.start(p.cmd); err != nil {
		if p.logFile != nil {
			_ = p.logFile.Close()
		}
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c.processes = append(c.processes, p)
	_ = os.WriteFile(filepath.Join(c.Dir, name+".pid"), fmt.Appendf(nil, "%d\n", p.cmd.Process.Pid), 0o600)
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
		if !p.stopping.Load() {
			select {
			case c.failed <- p.exitError():
			default:
			}
		}
	}()
	return p, nil
}
