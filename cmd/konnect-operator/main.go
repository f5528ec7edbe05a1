// Command konnect-operator keeps Kong Konnect equal to the Konnect custom
// resources in a Kubernetes cluster.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr/funcr"
	// The image has no CA files: without system roots, Go falls back to
	// this bundle of the public CAs (Mozilla's), so Konnect's certificate
	// verifies anywhere.
	_ "golang.org/x/crypto/x509roots/fallback"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/operator"
	"github.com/konnect-operator/konnect-operator/pkg/version"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "konnect-operator:", err)
		os.Exit(1)
	}
}

type options struct {
	kubeconfig      string
	watchNamespaces string
	shard           string
	rightsBinding   string
	syncPeriod      time.Duration
	driftDetection  string
	workersPerKind  int
	kubeAPIQPS      float64
	kubeAPIBurst    int

	konnectRate    float64
	konnectBurst   int
	konnectTimeout time.Duration
	konnectCAFile  string
	allowedHosts   string

	metricsAddr             string
	metricsInsecureLoopback bool
	metricsCertFile         string
	metricsKeyFile          string
	healthAddr              string
	profilerAddr            string
	shutdownTimeout         time.Duration

	leaderElect        string
	leaseName          string
	leaseNamespace     string
	leaseDuration      time.Duration
	leaseRenewDeadline time.Duration
	leaseRetryPeriod   time.Duration

	deletionPolicy, reconcilePolicy, clusterIdentity string
	authConfiguration, authSecret, authServerURL     string

	logFormat string

	printVersion bool

	// checkReadyURL, when set, makes the binary a readiness check (the
	// chart's helm test) instead of the operator.
	checkReadyURL     string
	checkReadyTimeout time.Duration
}

