// Package operator wires the operator together: clients, informers, every
// controller, leader election, and the metrics and health servers. The
// binary and the integration tests both run it.
package operator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned/scheme"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// Config is everything the operator needs to run.
type Config struct {
	// RestConfig reaches the Kubernetes API server.
	RestConfig *rest.Config
	// WatchNamespaces limits the operator to these namespaces; empty means
	// every namespace. Cluster-scoped kinds are always watched.
	WatchNamespaces []string
	// SyncPeriod is how often an unchanged entity is written to Konnect
	// again.
	SyncPeriod time.Duration
	// DriftDetection is controller.DriftList (the default) or DriftUpdate.
	DriftDetection string
	// WorkersPerKind is how many objects of one kind are reconciled at once.
	WorkersPerKind int
	// Konnect configures the Konnect clients and their rate limiter.
	Konnect konnect.Options
	// MetricsAddr and HealthAddr are where /metrics and /healthz, /readyz
	// are served; empty disables the server.
	MetricsAddr, HealthAddr string
	// LeaderElection, when enabled, runs the controllers only while this
	// process holds the lease.
	LeaderElection LeaderElection
	// Registry collects the metrics; nil means a new one.
	Registry *prometheus.Registry
	// Identity names this process in the lease and in Events; defaults to
	// the host name.
	Identity string
}

// LeaderElection configures the lease that elects the active replica.
type LeaderElection struct {
	Enabled       bool
	LeaseName     string
	Namespace     string
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
}

// Operator is a configured, not yet running, operator.
type Operator struct {
	cfg            Config
	kube           kubernetes.Interface
	registry       *prometheus.Registry
	factories      *informerFactories
	controllers    []runnable
	broadcaster    record.EventBroadcaster
	synced         atomic.Bool
	leading        atomic.Bool
	electionHealth *leaderelection.HealthzAdaptor
}

// runnable is a controller of any kind.
type runnable interface {
	Run(ctx context.Context) error
	HasSynced() bool
	Kind() string
}

// New builds the operator: clients, informers and every controller, with
// all handlers registered before anything starts.
func New(ctx context.Context, cfg Config) (*Operator, error) {
	if cfg.RestConfig == nil {
		return nil, errors.New("no Kubernetes client configuration")
	}
	if cfg.SyncPeriod <= 0 {
		cfg.SyncPeriod = time.Minute
	}
	if cfg.DriftDetection == "" {
		cfg.DriftDetection = controller.DriftList
	}
	if !slices.Contains(controller.DriftModes, cfg.DriftDetection) {
		return nil, fmt.Errorf("drift detection must be one of %s, not %q", strings.Join(controller.DriftModes, ", "), cfg.DriftDetection)
	}
	if cfg.WorkersPerKind <= 0 {
		cfg.WorkersPerKind = 4
	}
	registry := cfg.Registry
	if registry == nil {
		registry = metrics.NewRegistry()
	}
	if cfg.Konnect.Metrics == nil {
		cfg.Konnect.Metrics = konnect.NewMetrics(registry)
	}
	kube, err := kubernetes.NewForConfig(cfg.RestConfig)
	if err != nil {
		return nil, err
	}
	clientset, err := versioned.NewForConfig(cfg.RestConfig)
	if err != nil {
		return nil, err
	}
	o := &Operator{
		cfg:       cfg,
		kube:      kube,
		registry:  registry,
		factories: newInformerFactories(kube, clientset, cfg.WatchNamespaces),
	}
	o.broadcaster = record.NewBroadcaster(record.WithContext(ctx))
	recorder := o.broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "konnect-operator"})

	metrics.RegisterLeader(registry, o.leading.Load)
	metrics.RegisterBuildInfo(registry)
	objects := metrics.NewObjectsCollector()
	registry.MustRegister(objects)
	deps := dependencies{
		clientset:    clientset,
		konnect:      konnect.NewClientFactory(cfg.Konnect),
		recorder:     recorder,
		syncPeriod:   cfg.SyncPeriod,
		drift:        cfg.DriftDetection,
		workers:      cfg.WorkersPerKind,
		queueMetrics: metrics.NewWorkqueueMetrics(registry),
		metrics:      metrics.NewControllerMetrics(registry),
		objects:      objects,
	}
	if o.controllers, err = buildControllers(o.factories, deps); err != nil {
		return nil, err
	}
	if cfg.LeaderElection.Enabled {
		o.electionHealth = leaderelection.NewLeaderHealthzAdaptor(20 * time.Second)
	}
	return o, nil
}

