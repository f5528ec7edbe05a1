// Package integration runs the operator in process (pkg/operator's New)
// against a real API server and etcd and the Konnect simulator, one
// namespace and one operator per test: every kind through the shared
// per-kind harness (kindcase_test.go), and each behaviour of the loop,
// references, Secrets, tenancy, drift, adoption, shards and rebuilds.
//
// The e2e package beside it runs the built binaries as a user does; these
// tests drive the operator's Go API with a fake clock where time matters,
// and hold the benchmarks that need a control plane (make bench).
package integration

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
	"github.com/konnect-operator/konnect-operator/pkg/operator"
	"github.com/konnect-operator/konnect-operator/pkg/skipclock"
)

var cluster *localcluster.Cluster

func TestMain(m *testing.M) {
	os.Exit(localcluster.RunTests(m, localcluster.Options{CRDDir: filepath.Join("..", "..", "manifests", "crd")}, &cluster))
}

const (
	testToken = "kpat_integrationTestToken0000000000000000000000000000"
	// waitLimit is how far eventually moves the operator's clock, at most,
	// while it waits for something.
	waitLimit = 60 * time.Second
	// patience is how long a test waits in real time for what the operator
	// and the control plane do in seconds on an idle machine. It decides
	// no verdict: a passing test never waits it out, and a machine ten
	// times busier still passes.
	patience   = 5 * time.Minute
	pollPeriod = 50 * time.Millisecond
	// waitStep is how far eventually moves an idle operator's clock at a
	// time.
	waitStep = 5 * time.Second
)

// env is one test's world: its own namespace, its own Konnect simulator and
// organisation, and an operator watching only that namespace.
type env struct {
	t       testing.TB
	ctx     context.Context
	ns      string
	others  []string // further watched namespaces (addNamespace)
	sim     *konnectsim.TestServer
	orgID   string
	kube    kubernetes.Interface
	cs      versioned.Interface
	opts    envOptions
	stopOp  func()
	opDone  chan struct{}
	running *operator.Operator
	// startedAt is when the operator last started.
	startedAt time.Time
	// clock is the operator's clock, which the test moves forward instead
	// of waiting for sync periods, grace periods and backoffs.
	clock *skipclock.Clock
	// konnectCalls records every call the operator's Konnect clients
	// make, on the operator's clock.
	konnectCalls *callRecorder
	// other is a second namespace the operator watches, for references
	// across namespaces ("" unless envOptions.otherNamespace).
	other string
	// neighbour is a second Konnect, holding another organisation whose
	// token is neighbourToken (nil unless envOptions.neighbour).
	neighbour *konnectsim.TestServer
	// companions are further operators on the test's namespaces (other
	// shards: see startShard); waits wait for them too, and stopOperator
	// stops them.
	companions *[]companion
}

// companion is a further operator of a test, and how to stop it.
type companion struct {
	op   *operator.Operator
	stop func()
}

// idle reports whether the test's operators have no work at hand.
func (e *env) idle() bool {
	if !e.running.Idle() {
		return false
	}
	for _, c := range *e.companions {
		if !c.op.Idle() {
			return false
		}
	}
	return true
}

