package controller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Adopter is implemented by the adapters of kinds with spec.adopt: instead
// of creating an entity, the reconciler takes over an existing one, either
// overwriting it with the spec (override) or verifying that it already
// equals the spec (match).
type Adopter[T Entity, D any] interface {
	// AdoptOptions returns obj's spec.adopt, or nil.
	AdoptOptions(obj T) *commonv1alpha1.AdoptOptions
	// Fetch reads the entity to adopt. uid is the value of its k8s-uid tag
	// (or label), "" when it has none.
	Fetch(ctx context.Context, c *konnect.Client, obj T, p Placement, id string) (actual D, uid string, err error)
	// Differences names, by their Konnect field names, the fields compared
	// in match mode in which actual differs from desired.
	Differences(desired, actual D) []string
}

// AdoptPrecondition is implemented by adopters whose entities can only be
// adopted, in either mode, when some fields already agree with the spec,
// because overwriting them would move the entity elsewhere (a route must
// already lead to the service its object names).
type AdoptPrecondition[D any] interface {
	// Incompatibilities names, by their Konnect field names, the fields
	// that must already agree and do not.
	Incompatibilities(desired, actual D) []string
}

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
// ID. It records the outcome in the Adopted condition.
func (r *EntityReconciler[T, D]) adoptExisting(ctx context.Context, client *konnect.Client, obj T, p Placement, desired D, adopter Adopter[T, D], opts *commonv1alpha1.AdoptOptions) (string, error) {
	id := opts.Konnect.ID
	refuse := func(reason string, err error) (string, error) {
		SetCondition(obj, FalseCondition(commonv1alpha1.ConditionAdopted, reason, err.Error()))
		return "", WithReason(commonv1alpha1.ReasonFailedToAdopt, err)
	}
	r.metrics.EntityOperation(r.kind, "adopt")
	actual, uid, err := adopter.Fetch(ctx, client, obj, p, id)
	if err != nil {
		if isRateLimited(err) {
			return "", err
		}
		_, refusal := refuse(commonv1alpha1.ReasonFetchFailed, fmt.Errorf("cannot read %s %s to adopt: %w", r.kind, id, err))
		if konnect.IsNotFound(err) || konnect.IsAuth(err) {
			return "", Permanent(refusal, r.syncPeriod)
		}
		return "", refusal
	}
	if uid != "" && uid != string(obj.GetUID()) {
		_, refusal := refuse(commonv1alpha1.ReasonUIDConflict, fmt.Errorf("%s %s belongs to another object (k8s-uid %s)", r.kind, id, uid))
		return "", Permanent(refusal, r.syncPeriod)
	}
	if pre, ok := any(adopter).(AdoptPrecondition[D]); ok {
		if diff := pre.Incompatibilities(desired, actual); len(diff) > 0 {
			_, refusal := refuse(commonv1alpha1.ReasonNotMatch, fmt.Errorf("%s %s cannot be adopted: it differs from the spec in %s, which adoption does not change", r.kind, id, strings.Join(diff, ", ")))
			return "", Permanent(refusal, r.syncPeriod)
		}
	}
	switch opts.EffectiveMode() {
	case commonv1alpha1.AdoptModeMatch:
		if diff := adopter.Differences(desired, actual); len(diff) > 0 {
			_, refusal := refuse(commonv1alpha1.ReasonNotMatch, fmt.Errorf("%s %s differs from the spec in: %s", r.kind, id, strings.Join(diff, ", ")))
			return "", Permanent(refusal, r.syncPeriod)
		}
	default:
		r.metrics.EntityOperation(r.kind, "update")
		if err := r.adapter.Update(ctx, client, obj, p, id, desired); err != nil {
			if isRateLimited(err) {
				return "", err
			}
			return refuse(commonv1alpha1.ReasonFailedToAdopt, fmt.Errorf("cannot overwrite %s %s: %w", r.kind, id, err))
		}
	}
	message := fmt.Sprintf("Adopted %s %s (%s)", r.kind, id, opts.EffectiveMode())
	SetCondition(obj, TrueCondition(commonv1alpha1.ConditionAdopted, commonv1alpha1.ReasonAdopted, message))
	r.recorder.Event(obj, corev1.EventTypeNormal, EventAdopted, message)
	return id, nil
}
