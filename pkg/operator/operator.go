// Package operator wires the operator together: clients, informers, every
// controller, leader election, and the metrics and health servers. The
// binary and the integration tests both run it.
package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	konnectscheme "github.com/konnect-operator/konnect-operator/generated/clientset/versioned/scheme"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/fence"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// eventScheme names the kinds Events are recorded about: the operator's own
// and the core kinds (token Secrets).
var eventScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(kubescheme.AddToScheme(s))
	utilruntime.Must(konnectscheme.AddToScheme(s))
	return s
}()

// Operator is a configured, not yet running, operator.
type Operator struct {
	cfg            Config
	kube           kubernetes.Interface
	registry       *metrics.Registry
	factories      *informerFactories
	controllers    []runnable
	broadcaster    record.EventBroadcaster
	synced         atomic.Bool
	leading        atomic.Bool
	electionHealth *leaderelection.HealthzAdaptor
	// unfenced writes the Lease and asks the API server who calls /metrics
	// (TokenReview, SubjectAccessReview: nothing the cluster holds
	// changes); lease fences every other write while leader election is on
	// (nil when it is off).
	unfenced kubernetes.Interface
	lease    *fence.Lease
}

// runnable is a controller of any kind.
type runnable interface {
	Run(ctx context.Context) error
	HasSynced() bool
	Kind() string
	Idle() bool
}