type envOptions struct {
	// syncPeriod of the operator; default one hour, so that only changes
	// cause Konnect writes unless a test asks for a short period.
	syncPeriod time.Duration
	// rateLimitPerMinute of the simulator's organisation; 0 = unlimited.
	rateLimitPerMinute int
	// keepNamespace skips deleting the namespace at the end.
	keepNamespace bool
	// konnectRate is the operator's request rate to Konnect (default 200/s).
	konnectRate float64
	// konnectTimeout bounds each Konnect request (default 5s).
	konnectTimeout time.Duration
	// otherNamespace adds a second watched namespace, env.other.
	otherNamespace bool
	// omitRetryAfter leaves Retry-After out of the simulator's 429s.
	omitRetryAfter bool
	// driftDetection is the operator's --drift-detection; "" is its
	// default (list).
	driftDetection string
	// operatorDefaults runs the operator with the defaults of its flags
	// (workers, Konnect rate, burst and timeout) instead of the tests' own.
	operatorDefaults bool
	// cloud configures the simulator's Dedicated Cloud Gateways: provider
	// accounts and the provisioning and termination times.
	cloud konnectsim.CloudGatewayOptions
	// konnectHosts are host names (Konnect's own, as published manifests
	// name them) that the simulator's certificate covers and that the
	// operator reaches the simulator at; tokens are more tokens of the
	// test's organisation.
	konnectHosts, tokens []string
	// watchAlso are namespaces the operator watches that the test neither
	// creates nor deletes (default).
	watchAlso []string
	// clusterIdentity is the operator's --cluster-identity; "" is its
	// default (the kube-system namespace's UID). A test may change it
	// between stopOperator and startOperator.
	clusterIdentity string
	// bufferLogs keeps the operator's log lines in memory too, for
	// env.logs.
	bufferLogs bool
	// workers is the operator's workers per kind; 0: the tests' default
	// (2), or the operator's with operatorDefaults.
	workers int
	// neighbour serves a second Konnect with an organisation of its own,
	// env.neighbour, which the operator trusts too.
	neighbour bool
	// shard is the shard of the test's operator ("" the default one).
	shard string
	// otherOrgs are tokens of further organisations of the simulator, by
	// organisation name.
	otherOrgs map[string]string
	// allowedHosts are further servers the operator may send tokens to
	// (--konnect-allowed-hosts), besides Konnect's and the simulators'.
	allowedHosts []string
	// leaderElection, when set, runs the operator under a Lease of the
	// test's namespace (its Namespace and LeaseName are filled in).
	leaderElection *operator.LeaderElection
	// stopped, when set, receives how the operator's Run ended, instead of
	// an error failing the test.
	stopped chan error
}

// neighbourToken is the token of env.neighbour's organisation.
const neighbourToken = "kpat_neighbourTestToken000000000000000000000000000000"

// sharedNamespaces is locked by a test whose operator watches a namespace
// that other tests' operators may watch too (watchAlso default).
var sharedNamespaces sync.Mutex

func newEnv(t testing.TB, opts envOptions) *env {
	t.Helper()
	if opts.syncPeriod == 0 {
		opts.syncPeriod = time.Hour
	}
	if opts.konnectRate == 0 {
		opts.konnectRate = 200
	}
	if opts.konnectTimeout == 0 {
		opts.konnectTimeout = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	logger, _ := ktesting.NewTestContext(t)
	if opts.bufferLogs {
		logger = ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	}
	if _, bench := t.(*testing.B); bench {
		// A benchmark reports figures; thousands of reconcile logs would
		// drown them.
		logger = ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(0)))
		logger = logger.V(1)
	}
	ctx = klog.NewContext(ctx, logger)
	if slices.Contains(opts.watchAlso, metav1.NamespaceDefault) {
		// Two operators watching default would each see, and write the
		// status of, the other test's objects there: such tests take
		// turns, and a test's turn ends after its other cleanups.
		sharedNamespaces.Lock()
		t.Cleanup(sharedNamespaces.Unlock)
	}
	t.Cleanup(cancel)

	restConfig := rest.CopyConfig(cluster.Config)
	restConfig.QPS, restConfig.Burst = 500, 1000
	e := &env{
		t:          t,
		ctx:        ctx,
		ns:         "it-" + rand.String(6),
		kube:       kubernetes.NewForConfigOrDie(restConfig),
		cs:         versioned.NewForConfigOrDie(restConfig),
		opts:       opts,
		clock:      skipclock.New(),
		companions: &[]companion{},
	}
	e.konnectCalls = &callRecorder{clock: e.clock}
	tokens := map[string]string{testToken: "org-" + e.ns}
	for org, token := range opts.otherOrgs {
		tokens[token] = org
	}
	for _, token := range opts.tokens {
		tokens[token] = "org-" + e.ns
	}
	e.sim = konnectsim.StartFor(t, konnectsim.Options{
		Tokens:             tokens,
		RateLimitPerMinute: opts.rateLimitPerMinute,
		OmitRetryAfter:     opts.omitRetryAfter,
		CloudGateways:      opts.cloud,
		// Konnect's own asynchronous work (provisioning cloud gateways)
		// follows the operator's clock, which the test moves.
		Clock: e.clock,
	}, opts.konnectHosts...)
	if opts.neighbour {
		e.neighbour = konnectsim.StartFor(t, konnectsim.Options{
			Tokens:             map[string]string{neighbourToken: "neighbour-" + e.ns},
			RateLimitPerMinute: opts.rateLimitPerMinute,
			Clock:              e.clock,
		})
	}
	var ok bool
	if e.orgID, ok = e.sim.OrganizationID("org-" + e.ns); !ok {
		t.Fatal("the simulator does not know the test organisation")
	}
	if opts.otherNamespace {
		e.other = e.ns + "-other"
	}
	for _, ns := range e.namespaces() {
		if _, err := e.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Cleanups run last-registered first: everything goes while the
	// operator still runs, which proves that deleting everything at once
	// finishes and leaves nothing in Konnect.
	e.startOperator()
	t.Cleanup(e.stopOperator)
	if !opts.keepNamespace {
		t.Cleanup(e.deleteEverything)
	}
	return e
}

