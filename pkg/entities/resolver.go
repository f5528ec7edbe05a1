package entities

import (
	"context"

	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// resolver accumulates the outcome of resolving one object's references.
type resolver struct {
	// ctx bounds what a step reads past the informers' caches.
	ctx     context.Context
	purpose controller.Purpose
	res     controller.Resolution
	// refused and granted are the cross-namespace references seen, for the
	// ResolvedRefs condition, which is only present when there are some.
	refused []string
	granted int
	// problems counts the False conditions that say something is wrong;
	// missing those of references not found, waits those that wait for a
	// reference on its way to Konnect, reads those of objects the operator
	// is reading for the first time.
	problems, missings, waits, reads int
	// refState is the state of the unusable references, what they need
	// before the object can go on: the most severe of them (the
	// Programmed reason says it).
	refState controller.RefState
	// elsewheres counts the references found in another shard.
	elsewheres int
	// err is a failure to tell where a missing reference is: the
	// resolution ends with it, rather than take the reference for gone.
	err error
}

func newResolver(ctx context.Context, purpose controller.Purpose) *resolver {
	return &resolver{ctx: ctx, purpose: purpose, res: controller.Resolution{Ready: true}}
}

func (r *resolver) forDelete() bool { return r.purpose == controller.ForDelete }

// set records a reference condition; a False one makes the object not ready.
func (r *resolver) set(c metav1.Condition) {
	r.res.Conditions = append(r.res.Conditions, c)
	if c.Status == metav1.ConditionFalse {
		r.res.Ready = false
		r.problems++
	}
}

// unready records a False reference condition that is not a problem (yet),
// counted in count: r.missings, r.waits or r.reads.
func (r *resolver) unready(count *int, conditionType, reason, message string) {
	r.res.Conditions = append(r.res.Conditions, controller.FalseCondition(conditionType, reason, message))
	r.res.Ready = false
	*count++
}

func (r *resolver) valid(conditionType, message string) {
	r.set(controller.TrueCondition(conditionType, commonv1alpha1.ReasonValid, message))
}

// invalid reports a reference that cannot be used now but may still come
// right by itself (not found, being deleted, failing for a while).
func (r *resolver) invalid(conditionType, reason, format string, args ...any) {
	r.set(controller.FalseCondition(conditionType, reason, fmt.Sprintf(format, args...)))
}

// refuse reports a reference that is refused or invalid as the object
// names it: only a change of the object (or a KongReferenceGrant) fixes it.
func (r *resolver) refuse(conditionType, reason, format string, args ...any) {
	r.invalid(conditionType, reason, format, args...)
	r.refStateAt(controller.RefRefused)
}

// refStateAt records the state of an unusable reference (what it needs),
// keeping the most severe.
func (r *resolver) refStateAt(s controller.RefState) {
	r.refState = max(r.refState, s)
}

// notReady stops Konnect calls without a condition of its own, for
// outcomes already reported by another condition.
func (r *resolver) notReady() {
	r.res.Ready = false
	r.problems++
}

// gone says, when deleting, that the entity went with its parent.
func (r *resolver) gone() {
	r.res.Gone = true
	r.res.Ready = false
}

// missing reports a control plane or parent that does not exist. When
// syncing, an entity the object had in it went with it.
func (r *resolver) missing(conditionType, what string) {
	if r.forDelete() {
		// Konnect deletes a control plane's entities with it, and the
		// operator deletes a parent's children before the parent.
		r.gone()
		return
	}
	r.res.ParentGone = true
	r.unready(&r.missings, conditionType, commonv1alpha1.ReasonInvalid, what+" not found")
}

// otherShard asks whether an object missing from inf's caches exists in
// another shard; nil when it does not. A deletion asks afresh, since it
// takes a parent that is not found for gone with its entities.
func otherShard[T controller.Object](b *resolver, inf *controller.Informer[T], namespace, name string) *controller.OtherShard {
	other, err := inf.Elsewhere(b.ctx, namespace, name, b.forDelete())
	if err != nil && b.err == nil {
		b.err = fmt.Errorf("looking for %s %s/%s in other shards: %w", inf.Resource(), namespace, name, err)
	}
	return other
}

// inOtherShard reports a reference to an object of another shard. When
// syncing, nothing else being wrong, the object waits quietly a while
// (controller.WaitShard): a tree moves between shards one object at a
// time. A deletion must not take the reference for gone: its entity is
// still in Konnect, and the delete waits until both share a shard.
func (r *resolver) inOtherShard(conditionType, what string, other *controller.OtherShard) {
	if r.forDelete() {
		r.invalid(conditionType, commonv1alpha1.ReasonRefInOtherShard, "%s", other.Message(what))
		return
	}
	r.unready(&r.elsewheres, conditionType, commonv1alpha1.ReasonRefInOtherShard, other.Message(what))
}

// absent reports a reference missing from the caches: in another shard,
// or else as notFound says.
func absent[T controller.Object](b *resolver, inf *controller.Informer[T], conditionType, what, namespace, name string, notFound func()) {
	if other := otherShard(b, inf, namespace, name); other != nil {
		b.inOtherShard(conditionType, what, other)
		return
	}
	notFound()
}

// summarize records, as one False condition, what a sub-resolver found not
// ready, counted as it was there: problems, references not found, waits.
func (r *resolver) summarize(conditionType, reason string, sub *resolver) {
	r.res.Conditions = append(r.res.Conditions, controller.FalseCondition(conditionType, reason, falseMessages(sub.res.Conditions)))
	r.res.Ready = false
	r.problems += sub.problems
	r.missings += sub.missings
	r.waits += sub.waits
	r.reads += sub.reads
	r.refStateAt(sub.refState)
	r.elsewheres += sub.elsewheres
	if r.err == nil {
		r.err = sub.err
	}
}

// waitOf says how the resolution so far may still be fine.
func (r *resolver) waitOf() controller.Wait {
	switch {
	case r.res.Ready || r.problems > 0:
		return controller.NoWait
	case r.reads > 0:
		return controller.WaitRead
	case r.elsewheres > 0:
		return controller.WaitShard
	case r.missings > 0:
		return controller.WaitMissing
	case r.waits > 0:
		return controller.WaitProgress
	}
	return controller.NoWait
}

// notProgrammed reports a reference that exists but is not Programmed,
// with the reason it gives, so that the referrer names the root cause
// rather than only the next object on the way to it. A reference that is
// Stalled blocks the referrer too.
func (r *resolver) notProgrammed(conditionType, reason, what string, conditions []metav1.Condition) {
	if controller.NotProgrammedCause(conditions) == "" {
		// On its way to Konnect, with nothing wrong so far.
		r.unready(&r.waits, conditionType, reason, notProgrammedMessage(what, conditions))
		return
	}
	r.invalid(conditionType, reason, "%s", notProgrammedMessage(what, conditions))
	r.refStateAt(controller.RefStateOf(conditions))
}

// notProgrammedMessage says that what is not Programmed and why, as its
// conditions tell.
func notProgrammedMessage(what string, conditions []metav1.Condition) string {
	cause := controller.NotProgrammedCause(conditions)
	if cause == "" {
		return what + " is not Programmed yet"
	}
	return what + " is not Programmed: " + cause
}

// crossNamespace records a reference to another namespace and whether a
// KongReferenceGrant allows it, whatever the purpose: a deletion reaches
// the same token as a sync.
func (r *resolver) crossNamespace(what string, permitted bool) bool {
	if permitted {
		r.granted++
		return true
	}
	r.refused = append(r.refused, what)
	return false
}

// done returns the resolution, with ResolvedRefs when any cross-namespace
// reference was seen.
func (r *resolver) done() controller.Resolution {
	switch {
	case len(r.refused) > 0:
		r.refStateAt(controller.RefRefused)
		sort.Strings(r.refused)
		r.set(controller.FalseCondition(commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonRefNotPermitted,
			"no KongReferenceGrant allows the reference to "+strings.Join(r.refused, ", ")))
	case r.granted > 0:
		r.set(controller.TrueCondition(commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonResolvedRefs, ""))
	}
	r.res.Waiting = r.waitOf()
	r.res.RefState = r.refState
	return r.res
}

// result is done's resolution, and the failure that ends it, if any.
func (r *resolver) result() (controller.Resolution, error) {
	res := r.done()
	return res, r.err
}

// placeIn records the control plane's ID in the entity's status. When the
// entity was created in another control plane (the control plane was
// recreated), its recorded ID means nothing there: it is cleared so that the
// entity is created again, or, when deleting, reported gone with the old
// control plane.
func (r *resolver) placeIn(status *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef, controlPlaneID string) {
	r.movedFrom(status, status.ControlPlaneID, controlPlaneID)
	status.ControlPlaneID = controlPlaneID
	r.res.Placement.ControlPlaneID = controlPlaneID
}

// movedFrom clears the entity's recorded ID when it was created in another
// container (control plane or parent entity) than the current one, whose
// Konnect IDs were recorded and current: the recorded ID means nothing
// there. When deleting, such an entity went with the old container.
func (r *resolver) movedFrom(status *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef, recorded, current string) {
	if recorded == "" || recorded == current {
		return
	}
	if r.forDelete() && status.ID != "" {
		r.gone()
	}
	status.ID = ""
}
