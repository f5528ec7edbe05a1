package operator

import (
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// DefaultWorkersPerKind is the ceiling of a kind's concurrent reconciles
// when Config leaves it unset (--workers-per-kind). No worker waits for
// Konnect's budget (see pkg/controller's workers.go), so a kind needs as
// many as its organisations' requests in flight (rate × latency: about 13
// at 3,000 a minute and 250 ms) plus the reconciles that end without a
// request; 64 leaves room for several organisations busy in one kind, and
// for an organisation's full rate at up to a second per request (the most
// its limiter lets it have in flight). Workers are started as work comes:
// an idle kind costs nothing.
const DefaultWorkersPerKind = 64

// Config is everything the operator needs to run.
type Config struct {
	// RestConfig reaches the Kubernetes API server.
	RestConfig *rest.Config
	// WatchNamespaces limits the operator to these namespaces; empty means
	// every namespace. Cluster-scoped kinds are always watched.
	WatchNamespaces []string
	// Shard is the shard this operator runs (objects labelled
	// konnect.konghq.com/shard=<Shard>); empty, the default shard, whose
	// objects carry no such label. See commonv1alpha1.LabelShard.
	Shard string
	// NamespaceRightsBinding, with WatchNamespaces, names the RoleBinding
	// that grants the operator its rights in each watched namespace: the
	// operator keeps it with a finalizer while the namespace has its
	// objects, so that deleting the namespace cannot take the rights away
	// before the cleanup. Empty: no such RoleBinding is kept.
	NamespaceRightsBinding string
	// SyncPeriod is how often an unchanged entity is written to Konnect
	// again.
	SyncPeriod time.Duration
	// DriftDetection is controller.DriftList (the default) or DriftUpdate.
	DriftDetection string
	// WorkersPerKind is the most objects of one kind reconciled at once (a
	// ceiling: see controller.Options.Workers); default
	// DefaultWorkersPerKind.
	WorkersPerKind int
	// Konnect configures the Konnect clients and their rate limiter.
	Konnect konnect.Options
	// AllowedHosts are the Konnect API hosts (a host, or host:port for
	// another port than 443) that an auth configuration may name: no token
	// is sent anywhere else, and a configuration naming another host is
	// refused. Empty: Konnect's public API hosts (konnect.DefaultAllowedHosts).
	AllowedHosts []string
	// MetricsAddr and HealthAddr are where /metrics and /healthz, /readyz
	// are served; empty disables the server.
	MetricsAddr, HealthAddr string
	// ProfilerAddr, a loopback address, serves Go's profiles
	// (/debug/pprof/); empty (the default) disables it.
	ProfilerAddr string
	// LeaderElection, when enabled, runs the controllers only while this
	// process holds the lease.
	LeaderElection LeaderElection
	// Registry collects the metrics; nil means a new one.
	Registry *metrics.Registry
	// Identity names this process in the lease and in Events; defaults to
	// the host name.
	Identity string
	// ShutdownTimeout bounds how long Run waits, once stopping, for the
	// workers and informers; default 20s (a pod's grace period is 30s).
	ShutdownTimeout time.Duration
	// Metrics configures how /metrics is protected.
	Metrics MetricsServing
	// Policies are the day-2 controls of objects whose annotations name
	// none (--default-deletion-policy, --default-reconcile-policy).
	Policies commonv1alpha1.PolicyDefaults
	// ClusterIdentity names this cluster on the entities the operator
	// writes (tag and label k8s-cluster); entities that name another are
	// another cluster's operator's and are never written or deleted from
	// here. Empty: the UID of the kube-system namespace. A cluster rebuilt
	// from Git or a backup with the identity of the one it replaces takes
	// that one's entities back.
	ClusterIdentity string
	// Clock times everything the operator waits for: sync periods, grace
	// periods, backoffs, the rate limiter and the drift lister. Nil means
	// the real clock; tests pass one they can move forward.
	Clock clock.WithTicker
}