// with returns the environment bound to a subtest, so that its failures
// stop the subtest rather than its parent.
func (e *env) with(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

func (e *env) restConfig() *rest.Config {
	c := rest.CopyConfig(cluster.Config)
	c.QPS, c.Burst = 500, 1000
	return c
}

// startOperator runs an operator for the test's namespace until stopOperator
// or the end of the test.
func (e *env) startOperator() {
	e.t.Helper()
	op, cancel, done := e.runOperator(e.opts.shard)
	e.running, e.stopOp, e.opDone, e.startedAt = op, cancel, done, time.Now()
}

// runOperator runs an operator of a shard for the test's namespaces, and
// returns it, how to stop it and what is closed once it stopped.
func (e *env) runOperator(shard string) (*operator.Operator, func(), chan struct{}) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(e.ctx)
	workers, konnectOpts := 2, konnect.Options{
		RootCAs:           e.sim.CAPool,
		RequestsPerSecond: e.opts.konnectRate,
		Burst:             int(e.opts.konnectRate),
		Timeout:           e.opts.konnectTimeout,
	}
	if e.opts.operatorDefaults {
		// As cmd/konnect-operator's flags leave them.
		workers, konnectOpts = operator.DefaultWorkersPerKind, konnect.Options{RootCAs: e.sim.CAPool}
	}
	if e.opts.workers > 0 {
		workers = e.opts.workers
	}
	if e.neighbour != nil {
		trusted := x509.NewCertPool()
		trusted.AppendCertsFromPEM(e.sim.CAPEM)
		trusted.AppendCertsFromPEM(e.neighbour.CAPEM)
		konnectOpts.RootCAs = trusted
	}
	if len(e.opts.konnectHosts) > 0 {
		konnectOpts.DialContext = dialOnly(e.sim.URL)
	}
	konnectOpts.WrapTransport = e.konnectCalls.wrap
	cfg := operator.Config{
		AllowedHosts:    e.allowedHosts(),
		RestConfig:      e.restConfig(),
		WatchNamespaces: append(e.namespaces(), e.opts.watchAlso...),
		SyncPeriod:      e.opts.syncPeriod,
		DriftDetection:  e.opts.driftDetection,
		WorkersPerKind:  workers,
		Clock:           e.clock,
		Registry:        metrics.NewRegistry(),
		Konnect:         konnectOpts,
		ClusterIdentity: e.opts.clusterIdentity,
		Shard:           shard,
	}
	if le := e.opts.leaderElection; le != nil {
		cfg.LeaderElection = *le
		cfg.LeaderElection.Enabled, cfg.LeaderElection.Namespace, cfg.LeaderElection.LeaseName = true, e.ns, "konnect-operator"
		cfg.Identity = e.ns + "-operator"
	}
	op, err := operator.New(ctx, cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	done := make(chan struct{})
	stopped := e.opts.stopped
	go func() {
		defer close(done)
		err := op.Run(ctx)
		switch {
		case stopped != nil:
			stopped <- err
		case err != nil && ctx.Err() == nil:
			e.t.Errorf("operator stopped: %v", err)
		}
	}()
	return op, cancel, done
}

// allowedHosts are the Konnect API hosts the test's operator may send
// tokens to: Konnect's own (which tests serve from the simulator with
// konnectHosts), the test's simulators, and those the test adds.
func (e *env) allowedHosts() []string {
	hosts := slices.Concat(konnect.DefaultAllowedHosts, e.opts.konnectHosts, e.opts.allowedHosts, []string{e.sim.URL})
	if e.neighbour != nil {
		hosts = append(hosts, e.neighbour.URL)
	}
	return hosts
}

// stopOperator stops the operator and waits until its workers are done.
func (e *env) stopOperator() {
	for _, c := range *e.companions {
		c.stop()
	}
	*e.companions = nil
	if e.stopOp == nil {
		return
	}
	e.stopOp()
	<-e.opDone
	e.stopOp = nil
}

// logs returns the operator's log lines so far (envOptions.bufferLogs).
func (e *env) logs() string {
	e.t.Helper()
	underlier, ok := klog.FromContext(e.ctx).GetSink().(ktesting.Underlier)
	if !ok || !e.opts.bufferLogs {
		e.t.Fatal("the logs are not kept: set envOptions.bufferLogs")
	}
	return underlier.GetBuffer().String()
}

// namespaces are the test's namespaces, all watched by its operator.
func (e *env) namespaces() []string {
	namespaces := []string{e.ns}
	if e.other != "" {
		namespaces = append(namespaces, e.other)
	}
	return append(namespaces, e.others...)
}

// deleteEverything deletes every object of the operator's kinds in the
// test's namespaces at once, waits until the operator has let them all go
// (and taken its finalizers off the namespaces' Secrets), checks that
// nothing is left in Konnect, and then deletes the namespaces without
// waiting for them. Waiting would cost a test about 10 s of
// kube-controller-manager's own: its namespace deletion starts 5 s after
// the delete and looks again 5 s after each pass that finds finalizers.
// Tests of a namespace's deletion itself call deleteNamespace.
func (e *env) deleteEverything() {
	e.t.Helper()
	ctx := context.WithoutCancel(e.ctx)
	resources, err := operatorResources()
	if err != nil {
		e.t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(e.restConfig())
	// The KongReferenceGrants go last: an object deleted through a grant
	// needs it until Konnect's entity is gone (CannotDelete otherwise), as
	// it would for a user who deleted the grant first.
	var left, grants []collection
	for _, ns := range e.namespaces() {
		for _, gvr := range resources {
			if gvr.Resource == "kongreferencegrants" {
				grants = append(grants, collection{ns, gvr})
			} else {
				left = append(left, collection{ns, gvr})
			}
		}
	}
	for wave, what := range []string{"every object of the test's namespaces deleted", "the test's KongReferenceGrants deleted"} {
		if wave == 1 {
			left = grants
		}
		e.deleteCollections(ctx, dyn, what, left)
	}
	if n := e.sim.Count(e.orgID); n != 0 {
		e.t.Errorf("deleting everything in namespace %s left %d entities in Konnect", e.ns, n)
	}
	for _, ns := range e.namespaces() {
		if err := e.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			e.t.Errorf("deleting namespace %s: %v", ns, err)
		}
	}
}

// deleteCollections deletes the objects of the collections, again as long
// as any is not being deleted, until none is left (nor any finalizer of
// the operator on the namespaces' Secrets).
func (e *env) deleteCollections(ctx context.Context, dyn dynamic.Interface, what string, left []collection) {
	e.t.Helper()
	e.eventuallyWithin(3*waitLimit, what, func() error {
		var remaining []string
		left = slices.DeleteFunc(left, func(c collection) bool {
			client := dyn.Resource(c.gvr).Namespace(c.ns)
			list, err := client.List(ctx, metav1.ListOptions{})
			if err != nil {
				remaining = append(remaining, err.Error())
				return false
			}
			deleting := true
			for _, item := range list.Items {
				remaining = append(remaining, c.gvr.Resource+" "+c.ns+"/"+item.GetName())
				deleting = deleting && item.GetDeletionTimestamp() != nil
			}
			if !deleting {
				// Again if the operator made one meanwhile (those it
				// makes from Secrets).
				if err := client.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
					remaining = append(remaining, err.Error())
				}
			}
			return len(list.Items) == 0
		})
		for _, ns := range e.namespaces() {
			secrets, err := e.kube.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			for _, s := range secrets.Items {
				if slices.Contains(s.Finalizers, commonv1alpha1.FinalizerSecretInUse) {
					remaining = append(remaining, "the finalizer of Secret "+ns+"/"+s.Name)
				}
			}
		}
		if len(remaining) > 0 {
			return fmt.Errorf("left: %s", strings.Join(remaining, ", "))
		}
		return nil
	})
}

