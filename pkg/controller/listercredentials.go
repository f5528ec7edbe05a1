package controller

import (
	"context"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// placementTries bounds how many members of a listing scope a listing
// resolves to find its credentials: members whose own references are
// broken are skipped, and when that many fail, the scope's references are
// broken for all of them alike.
const placementTries = 8

// currentPlacement is where a listing scope is listed now, with the
// credentials its members resolve to at this moment: never kept from an
// earlier reconcile, so that a rotated token, a revoked grant or a
// configuration no longer valid takes effect on the listing as on any
// other call. A member is resolved as its own reconcile would resolve it,
// and the first one whose references are usable gives the placement. nil
// (with no error) when none may be listed now: the next period tries
// again. Members found to resolve to another scope (their control plane's
// token was replaced) are reconciled, which moves them there.
func (r *EntityReconciler[T, D]) currentPlacement(ctx context.Context, scope string, members map[cache.ObjectName]member, enqueue func(cache.ObjectName)) (*Placement, error) {
	logger := klog.FromContext(ctx)
	tries := 0
	for key, m := range members {
		if tries == placementTries {
			break
		}
		cached, err := r.informer.Get(key.Namespace, key.Name)
		if err != nil || cached.GetUID() != m.uid || cached.GetDeletionTimestamp() != nil {
			continue // gone or going: its own reconcile handles it
		}
		tries++
		res, err := r.resolve(ctx, cached.DeepCopyObject().(T), ForSync)
		if _, deferred := konnect.IsDeferred(err); deferred {
			return nil, err
		}
		if err != nil || !res.Ready {
			continue
		}
		if scopeOf(res.Placement) != scope {
			logger.V(2).Info("The listing scope's members resolve to another one now; reconciling them", "kind", r.kind.KindName())
			for key := range members {
				enqueue(key)
			}
			return nil, nil
		}
		return &res.Placement, nil
	}
	logger.V(2).Info("No member of the listing scope can be used now; not listing this period", "kind", r.kind.KindName(), "tried", tries)
	return nil, nil
}