func parseFlags(fs *flag.FlagSet, args []string) (*options, error) {
	o := &options{}
	fs.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "Path to a kubeconfig (default: $KUBECONFIG). Empty: the in-cluster configuration.")
	fs.StringVar(&o.watchNamespaces, "watch-namespaces", "", "Comma-separated namespaces to watch. Empty: every namespace.")
	fs.StringVar(&o.shard, "shard", "", "The shard this process runs: it watches and reconciles only the objects labelled konnect.konghq.com/shard=<name>, under a Lease of its own (--leader-elect-resource-name followed by -<name>), and serves its metrics with the label shard=<name>. Empty: the default shard, the objects without that label. A DNS label of at most 30 characters.")
	fs.StringVar(&o.rightsBinding, "namespace-rights-binding", "", "With --watch-namespaces, the name of the RoleBinding that grants the operator its rights in each watched namespace: the operator keeps it (finalizer konnect.konghq.com/namespace-rights-in-use) while the namespace holds its objects, so that a namespace deleted at once is still cleaned up. Empty: none is kept.")
	fs.DurationVar(&o.syncPeriod, "sync-period", time.Minute, "How often changes made in Konnect outside the cluster are looked for and overwritten (see --drift-detection).")
	fs.StringVar(&o.driftDetection, "drift-detection", controller.DriftList, "How changes made in Konnect outside the cluster are found and overwritten each sync period: list (list each control plane's entities in pages of 1,000 and write only those that differ from what the operator last wrote, or are missing) or update (write every entity again every period, whether it changed or not).")
	fs.IntVar(&o.workersPerKind, "workers-per-kind", operator.DefaultWorkersPerKind, "The most objects of one kind reconciled at once: a ceiling that protects the API server and the process, not a pool (workers start as work comes). Konnect's pace is set per organisation by its budget and latency, not by this.")
	fs.StringVar(&o.deletionPolicy, "default-deletion-policy", string(commonv1alpha1.DeletionPolicyDelete), "What deleting an object does to its Konnect entity when its konnect.konghq.com/deletion-policy annotation says nothing: delete, or orphan (leave the entity in Konnect, untouched).")
	fs.StringVar(&o.reconcilePolicy, "default-reconcile-policy", string(commonv1alpha1.ReconcilePolicyEnforce), "How the operator keeps an entity equal to its object when its konnect.konghq.com/reconcile-policy annotation says nothing: enforce (overwrite changes made in Konnect), report (report them in the Drifted condition and leave them), or pause (no Konnect call at all).")
	fs.StringVar(&o.clusterIdentity, "cluster-identity", "", "This cluster's identity on the entities the operator writes (tag and control-plane label k8s-cluster): an entity naming another is never written or deleted from here. At most 63 letters, digits, '-', '_' or '.' (a Konnect label value). Empty: the UID of the kube-system namespace. Set it explicitly: a cluster rebuilt from Git or a backup and given the identity of the one it replaces takes that one's entities back.")
	fs.StringVar(&o.authConfiguration, "create-auth-configuration", "", "NAMESPACE/NAME of a KonnectAPIAuthConfiguration (type secretRef) to create at start when it does not exist; one that exists is left as it is. With --create-auth-configuration-secret and --create-auth-configuration-server-url. What the chart's konnectAuth.create sets.")
	fs.StringVar(&o.authSecret, "create-auth-configuration-secret", "", "The token Secret, in the same namespace, of --create-auth-configuration.")
	fs.StringVar(&o.authServerURL, "create-auth-configuration-server-url", "", "The Konnect API host or URL of --create-auth-configuration.")
	fs.Float64Var(&o.kubeAPIQPS, "kube-api-qps", 0, fmt.Sprintf("Client-side limit of queries per second to the Kubernetes API server. 0: automatic, so that the Kubernetes client never limits Konnect work: none when the API server runs API Priority and Fairness (it then queues requests itself), else %d. Below 0: none.", operator.FallbackKubeAPIQPS))
	fs.IntVar(&o.kubeAPIBurst, "kube-api-burst", 0, "Burst of queries to the Kubernetes API server. 0: twice the queries per second.")
	fs.Float64Var(&o.konnectRate, "konnect-rate-limit", 0, "Ceiling on requests per second to Konnect, per organisation, shared by every controller. 0: none; the limiter follows the budget Konnect states (RateLimit-Limit, 98% of it), sending 48/s until Konnect has stated one. It also slows down as RateLimit-Remaining runs low, waits out a 429's Retry-After or RateLimit-Reset, and slows down and recovers step by step on 429s that name no delay.")
	fs.IntVar(&o.konnectBurst, "konnect-burst", konnect.DefaultBurst, "Burst of requests to Konnect, per organisation (never more than a second's worth of the current rate).")
	fs.DurationVar(&o.konnectTimeout, "konnect-request-timeout", 30*time.Second, "Timeout of one request to Konnect.")
	fs.StringVar(&o.konnectCAFile, "konnect-ca-file", "", "PEM file of extra certificate authorities to trust for Konnect (for example a Konnect simulator's).")
	fs.StringVar(&o.allowedHosts, "konnect-allowed-hosts", strings.Join(konnect.DefaultAllowedHosts, ","), "Comma-separated Konnect API hosts (host, or host:port for another port than 443) that a KonnectAPIAuthConfiguration may name in spec.serverURL. A token is sent to no other server; a configuration naming another host is refused (APIAuthValid=False). Add a proxy's or a simulator's host here.")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8443", "Address of the /metrics endpoint (HTTPS; callers need a bearer token allowed to GET /metrics). Empty or 0 disables it.")
	fs.BoolVar(&o.metricsInsecureLoopback, "metrics-insecure-loopback", false, "Serve /metrics over plain HTTP without authentication, on a loopback address only (a missing host means 127.0.0.1).")
	fs.StringVar(&o.metricsCertFile, "metrics-cert-file", "", "PEM certificate of the /metrics endpoint. Empty: a self-signed certificate made at start.")
	fs.StringVar(&o.metricsKeyFile, "metrics-key-file", "", "PEM private key of --metrics-cert-file.")
	fs.StringVar(&o.healthAddr, "health-probe-bind-address", ":8081", "Address of the /healthz and /readyz endpoints. Empty or 0 disables them.")
	fs.StringVar(&o.profilerAddr, "profiler-address", "", "Loopback address (for example localhost:6060) serving Go's CPU, heap and goroutine profiles at /debug/pprof/, over plain HTTP; reach it with kubectl port-forward. Empty: not served.")
	fs.StringVar(&o.leaderElect, "leader-elect", "auto", "Run controllers only while holding a Lease: true, false, or auto (true in a cluster, false outside).")
	fs.StringVar(&o.leaseName, "leader-elect-resource-name", "konnect-operator", "Name of the leader-election Lease; with --shard, followed by -<shard>.")
	fs.StringVar(&o.leaseNamespace, "leader-elect-resource-namespace", "", "Namespace of the leader-election Lease. Empty: the operator's own namespace.")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a standby waits after the last renewal before taking over.")
	fs.DurationVar(&o.leaseRenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader tries to renew before giving up the lease.")
	fs.DurationVar(&o.leaseRetryPeriod, "leader-elect-retry-period", 2*time.Second, "How often candidates try to acquire or renew the lease.")
	fs.StringVar(&o.logFormat, "log-format", "text", "Log format: text or json.")
	fs.BoolVar(&o.printVersion, "version", false, "Print the version, the commit and the Go version, then exit.")
	fs.StringVar(&o.checkReadyURL, "check-ready", "", "Instead of running the operator, GET this URL (a replica's /readyz) until it answers 200, then exit 0; exit 1 if it has not within --check-ready-timeout. What the chart's helm test runs.")
	fs.DurationVar(&o.checkReadyTimeout, "check-ready-timeout", time.Minute, "How long --check-ready waits for a 200.")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 20*time.Second, "How long to wait, once stopping (SIGTERM or a fatal error), for work in progress before exiting anyway.")
	klog.InitFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.konnectRate < 0 {
		return nil, fmt.Errorf("--konnect-rate-limit must be 0 (follow Konnect) or a positive number of requests per second, not %v", o.konnectRate)
	}
	if o.kubeAPIBurst < 0 {
		return nil, fmt.Errorf("--kube-api-burst must be 0 (twice --kube-api-qps) or a positive number, not %d", o.kubeAPIBurst)
	}
	if o.konnectBurst < 1 {
		return nil, fmt.Errorf("--konnect-burst must be at least 1, not %d", o.konnectBurst)
	}
	if _, err := parseAuthBootstrap(o.authConfiguration, o.authSecret, o.authServerURL); err != nil {
		return nil, err
	}
	if _, err := konnect.ParseAllowedHosts(splitList(o.allowedHosts)); err != nil {
		return nil, fmt.Errorf("--konnect-allowed-hosts: %w", err)
	}
	if o.shard != "" {
		if err := commonv1alpha1.ValidShardName(o.shard); err != nil {
			return nil, fmt.Errorf("--shard: %w", err)
		}
	}
	return o, nil
}

