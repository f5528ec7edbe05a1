package controller

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// reportReferences says, in the status, that references are not usable,
// and in a Warning once the same problem has lasted the grace period. The
// references' own changes enqueue the object again; the wait is for the
// Warning of a problem that lasts.
func (r *EntityReconciler[T, D]) reportReferences(ctx context.Context, t *pass[T, D]) (Result, error) {
	cause, refState := t.facts.problem, t.res.RefState
	SetCondition(t.obj, FalseCondition(commonv1alpha1.ConditionProgrammed, refState.Reason(), cause))
	t.stalled = refState.Standing() == Stalled
	_, err := r.writeStatus(ctx, t)
	if t.res.ParentGone {
		r.reportGoneWithParent(t, cause)
	}
	t.remember(problemSeen(cause, r.clock.Now()))
	if t.action.warn {
		r.recorder.Event(t.obj, corev1.EventTypeWarning, EventReferenceFailed, cause)
		t.remember(warnedOf(cause))
	}
	return Result{RequeueAfter: t.action.wait}, err
}

// failed records a failed Konnect call: Programmed=False with Konnect's
// message and a Warning Event, unless the last Warning said the same. A 429
// is not a failure: the status is left alone and the object waits for the
// delay.
func (r *EntityReconciler[T, D]) failed(ctx context.Context, t *pass[T, D], reason string, err error) error {
	if limited := konnectRateLimited(err); limited != nil {
		return limited
	}
	if held, ok := konnect.IsHeld(err); ok {
		return r.reportHeld(ctx, t, held)
	}
	var withReason *ReasonError
	if errors.As(err, &withReason) {
		reason = withReason.Reason
	}
	message := err.Error()
	if konnect.IsAuth(err) || konnect.IsInvalidInput(err) || konnect.IsServerFault(err) {
		// Retrying will not help until the spec, the token or a referenced
		// object changes, and those changes enqueue the object; a server
		// that answered what no Konnect does answers so again, and is
		// asked again no sooner than a sync period.
		err = Permanent(err, r.timing.syncPeriod)
	}
	t.stalled = IsPermanent(err)
	SetCondition(t.obj, FalseCondition(commonv1alpha1.ConditionProgrammed, reason, message))
	if _, werr := r.writeStatus(ctx, t); werr != nil {
		klog.FromContext(ctx).V(2).Info("Could not record the failure in the status", "err", werr)
	}
	cause := reason + "\x00" + message
	switch {
	case t.rec.warned == cause:
	case konnect.IsTransient(err) && t.rec.problem != cause:
		// Said in the status at once, and in a Warning once it comes again:
		// most transient failures go by themselves, and an outage of the
		// whole organisation is said once per object, by its hold.
		t.remember(problemSeen(cause, r.clock.Now()))
	default:
		r.recorder.Event(t.obj, corev1.EventTypeWarning, reason, message)
		t.remember(warnedOf(cause))
	}
	return err
}

// reportHeld records a Konnect call its organisation's hold refused:
// Programmed=False saying that Konnect does not answer (or rejects the
// token) since when, and one Warning Event per object and hold. The
// object waits for the hold to end (see park.go); the error says so to
// the loop.
func (r *EntityReconciler[T, D]) reportHeld(ctx context.Context, t *pass[T, D], held *konnect.HeldError) error {
	reason := commonv1alpha1.ReasonKonnectUnreachable
	if held.Reason == konnect.HoldUnauthorized {
		reason = commonv1alpha1.ReasonKonnectTokenRejected
	}
	message := held.Describe()
	SetCondition(t.obj, FalseCondition(commonv1alpha1.ConditionProgrammed, reason, message))
	if _, werr := r.writeStatus(ctx, t); werr != nil {
		klog.FromContext(ctx).V(2).Info("Could not record the hold in the status", "err", werr)
	}
	if cause := reason + "\x00" + message; t.rec.warned != cause {
		r.recorder.Event(t.obj, corev1.EventTypeWarning, reason, message)
		t.remember(warnedOf(cause))
	}
	return held
}

// konnectRateLimited is the loop's RateLimitedError for a Konnect call
// refused for the organisation's budget: a 429, or a call its limiter did
// not send but gave a turn (konnect.WithDeferral); nil for any other error.
func konnectRateLimited(err error) *RateLimitedError {
	var rl *konnect.RateLimitedError
	if !errors.As(err, &rl) {
		return nil
	}
	return &RateLimitedError{Delay: rl.RetryAfter, Err: err}
}

func (r *EntityReconciler[T, D]) markProgrammed(obj T, p Placement, id string) {
	r.recordPlacement(obj, p, id)
	SetCondition(obj, TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, ""))
}

// recordPlacement records the entity's ID, server URL and organisation.
func (r *EntityReconciler[T, D]) recordPlacement(obj T, p Placement, id string) {
	status := obj.KonnectStatus(true)
	status.ID = id
	status.ServerURL = p.Auth.ServerURL
	status.OrgID = p.Auth.OrgID
}

// applyReferenceConditions sets the reference conditions Resolve returned
// and removes those of the kind's condition types that no longer apply.
func (r *EntityReconciler[T, D]) applyReferenceConditions(obj T, conditions []metav1.Condition) {
	present := map[string]bool{}
	for _, c := range conditions {
		present[c.Type] = true
		SetCondition(obj, c)
	}
	for _, t := range r.kind.Conditions {
		if !present[t] {
			RemoveCondition(obj, t)
		}
	}
}

// writeStatus writes the pass's status when it changed, with the
// readiness conditions derived from it.
func (r *EntityReconciler[T, D]) writeStatus(ctx context.Context, t *pass[T, D]) (bool, error) {
	SetReadiness(t.obj, r.verdict(t))
	written, err := WriteStatus(ctx, r.clients(t.obj.GetNamespace()), t.cached, t.obj)
	if written {
		r.metrics.StatusWritten(r.kind.KindName())
	}
	return written, err
}

// verdict is the one place where an object's standing is derived, for
// every kind alike: from its Programmed condition and what the pass did.
// Paused, it is Current only while Programmed for its generation. Without
// a verdict yet (Programmed Unknown, or none), it is being created. A
// failure the pass found permanent, or references that only a change
// fixes, stall it; anything else not Programmed for its generation, or
// being deleted, is progressing.
func (r *EntityReconciler[T, D]) verdict(t *pass[T, D]) Verdict {
	obj := t.obj
	programmed := meta.FindStatusCondition(obj.GetConditions(), commonv1alpha1.ConditionProgrammed)
	current := IsProgrammed(obj) && !t.facts.deleting
	switch {
	case t.action.op == opPause && current:
		return Verdict{Standing: Current, Reason: programmed.Reason, Message: programmed.Message}
	case t.action.op == opPause:
		message := ""
		if paused := meta.FindStatusCondition(obj.GetConditions(), commonv1alpha1.ConditionPaused); paused != nil {
			message = paused.Message
		}
		return Verdict{Standing: Stalled, Reason: commonv1alpha1.ReasonPaused, Message: message}
	case programmed == nil || programmed.Status == metav1.ConditionUnknown:
		return Verdict{Standing: Progressing, Reason: commonv1alpha1.ReasonPending, Message: fmt.Sprintf("the %s is being created in Konnect", r.kind.KindName())}
	}
	v := Verdict{Standing: Progressing, Reason: programmed.Reason, Message: programmed.Message}
	switch {
	case t.stalled:
		v.Standing = Stalled
	case current:
		v.Standing = Current
	}
	return v
}
