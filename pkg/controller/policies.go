package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Event reasons of the day-2 controls.
const (
	// EventPaused: the reconcile policy pause keeps the object's changes
	// from Konnect.
	EventPaused = "Paused"
	// EventDriftReported: under the report policy, the entity was found
	// changed or missing in Konnect and left as it is.
	EventDriftReported = "DriftReported"
	// EventOrphaned: the object was deleted and its entity left in
	// Konnect, untouched (deletion policy orphan, a protected object in a
	// deleted namespace, or another cluster's entity).
	EventOrphaned = "Orphaned"
	// EventForeign: the entity names another cluster's identity; nothing
	// is written.
	EventForeign = "OwnedByAnotherCluster"
	// EventInvalidPolicy: a policy annotation holds a value the operator
	// does not know.
	EventInvalidPolicy = "InvalidPolicy"
)

// TagKeyCluster is the tag (and control-plane label) that names the
// cluster whose operator wrote an entity: an operator never adopts,
// overwrites or deletes an entity another cluster's operator owns.
const TagKeyCluster = "k8s-cluster"

// OwnerFromTags returns the cluster identity among tags, "" when none.
func OwnerFromTags(tags []string) string {
	for _, t := range tags {
		if v, ok := strings.CutPrefix(t, TagKeyCluster+":"); ok {
			return v
		}
	}
	return ""
}

// pause makes no Konnect call and says so in Paused=True; a deletion waits
// for the policy to change.
func (r *EntityReconciler[T, D]) pause(ctx context.Context, t *pass[T, D]) (Result, error) {
	message := "reconcile-policy is pause: the operator makes no Konnect call for this object until the policy changes"
	if t.facts.deleting {
		message += "; its deletion waits until then (deletion-policy orphan would leave the entity in Konnect)"
	}
	SetCondition(t.obj, TrueCondition(commonv1alpha1.ConditionPaused, commonv1alpha1.ReasonPaused, message))
	written, err := r.writeStatus(ctx, t)
	if written {
		r.recorder.Event(t.obj, corev1.EventTypeNormal, EventPaused, message)
	}
	return Result{}, err
}

// reportPolicy says which annotation holds a value the operator does not
// know; nothing else happens until it is fixed.
func (r *EntityReconciler[T, D]) reportPolicy(ctx context.Context, t *pass[T, D]) (Result, error) {
	message := t.facts.policies.Invalid + "; the object is left alone until it is fixed"
	t.stalled = true
	SetCondition(t.obj, FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonInvalidPolicy, message))
	_, err := r.writeStatus(ctx, t)
	r.warnOnce(t, EventInvalidPolicy, message)
	return Result{}, err
}

// reportDrift reports, under the report policy, what changed in Konnect
// (the fields, never their values), without writing it back.
func (r *EntityReconciler[T, D]) reportDrift(ctx context.Context, t *pass[T, D]) (Result, error) {
	mark, kind := t.action.mark, r.kind.KindName()
	reason := commonv1alpha1.ReasonDriftReported
	if mark.cause == driftMissing {
		reason = commonv1alpha1.ReasonMissingInKonnect
	}
	message := fmt.Sprintf("%s %s %s; not written back (reconcile-policy report)", kind, t.action.id, mark.describe())
	SetCondition(t.obj, TrueCondition(commonv1alpha1.ConditionDrifted, reason, message))
	if _, err := r.writeStatus(ctx, t); err != nil {
		return Result{}, err
	}
	if seen := t.rec.driftReported; seen == nil || seen.cause != mark.cause || !slices.Equal(seen.fields, mark.fields) {
		r.metrics.DriftReported(kind)
		r.recorder.Event(t.obj, corev1.EventTypeWarning, EventDriftReported, message)
	}
	reported := *mark
	t.remember(clearMark(mark), func(rec *record) { rec.driftReported = &reported })
	return Result{}, nil
}