func run() error {
	o, err := parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		return err
	}
	if o.printVersion {
		fmt.Println(version.Get())
		return nil
	}
	if o.checkReadyURL != "" {
		return checkReady(context.Background(), os.Stdout, o.checkReadyURL, o.checkReadyTimeout)
	}
	switch o.logFormat {
	case "text":
	case "json":
		klog.SetLogger(funcr.NewJSON(func(obj string) { fmt.Fprintln(os.Stderr, obj) }, funcr.Options{
			LogTimestamp: true, Verbosity: verbosity(),
		}))
	default:
		return fmt.Errorf("--log-format must be text or json, not %q", o.logFormat)
	}
	defer klog.Flush()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := klog.FromContext(ctx)
	if limit := setMemoryLimit(cgroupMemoryFiles); limit > 0 {
		logger.Info("Go memory limit set from the container's", "bytes", limit, "share", memoryLimitShare)
	}
	if percent := setGCPercent(); percent > 0 {
		logger.V(2).Info("Go collector's target set", "GOGC", percent)
	}

	restConfig, inCluster, err := kubeConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	restConfig.UserAgent = "konnect-operator"
	kubeRate := operator.SetKubeClientRate(ctx, restConfig, o.kubeAPIQPS, o.kubeAPIBurst)
	logger.Info("Kubernetes client rate", "qps", kubeRate.QPS, "burst", kubeRate.Burst, "reason", kubeRate.Reason)

	cfg := operator.Config{
		RestConfig:             restConfig,
		Shard:                  o.shard,
		NamespaceRightsBinding: o.rightsBinding,
		SyncPeriod:             o.syncPeriod,
		DriftDetection:         o.driftDetection,
		Policies: commonv1alpha1.PolicyDefaults{
			Deletion:  commonv1alpha1.DeletionPolicy(o.deletionPolicy),
			Reconcile: commonv1alpha1.ReconcilePolicy(o.reconcilePolicy),
		},
		ClusterIdentity: o.clusterIdentity,
		WorkersPerKind:  o.workersPerKind,
		Konnect: konnect.Options{
			RequestsPerSecond: o.konnectRate,
			Burst:             o.konnectBurst,
			Timeout:           o.konnectTimeout,
			UserAgent:         "konnect-operator/" + version.Version,
		},
		MetricsAddr:  disabledIfZero(o.metricsAddr),
		HealthAddr:   disabledIfZero(o.healthAddr),
		ProfilerAddr: o.profilerAddr,
		Metrics: operator.MetricsServing{
			InsecureLoopback: o.metricsInsecureLoopback,
			CertFile:         o.metricsCertFile,
			KeyFile:          o.metricsKeyFile,
		},
		ShutdownTimeout: o.shutdownTimeout,
		WatchNamespaces: splitList(o.watchNamespaces),
		AllowedHosts:    splitList(o.allowedHosts),
	}
	if o.konnectCAFile != "" {
		if cfg.Konnect.RootCAs, err = konnect.LoadCAFile(o.konnectCAFile); err != nil {
			return err
		}
	}
	elect := o.leaderElect == "true" || (o.leaderElect == "auto" && inCluster)
	if o.leaderElect != "true" && o.leaderElect != "false" && o.leaderElect != "auto" {
		return fmt.Errorf("--leader-elect must be true, false or auto, not %q", o.leaderElect)
	}
	if elect {
		identity, err := os.Hostname()
		if err != nil {
			return err
		}
		cfg.Identity = fmt.Sprintf("%s_%d", identity, os.Getpid())
		// Konnect's request logs tell which replica wrote what.
		cfg.Konnect.UserAgent += " (" + cfg.Identity + ")"
		cfg.LeaderElection = operator.LeaderElection{
			Enabled:       true,
			LeaseName:     shardLease(o.leaseName, o.shard),
			Namespace:     leaseNamespace(o.leaseNamespace),
			LeaseDuration: o.leaseDuration,
			RenewDeadline: o.leaseRenewDeadline,
			RetryPeriod:   o.leaseRetryPeriod,
		}
	}

	op, err := operator.New(ctx, cfg)
	if err != nil {
		return err
	}
	if bootstrap, _ := parseAuthBootstrap(o.authConfiguration, o.authSecret, o.authServerURL); bootstrap != nil {
		bootstrap.shard = o.shard
		cs, err := versioned.NewForConfig(restConfig)
		if err != nil {
			return err
		}
		go func() { _ = bootstrap.ensure(ctx, cs, 2*time.Second) }()
	}
	logger.Info("Starting konnect-operator", "version", version.Version, "commit", version.Commit, "shard", o.shard, "namespaces", cfg.WatchNamespaces, "syncPeriod", cfg.SyncPeriod,
		"leaderElection", elect, "workersPerKind", cfg.WorkersPerKind)
	if err := op.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	logger.Info("Stopped")
	return nil
}

// kubeConfig loads the kubeconfig at path, or the in-cluster configuration
// when path is empty, and says which it used.
func kubeConfig(path string) (*rest.Config, bool, error) {
	if path == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, false, fmt.Errorf("no --kubeconfig given and not running in a cluster: %w", err)
		}
		return cfg, true, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	return cfg, false, err
}

// shardLease is the Lease of a shard: each shard elects its own leader.
func shardLease(name, shard string) string {
	if shard == "" {
		return name
	}
	return name + "-" + shard
}

// leaseNamespace defaults the Lease's namespace to the operator's own.
func leaseNamespace(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if data, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		return strings.TrimSpace(string(data))
	}
	return "default"
}

// splitList reads a comma-separated flag value; nil when it names nothing.
func splitList(value string) []string {
	var out []string
	for _, item := range strings.Split(value, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func disabledIfZero(addr string) string {
	if addr == "0" {
		return ""
	}
	return addr
}

// verbosity reads klog's -v for the JSON logger.
func verbosity() int {
	if f := flag.CommandLine.Lookup("v"); f != nil {
		var v int
		if _, err := fmt.Sscan(f.Value.String(), &v); err == nil {
			return v
		}
	}
	return 0
}
