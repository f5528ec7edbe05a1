package fence

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Lock wraps the leader-election lock so that the Lease hears of every
// renewal and acquisition of this process that succeeds, and when it
// began.
func (l *Lease) Lock(inner resourcelock.Interface) resourcelock.Interface {
	return &lock{Interface: inner, lease: l}
}

type lock struct {
	resourcelock.Interface
	lease *Lease
}

// Create implements resourcelock.Interface.
func (k *lock) Create(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	start := k.lease.clock.Now()
	err := k.Interface.Create(ctx, record)
	k.observe(start, record, err)
	return err
}

// Update implements resourcelock.Interface. A release (a record that
// names no holder) is refused once the Lease may have been lost: the
// Lease written since may be another's, and a release would blank it.
func (k *lock) Update(ctx context.Context, record resourcelock.LeaderElectionRecord) error {
	if record.HolderIdentity == "" {
		if err := k.lease.Check(); err != nil {
			return fmt.Errorf("not releasing the Lease: %w", err)
		}
	}
	start := k.lease.clock.Now()
	err := k.Interface.Update(ctx, record)
	k.observe(start, record, err)
	return err
}

// observe counts a write of the Lease that names this process as its
// holder (not the release, which names none).
func (k *lock) observe(start time.Time, record resourcelock.LeaderElectionRecord, err error) {
	if err != nil || record.HolderIdentity == "" || record.HolderIdentity != k.Identity() {
		return
	}
	k.lease.Renewed(start)
}