// collection is the objects of one resource in one namespace.
type collection struct {
	ns  string
	gvr schema.GroupVersionResource
}

// operatorResources are the namespaced resources of the operator's API
// groups, as the API server serves them (one version of each).
var operatorResources = sync.OnceValues(func() ([]schema.GroupVersionResource, error) {
	lists, err := kubernetes.NewForConfigOrDie(cluster.Config).Discovery().ServerPreferredNamespacedResources()
	if err != nil {
		return nil, err
	}
	var resources []schema.GroupVersionResource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, err
		}
		if !strings.HasSuffix(gv.Group, ".konghq.com") {
			continue
		}
		for _, r := range list.APIResources {
			if slices.Contains(r.Verbs, "deletecollection") {
				resources = append(resources, gv.WithResource(r.Name))
			}
		}
	}
	if len(resources) == 0 {
		return nil, fmt.Errorf("the API server serves none of the operator's resources")
	}
	return resources, nil
})

// deleteNamespace deletes the test's namespaces, the way a user does, waits
// until kube-controller-manager has deleted them, and checks that nothing
// is left in Konnect.
func (e *env) deleteNamespace() {
	e.t.Helper()
	ctx := context.WithoutCancel(e.ctx)
	for _, ns := range e.namespaces() {
		if err := e.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			e.t.Errorf("deleting namespace %s: %v", ns, err)
			return
		}
	}
	for _, ns := range e.namespaces() {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, patience, true, func(ctx context.Context) (bool, error) {
			_, err := e.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			e.t.Errorf("namespace %s was not deleted: %v", ns, err)
			return
		}
	}
	if n := e.sim.Count(e.orgID); n != 0 {
		e.t.Errorf("deleting namespace %s left %d entities in Konnect", e.ns, n)
	}
}

