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

// adoptExisting takes over the entity named by spec.adopt and returns its
// ID, and the snapshot of Konnect's answer when it overwrote the entity
// (none in match mode, which writes nothing). It records the outcome in the
// Adopted condition.
func (r *EntityReconciler[T, D]) adoptExisting(ctx context.Context, api konnect.API, obj T, p Placement, desired D, opts *commonv1alpha1.AdoptOptions) (string, Snapshot, error) {
	id := opts.Konnect.ID
	kind := r.kind.KindName()
	refuse := func(reason string, err error) (string, Snapshot, error) {
		SetCondition(obj, FalseCondition(commonv1alpha1.ConditionAdopted, reason, err.Error()))
		return "", Snapshot{}, WithReason(commonv1alpha1.ReasonFailedToAdopt, err)
	}
	var snapshot Snapshot
	r.metrics.EntityOperation(kind, "adopt")
	found, err := r.kind.Adopt.Inspect(ctx, api, obj, p, id, desired)
	if err != nil {
		if isRateLimited(err) {
			return "", Snapshot{}, err
		}
		_, _, refusal := refuse(commonv1alpha1.ReasonFetchFailed, fmt.Errorf("cannot read %s %s to adopt: %w", kind, id, err))
		if konnect.IsNotFound(err) || konnect.IsAuth(err) {
			return "", Snapshot{}, Permanent(refusal, r.syncPeriod)
		}
		return "", Snapshot{}, refusal
	}
	if uid := found.UID; uid != "" && uid != string(obj.GetUID()) {
		_, _, refusal := refuse(commonv1alpha1.ReasonUIDConflict, fmt.Errorf("%s %s belongs to another object (k8s-uid %s)", kind, id, uid))
		return "", Snapshot{}, Permanent(refusal, r.syncPeriod)
	}
	if diff := found.Incompatibilities; len(diff) > 0 {
		_, _, refusal := refuse(commonv1alpha1.ReasonNotMatch, fmt.Errorf("%s %s cannot be adopted: it differs from the spec in %s, which adoption does not change", kind, id, strings.Join(diff, ", ")))
		return "", Snapshot{}, Permanent(refusal, r.syncPeriod)
	}
	switch opts.EffectiveMode() {
	case commonv1alpha1.AdoptModeMatch:
		if diff := found.Differences; len(diff) > 0 {
			_, _, refusal := refuse(commonv1alpha1.ReasonNotMatch, fmt.Errorf("%s %s differs from the spec in: %s", kind, id, strings.Join(diff, ", ")))
			return "", Snapshot{}, Permanent(refusal, r.syncPeriod)
		}
	default:
		r.metrics.EntityOperation(kind, "update")
		var err error
		if snapshot, err = r.kind.Update(ctx, api, obj, p, id, desired); err != nil {
			if isRateLimited(err) {
				return "", Snapshot{}, err
			}
			return refuse(commonv1alpha1.ReasonFailedToAdopt, fmt.Errorf("cannot overwrite %s %s: %w", kind, id, err))
		}
	}
	message := fmt.Sprintf("Adopted %s %s (%s)", kind, id, opts.EffectiveMode())
	SetCondition(obj, TrueCondition(commonv1alpha1.ConditionAdopted, commonv1alpha1.ReasonAdopted, message))
	r.recorder.Event(obj, corev1.EventTypeNormal, EventAdopted, message)
	return id, snapshot, nil
}