// Idle reports whether no controller has work at hand (see
// controller.Controller.Idle).
func (o *Operator) Idle() bool {
	for _, c := range o.controllers {
		if !c.Idle() {
			return false
		}
	}
	return true
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
		cfg.WorkersPerKind = DefaultWorkersPerKind
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 20 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if err := validPolicies(cfg.Policies); err != nil {
		return nil, err
	}
	if cfg.Shard != "" {
		if err := commonv1alpha1.ValidShardName(cfg.Shard); err != nil {
			return nil, err
		}
	}
	if cfg.Konnect.Clock == nil {
		cfg.Konnect.Clock = cfg.Clock
	}
	if len(cfg.AllowedHosts) == 0 {
		cfg.AllowedHosts = konnect.DefaultAllowedHosts
	}
	allowed, err := konnect.ParseAllowedHosts(cfg.AllowedHosts)
	if err != nil {
		return nil, err
	}
	cfg.Konnect.AllowedHosts = allowed
	registry := cfg.Registry
	if registry == nil {
		registry = metrics.NewRegistry()
	}
	if cfg.Konnect.Metrics == nil {
		cfg.Konnect.Metrics = konnect.NewMetrics(registry)
	}
	// A process that may have lost its Lease writes nothing: neither to
	// Konnect nor to the API server (status, finalizers, objects, Events).
	// Only the Lease itself is written unfenced, and the reviews that
	// /metrics asks for, which every replica serves.
	restConfig := cfg.RestConfig
	var lease *fence.Lease
	if cfg.LeaderElection.Enabled {
		lease = fence.New(cfg.LeaderElection.Clock, cfg.LeaderElection.RenewDeadline)
		cfg.Konnect.WriteFence = lease.Check
		restConfig = rest.CopyConfig(cfg.RestConfig)
		restConfig.Wrap(lease.WrapTransport)
	}
	unfenced, err := kubernetes.NewForConfig(cfg.RestConfig)
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	clientset, err := versioned.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	metadataClient, err := metadata.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	if cfg.ClusterIdentity == "" {
		if cfg.ClusterIdentity, err = clusterIdentity(ctx, kube); err != nil {
			return nil, err
		}
	}
	if err := validClusterIdentity(cfg.ClusterIdentity); err != nil {
		return nil, err
	}
	o := &Operator{
		cfg:       cfg,
		kube:      kube,
		unfenced:  unfenced,
		lease:     lease,
		registry:  registry,
		factories: newInformerFactories(kube, clientset, cfg.WatchNamespaces, cfg.Shard),
	}
	if len(cfg.WatchNamespaces) > 0 && cfg.NamespaceRightsBinding != "" {
		o.factories.rightsBindings = rightsBindingFactories(kube, cfg.WatchNamespaces, cfg.NamespaceRightsBinding)
	}
	o.broadcaster = record.NewBroadcaster(record.WithContext(ctx))
	recorder := o.broadcaster.NewRecorder(eventScheme, corev1.EventSource{Component: "konnect-operator"})

	metrics.RegisterLeader(registry, o.leading.Load)
	if err := metrics.RegisterClientGo(registry); err != nil {
		// Everything works; only the rest_client_* series stay empty.
		klog.FromContext(ctx).Error(err, "The Kubernetes client's metrics are not served")
	}
	metrics.RegisterBuildInfo(registry)
	objects := metrics.NewObjectsCollector()
	registry.MustRegister(objects)
	deps := dependencies{
		kube:         kube,
		clientset:    clientset,
		konnect:      konnect.NewClientFactory(cfg.Konnect),
		recorder:     recorder,
		clock:        cfg.Clock,
		policies:     cfg.Policies,
		cluster:      cfg.ClusterIdentity,
		syncPeriod:   cfg.SyncPeriod,
		drift:        cfg.DriftDetection,
		workers:      cfg.WorkersPerKind,
		queueMetrics: metrics.NewWorkqueueMetrics(registry),
		metrics:      metrics.NewControllerMetrics(registry),
		objects:      objects,
		locator:      newShardLocator(metadataClient, cfg.Shard, cfg.Clock, o.factories.watches),
		metadata:     metadataClient,
		allowedHosts: allowed,
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
// leading, when leader election is on) until ctx is cancelled or something
// fails for good: a server that cannot listen, a lost lease. It returns
// after the workers have finished, the informers have stopped and the lease
// is released, or once ShutdownTimeout has passed since the stop began.
func (o *Operator) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	// Listen first: a port in use fails the start before anything runs.
	servers, err := o.listen(ctx)
	if err != nil {
		return err
	}
	o.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: o.kube.CoreV1().Events("")})
	defer o.broadcaster.Shutdown()

	// Everything runs under the group's context, which the first failure
	// (or the caller) cancels; the informers too, so that their factories'
	// Shutdown, which waits for them, returns.
	g, ctx := errgroup.WithContext(ctx)
	// Informers run on every replica, so that a standby takes over with warm
	// caches and reports ready.
	o.factories.start(ctx.Done())
	for _, srv := range servers {
		g.Go(func() error { return srv.serve(ctx) })
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

	stopped := make(chan error, 1)
	go func() {
		err := g.Wait()
		o.factories.shutdown()
		stopped <- err
	}()
	select {
	case err := <-stopped:
		return err
	case <-ctx.Done():
	}
	logger.Info("Stopping", "cause", context.Cause(ctx))
	select {
	case err := <-stopped:
		return err
	case <-time.After(o.cfg.ShutdownTimeout):
		return fmt.Errorf("still stopping %s after %w: giving up", o.cfg.ShutdownTimeout, context.Cause(ctx))
	}
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
	// Every cache first, not only each controller's own: a control plane
	// reads its token from the Secret cache, which no control-plane event
	// refreshes; reconciled before that cache had synced, it would report
	// the Secret missing and wait for a change that never comes.
	if !cache.WaitForNamedCacheSyncWithContext(ctx, o.hasSynced) {
		return nil
	}
	g, ctx := errgroup.WithContext(ctx)
	for _, c := range o.controllers {
		g.Go(func() error { return c.Run(ctx) })
	}
	return g.Wait()
}

// Leading reports whether this process runs the controllers.
func (o *Operator) Leading() bool { return o.leading.Load() }

// Registry returns the operator's metrics registry.
func (o *Operator) Registry() *metrics.Registry { return o.registry }