// eventually polls check until it returns nil, failing the test with its
// last error once the operator's clock has been moved by waitLimit and
// patience has passed. Time passes while a test waits: whenever the
// operator has nothing left to do at once, its clock moves on by
// waitStep, up to waitLimit in all, so that what it would do within
// waitLimit (a grace period ending, a retry after a backoff) it does
// without the test sleeping through it.
func (e *env) eventually(what string, check func() error) {
	e.t.Helper()
	e.eventuallyWithin(waitLimit, what, check)
}

// eventuallyWithin is eventually with a limit of its own on how far the
// operator's clock moves.
func (e *env) eventuallyWithin(limit time.Duration, what string, check func() error) {
	e.t.Helper()
	var last error
	var stepped time.Duration
	idlePolls := 0
	err := wait.PollUntilContextTimeout(e.ctx, pollPeriod, max(limit, patience), true, func(context.Context) (bool, error) {
		if last = check(); last == nil {
			return true, nil
		}
		if e.stopOp == nil || !e.idle() {
			idlePolls = 0
			return false, nil
		}
		if idlePolls++; idlePolls >= 2 && stepped < limit {
			e.clock.Step(waitStep)
			stepped, idlePolls = stepped+waitStep, 0
		}
		return false, nil
	})
	if err != nil {
		e.t.Fatalf("%s: %v (last: %v)", what, err, last)
	}
}

