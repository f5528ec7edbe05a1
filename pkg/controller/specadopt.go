package controller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// EventAdopted is the reason of the Event recorded when spec.adopt took an
// entity over.
const EventAdopted = "Adopted"

// UIDFromTags returns the value of the k8s-uid tag among tags.
func UIDFromTags(tags []string) string {
	for _, t := range tags {
		if v, ok := strings.CutPrefix(t, TagKeyUID+":"); ok {
			return v
		}
	}
	return ""
}

// adoptExisting takes over the entity named by spec.adopt, with the
// snapshot of Konnect's answer when it overwrote the entity (none in match
// mode, which writes nothing). It records the outcome in the Adopted
// condition.
func (r *EntityReconciler[T, D]) adoptExisting(ctx context.Context, t *pass[T, D], api konnect.API, opts *commonv1alpha1.AdoptOptions) (written, error) {
	id, obj, kind := opts.Konnect.ID, t.obj, r.kind.KindName()
	refuse := func(reason string, err error) error {
		SetCondition(obj, FalseCondition(commonv1alpha1.ConditionAdopted, reason, err.Error()))
		return WithReason(commonv1alpha1.ReasonFailedToAdopt, err)
	}
	r.metrics.EntityOperation(kind, "adopt")
	found, err := r.kind.Adopt.Inspect(ctx, api, obj, t.res.Placement, id, t.desired)
	if err != nil {
		if isRateLimited(err) {
			return written{}, err
		}
		refusal := refuse(commonv1alpha1.ReasonFetchFailed, fmt.Errorf("cannot read %s %s to adopt: %w", kind, id, err))
		if konnect.IsNotFound(err) || konnect.IsAuth(err) {
			return written{}, Permanent(refusal, r.timing.syncPeriod)
		}
		return written{}, refusal
	}
	foreign := found.Owner != "" && r.cluster != "" && found.Owner != r.cluster
	if foreign && opts.EffectiveMode() != commonv1alpha1.AdoptModeOverride {
		refusal := refuse(commonv1alpha1.ReasonOwnedByOtherCluster, fmt.Errorf("%s %s is owned by the operator of cluster %s (tag %s); adopting it with mode override takes it over deliberately", kind, id, found.Owner, TagKeyCluster))
		return written{}, Permanent(refusal, r.timing.syncPeriod)
	}
	// The k8s-uid of another cluster's entity names an object of that
	// cluster, not one of this cluster's: taking it over is no conflict.
	if uid := found.UID; uid != "" && uid != string(obj.GetUID()) && !foreign {
		refusal := refuse(commonv1alpha1.ReasonUIDConflict, fmt.Errorf("%s %s belongs to another object (k8s-uid %s)", kind, id, uid))
		return written{}, Permanent(refusal, r.timing.syncPeriod)
	}
	if diff := found.Incompatibilities; len(diff) > 0 {
		refusal := refuse(commonv1alpha1.ReasonNotMatch, fmt.Errorf("%s %s cannot be adopted: it differs from the spec in %s, which adoption does not change", kind, id, strings.Join(diff, ", ")))
		return written{}, Permanent(refusal, r.timing.syncPeriod)
	}
	w := written{id: id}
	switch opts.EffectiveMode() {
	case commonv1alpha1.AdoptModeMatch:
		if diff := found.Differences; len(diff) > 0 {
			refusal := refuse(commonv1alpha1.ReasonNotMatch, fmt.Errorf("%s %s differs from the spec in: %s", kind, id, strings.Join(diff, ", ")))
			return written{}, Permanent(refusal, r.timing.syncPeriod)
		}
	default:
		r.metrics.EntityOperation(kind, "update")
		if w.snapshot, err = r.kind.Update(ctx, api, obj, t.res.Placement, id, t.desired); err != nil {
			if isRateLimited(err) {
				return written{}, err
			}
			return written{}, refuse(commonv1alpha1.ReasonFailedToAdopt, fmt.Errorf("cannot overwrite %s %s: %w", kind, id, err))
		}
	}
	message := fmt.Sprintf("Adopted %s %s (%s)", kind, id, opts.EffectiveMode())
	SetCondition(obj, TrueCondition(commonv1alpha1.ConditionAdopted, commonv1alpha1.ReasonAdopted, message))
	r.recorder.Event(obj, corev1.EventTypeNormal, EventAdopted, message)
	return w, nil
}