// Run starts the informers and the servers, and runs the controllers (while
// leading, when leader election is on) until ctx is cancelled. It returns
// after the workers have finished and the lease is released.
func (o *Operator) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	o.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: o.kube.CoreV1().Events("")})
	defer o.broadcaster.Shutdown()

	// Informers run on every replica, so that a standby takes over with warm
	// caches and reports ready.
	o.factories.start(ctx.Done())
	defer o.factories.shutdown()

	g, ctx := errgroup.WithContext(ctx)
	if o.cfg.MetricsAddr != "" {
		g.Go(func() error { return serve(ctx, o.cfg.MetricsAddr, o.metricsMux()) })
	}
	if o.cfg.HealthAddr != "" {
		g.Go(func() error { return serve(ctx, o.cfg.HealthAddr, o.healthMux()) })
	}
	g.Go(func() error {
		if !cache.WaitForNamedCacheSyncWithContext(ctx, o.hasSynced) {
			return nil
		}
		o.synced.Store(true)
		logger.Info("Caches synced")
		return nil
	})
	g.Go(func() error {
		if !o.cfg.LeaderElection.Enabled {
			o.leading.Store(true)
			return o.runControllers(ctx)
		}
		return o.runElected(ctx)
	})
	return g.Wait()
}

func (o *Operator) hasSynced() bool {
	for _, c := range o.controllers {
		if !c.HasSynced() {
			return false
		}
	}
	return true
}

// runControllers runs every controller until ctx is cancelled and waits for
// all of them to stop.
func (o *Operator) runControllers(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, c := range o.controllers {
		g.Go(func() error { return c.Run(ctx) })
	}
	return g.Wait()
}

func (o *Operator) runElected(ctx context.Context) error {
	le := o.cfg.LeaderElection
	identity := o.cfg.Identity
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, le.Namespace, le.LeaseName,
		o.kube.CoreV1(), o.kube.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: identity})
	if err != nil {
		return fmt.Errorf("creating the leader-election lock: %w", err)
	}
	logger := klog.FromContext(ctx)
	var runErr error
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration,
		RenewDeadline:   le.RenewDeadline,
		RetryPeriod:     le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.LeaseName,
		WatchDog:        o.electionHealth,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				logger.Info("Became the leader; starting controllers", "identity", identity)
				o.leading.Store(true)
				runErr = o.runControllers(ctx)
			},
			OnStoppedLeading: func() {
				o.leading.Store(false)
				logger.Info("Stopped leading", "identity", identity)
			},
			OnNewLeader: func(current string) {
				if current != identity {
					logger.Info("Another replica leads", "leader", current)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("configuring leader election: %w", err)
	}
	elector.Run(ctx)
	if ctx.Err() == nil && runErr == nil {
		// The lease was lost while the process goes on: stop, so that the
		// process restarts as a standby rather than acting without the lease.
		return errors.New("lost the leader-election lease")
	}
	return runErr
}

func (o *Operator) metricsMux() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics.Handler(o.registry))
	return mux
}

func (o *Operator) healthMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if o.electionHealth != nil {
			if err := o.electionHealth.Check(r); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !o.synced.Load() {
			http.Error(w, "caches have not synced yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}

// Leading reports whether this process runs the controllers.
func (o *Operator) Leading() bool { return o.leading.Load() }

// Registry returns the operator's metrics registry.
func (o *Operator) Registry() *prometheus.Registry { return o.registry }

// serve runs an HTTP server until ctx is cancelled.
func serve(ctx context.Context, addr string, handler http.Handler) error {
	srv := &http.Server{Addr: addr, Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errs := make(chan error, 1)
	go func() { errs <- srv.ListenAndServe() }()
	select {
	case err := <-errs:
		return fmt.Errorf("serving on %s: %w", addr, err)
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdownCtx)
	}
}