// settle waits until the operator has no work at hand (Operator.Idle),
// seen on two polls in a row, so that a change made next is picked up only
// if it triggers a reconcile of its own, and what the operator did so far
// can be counted. Its clock stays where it is.
func (e *env) settle() {
	e.t.Helper()
	idlePolls := 0
	err := wait.PollUntilContextTimeout(e.ctx, pollPeriod, patience, true, func(context.Context) (bool, error) {
		if !e.idle() {
			idlePolls = 0
			return false, nil
		}
		idlePolls++
		return idlePolls >= 2, nil
	})
	if err != nil {
		e.t.Fatalf("the operator did not finish the work at hand: %v", err)
	}
}

// stays checks that fail holds nil once the operator has finished the work
// at hand, and still after its clock moved on by retryWindow, so that
// whatever it would do about the situation, retries and backoffs included,
// it has done.
func (e *env) stays(what string, fail func() error) {
	e.t.Helper()
	for range 2 {
		e.settle()
		if err := fail(); err != nil {
			e.t.Fatalf("%s: %v", what, err)
		}
		e.clock.Step(retryWindow)
	}
}

// retryWindow is how far stays moves the clock: past the first retries of
// a failure and the reference grace period, short of the tests' default
// sync period.
const retryWindow = 30 * time.Second

// serverTimePast waits until the API server gives creation timestamps
// later than at (they count whole seconds): it asks the API server for the
// time by creating, and deleting, a ConfigMap.
func (e *env) serverTimePast(at time.Time) {
	e.t.Helper()
	e.eventually("the API server's clock past "+at.Format(time.RFC3339), func() error {
		probe, err := e.kube.CoreV1().ConfigMaps(e.ns).Create(e.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "clock-probe-"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if err := e.kube.CoreV1().ConfigMaps(e.ns).Delete(e.ctx, probe.Name, metav1.DeleteOptions{}); err != nil {
			return err
		}
		if !probe.CreationTimestamp.After(at) {
			return fmt.Errorf("created at %s", probe.CreationTimestamp)
		}
		return nil
	})
}

// step moves the operator's clock forward by d, once it has finished the
// work at hand (and so planned what it waits for), so that what it waits
// for (sync periods, grace periods, backoffs, listings) comes d sooner, and
// waits until it has done what came due.
func (e *env) step(d time.Duration) {
	e.t.Helper()
	e.settle()
	e.clock.Step(d)
	e.settle()
}

// conditioned is any object with status conditions.
type conditioned interface {
	metav1.Object
	GetConditions() []metav1.Condition
}

func conditionIs(obj conditioned, conditionType string, status metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(obj.GetConditions(), conditionType)
	switch {
	case c == nil:
		return fmt.Errorf("%s has no %s condition", obj.GetName(), conditionType)
	case c.Status != status || (reason != "" && c.Reason != reason):
		return fmt.Errorf("%s: %s is %s/%s (%q), want %s/%s", obj.GetName(), conditionType, c.Status, c.Reason, c.Message, status, reason)
	case c.ObservedGeneration != obj.GetGeneration():
		return fmt.Errorf("%s: %s observed generation %d, object is at %d", obj.GetName(), conditionType, c.ObservedGeneration, obj.GetGeneration())
	}
	return nil
}

func programmed(obj conditioned) error {
	return conditionIs(obj, commonv1alpha1.ConditionProgrammed, metav1.ConditionTrue, commonv1alpha1.ReasonProgrammed)
}

// events returns the Events about the named object of the given kind. A
// list that fails on its way (the API server once reset the stream of one
// under load) is tried again; the operator's clock stays where it is.
func (e *env) events(kind, name string) []corev1.Event {
	e.t.Helper()
	var items []corev1.Event
	var last error
	err := wait.PollUntilContextTimeout(e.ctx, pollPeriod, patience, true, func(ctx context.Context) (bool, error) {
		list, err := e.kube.CoreV1().Events(e.ns).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.kind=" + kind + ",involvedObject.name=" + name,
		})
		if last = err; err != nil {
			return false, nil
		}
		items = list.Items
		return true, nil
	})
	if err != nil {
		e.t.Fatalf("listing the Events of %s %s: %v (last: %v)", kind, name, err, last)
	}
	return items
}

