package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// LeaderElection configures the lease that elects the active replica.
type LeaderElection struct {
	Enabled       bool
	LeaseName     string
	Namespace     string
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// Clock is what the write fence measures the time since the last
	// renewal by (see pkg/fence); nil means the real clock. Tests pass one
	// they move past the renew deadline.
	Clock clock.PassiveClock
}

// runElected runs the controllers while this process holds the Lease. It
// returns when ctx is cancelled (releasing the Lease) or, with an error,
// when the Lease is lost: the process then exits, to restart as a standby
// rather than go on without the Lease. The Lease counts as lost as soon as
// a write finds its last renewal older than the renew deadline (see
// pkg/fence), which is before client-go notices, and what a process that
// was paused past its Lease finds first when it wakes.
func (o *Operator) runElected(ctx context.Context) error {
	le := o.cfg.LeaderElection
	identity := o.cfg.Identity
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, le.Namespace, le.LeaseName,
		o.unfenced.CoreV1(), o.unfenced.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: identity})
	if err != nil {
		return fmt.Errorf("creating the leader-election lock: %w", err)
	}
	lock = o.lease.Lock(lock)
	logger := klog.FromContext(ctx)
	// The elector calls OnStartedLeading on a goroutine of its own and does
	// not wait for it; the controllers run here instead, so that they are
	// joined before this returns.
	leading := make(chan context.Context, 1)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration,
		RenewDeadline:   le.RenewDeadline,
		RetryPeriod:     le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.LeaseName,
		WatchDog:        o.electionHealth,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) { leading <- leaderCtx },
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
	electorCtx, stopElector := context.WithCancel(ctx)
	defer stopElector()
	electorDone := make(chan struct{})
	go func() {
		defer close(electorDone)
		elector.Run(electorCtx)
	}()
	var runErr error
	select {
	case <-electorDone:
	case leaderCtx := <-leading:
		// leaderCtx ends when client-go says the Lease is lost or ctx is
		// cancelled; runCtx also when a write found it lost.
		logger.Info("Became the leader; starting controllers", "identity", identity)
		o.leading.Store(true)
		runCtx, stopControllers := context.WithCancel(leaderCtx)
		go func() {
			select {
			case <-o.lease.Lost():
				logger.Info("Stopping: the Lease may have been lost", "err", o.lease.Err())
				o.leading.Store(false)
				stopControllers()
				stopElector()
			case <-runCtx.Done():
			}
		}()
		runErr = o.runControllers(runCtx)
		stopControllers()
		<-electorDone
	}
	if ctx.Err() != nil {
		// Stopping; the controllers' "caches did not sync" is no failure.
		return nil
	}
	if err := o.lease.Err(); err != nil {
		return fmt.Errorf("lost the leader-election lease: %w", err)
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return fmt.Errorf("lost the leader-election lease: %w", runErr)
	}
	return errors.New("lost the leader-election lease")
}