// reportForeign says that another cluster's operator owns the entity: it
// is never written or deleted from here.
func (r *EntityReconciler[T, D]) reportForeign(ctx context.Context, t *pass[T, D]) (Result, error) {
	message := fmt.Sprintf("%s %s is owned by the operator of cluster %s (tag %s); it is never written or deleted from here: spec.adopt with mode override takes it over",
		r.kind.KindName(), t.action.id, t.action.owner, TagKeyCluster)
	t.stalled = true
	SetCondition(t.obj, FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonOwnedByOtherCluster, message))
	_, err := r.writeStatus(ctx, t)
	r.warnOnce(t, EventForeign, message)
	owner := t.action.owner
	t.remember(clearMark(t.action.mark), func(rec *record) { rec.foreign = owner })
	return Result{}, err
}

// orphan releases an object being deleted and leaves its entity in
// Konnect, untouched.
func (r *EntityReconciler[T, D]) orphan(ctx context.Context, t *pass[T, D]) (Result, error) {
	if err := r.removeFinalizers(ctx, t.obj); err != nil {
		return Result{}, err
	}
	// Its entity stays: an object that comes back under its name takes it
	// back.
	t.remember(finalized, knownEntity(t.facts.id))
	why := "deletion-policy orphan"
	switch {
	case t.action.owner != "":
		why = "owned by the operator of cluster " + t.action.owner
	case t.facts.policies.Protected && t.facts.policies.Deletion != commonv1alpha1.DeletionPolicyOrphan:
		why = "the object is protected, and was deleted with its namespace"
	case t.facts.policies.Deletion != commonv1alpha1.DeletionPolicyOrphan:
		why = "its control plane was deleted with deletion-policy orphan"
	}
	r.recorder.Eventf(t.obj, corev1.EventTypeNormal, EventOrphaned, "Left %s %s in Konnect, untouched: %s", r.kind.KindName(), orNone(t.facts.id), why)
	return Result{}, nil
}

// policyConditions keeps the conditions of the day-2 controls in step
// with a reconcile that was not paused: Paused goes, and Drifted says,
// under the report policy, whether drift is reported.
func (r *EntityReconciler[T, D]) policyConditions(t *pass[T, D], inSync bool) {
	RemoveCondition(t.obj, commonv1alpha1.ConditionPaused)
	if why := t.rec.listingRefused; why != "" && !inSync {
		message := fmt.Sprintf("whether Konnect still holds what the operator last wrote is unknown: the listing of its %ss, which finds drift, was refused (%s); it is listed again each sync period", r.kind.KindName(), why)
		SetCondition(t.obj, Condition(commonv1alpha1.ConditionDrifted, metav1.ConditionUnknown, ReasonListingRefused, message))
		r.warnOnce(t, ReasonListingRefused, message)
		return
	}
	if t.facts.policies.Reconcile != commonv1alpha1.ReconcilePolicyReport {
		RemoveCondition(t.obj, commonv1alpha1.ConditionDrifted)
		return
	}
	if inSync || t.rec.driftReported == nil {
		SetCondition(t.obj, FalseCondition(commonv1alpha1.ConditionDrifted, commonv1alpha1.ReasonInSync, "Konnect holds what the operator last wrote"))
	}
}

// warnOnce records a Warning Event unless the last Warning about the
// object said the same.
func (r *EntityReconciler[T, D]) warnOnce(t *pass[T, D], reason, message string) {
	cause := reason + "\x00" + message
	if t.rec.warned != cause {
		r.recorder.Event(t.obj, corev1.EventTypeWarning, reason, message)
	}
	t.remember(warnedOf(cause))
}

// readOwner reads whose the entity is, and returns the identity of another
// cluster whose operator owns it ("" when it is this cluster's, or names
// none); the record remembers it either way.
func (r *EntityReconciler[T, D]) readOwner(ctx context.Context, t *pass[T, D], api konnect.API) (string, error) {
	r.metrics.EntityOperation(r.kind.KindName(), "read")
	owner, err := r.kind.Owner(ctx, api, t.obj, t.res.Placement, t.action.id)
	if err != nil {
		return "", err
	}
	if owner == r.cluster {
		owner = ""
	}
	t.remember(func(rec *record) { rec.ownerKnown, rec.foreign = true, owner })
	return owner, nil
}

// clearMark drops the lister's mark the pass acted on (not a later one).
func clearMark(mark *driftMark) edit {
	return func(rec *record) {
		if mark != nil && rec.mark != nil && rec.mark.seq == mark.seq {
			rec.mark = nil
		}
	}
}