// eventuallyEvent waits for an Event with the given type and reason.
func (e *env) eventuallyEvent(kind, name, eventType, reason string) corev1.Event {
	e.t.Helper()
	var found corev1.Event
	e.eventually(fmt.Sprintf("%s Event %s on %s %s", eventType, reason, kind, name), func() error {
		for _, ev := range e.events(kind, name) {
			if ev.Type == eventType && ev.Reason == reason {
				found = ev
				return nil
			}
		}
		return fmt.Errorf("no such Event yet")
	})
	return found
}

// entities returns what the simulator holds in a collection of a control
// plane.
func (e *env) entities(cpID, collection string) []map[string]any {
	return e.sim.Entities(e.orgID, cpID, collection)
}

func (e *env) entity(cpID, collection, id string) (map[string]any, bool) {
	for _, ent := range e.entities(cpID, collection) {
		if ent["id"] == id {
			return ent, true
		}
	}
	return nil, false
}

// calls counts the simulator's requests whose operation matches
// "METHOD /path/template" with the given method and a template containing
// fragment.
func (e *env) calls(method, fragment string) int {
	return e.countCalls(method, fragment, false)
}

// callsBesidesListings is calls without the listings of a collection
// (GETs of a path that names no entity): the lister lists each control
// plane's collections once a sync period, the first time at a random point
// of the first period, which the clock's steps may reach. A search by tag
// is a listing too and is left out with them.
func (e *env) callsBesidesListings(method, fragment string) int {
	return e.countCalls(method, fragment, true)
}

func (e *env) countCalls(method, fragment string, besidesListings bool) int {
	n := 0
	for op, count := range e.sim.Calls() {
		if besidesListings && strings.HasPrefix(op, "GET ") && !strings.HasSuffix(op, "}") {
			continue
		}
		if (method == "" || strings.HasPrefix(op, method+" ")) && strings.Contains(op, fragment) {
			n += count
		}
	}
	return n
}

func tagsOf(ent map[string]any) []string {
	raw, _ := ent["tags"].([]any)
	out := make([]string, 0, len(raw))
	for _, t := range raw {
		out = append(out, fmt.Sprint(t))
	}
	return out
}

// --- the Konnect roots: an auth configuration and a control plane ---

func (e *env) createAuthConfig(name string) *konnectv1alpha1.KonnectAPIAuthConfiguration {
	e.t.Helper()
	ac, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type:      konnectv1alpha1.KonnectAPIAuthTypeToken,
			Token:     testToken,
			ServerURL: e.sim.URL,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return ac
}

func (e *env) controlPlaneObject(name, authName string) *konnectv1alpha2.KonnectGatewayControlPlane {
	return &konnectv1alpha2.KonnectGatewayControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha2.KonnectGatewayControlPlaneSpec{
			CreateControlPlaneRequest: &konnectv1alpha2.CreateControlPlaneRequest{Name: e.ns + "-" + name},
			Konnect:                   &konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: authName}},
		},
	}
}

func (e *env) createControlPlane(name, authName string) {
	e.t.Helper()
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Create(e.ctx, e.controlPlaneObject(name, authName), metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) controlPlane(name string) *konnectv1alpha2.KonnectGatewayControlPlane {
	e.t.Helper()
	cp, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return cp
}

// ready creates an auth configuration and a control plane, waits until the
// control plane is Programmed, and returns its Konnect ID.
func (e *env) ready() string {
	e.t.Helper()
	e.createAuthConfig("auth")
	e.createControlPlane("cp", "auth")
	var id string
	e.eventually("control plane Programmed", func() error {
		cp := e.controlPlane("cp")
		id = cp.Status.ID
		return programmed(cp)
	})
	return id
}

func cpRef(name string) *commonv1alpha1.ControlPlaneRef {
	return &commonv1alpha1.ControlPlaneRef{
		Type:                 commonv1alpha1.ControlPlaneRefKonnectNamespacedRef,
		KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: name},
	}
}
