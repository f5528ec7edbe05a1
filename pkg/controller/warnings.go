package controller

import (
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// DefaultReferenceGracePeriod is how long a reference problem must last,
// unchanged, before a Warning Event reports it. On a first apply objects
// wait a second or so for the objects they refer to: that wait shows in
// their conditions at once, but is not worth a Warning.
const DefaultReferenceGracePeriod = 10 * time.Second

// EventDeletedWithParent says that an object's Konnect entity is gone
// because its control plane or parent went: Konnect deletes a control
// plane's entities with it, and the operator deletes a parent's children
// before the parent.
const EventDeletedWithParent = "DeletedWithParent"

// warningRecord is what is remembered of the Warning Events about one
// object.
type warningRecord struct {
	uid types.UID
	// reported is the cause (reason and message) of the last Warning.
	reported string
	// pending is a reference problem not reported yet, seen first at
	// pendingSince.
	pending      string
	pendingSince time.Time
	// programmedGeneration is the generation last written to Konnect (0:
	// none in this process).
	programmedGeneration int64
	// goneReported is the entity ID whose going with its parent was
	// reported.
	goneReported string
}

// warnings decides which Warning Events to record: one per cause, so that
// a failure retried again and again, or a reference that stays broken,
// leaves one Event rather than one per reconcile. It lives in memory; after
// a restart a lasting cause is reported once more.
type warnings struct {
	mu      sync.Mutex
	records map[cache.ObjectName]warningRecord
}

func newWarnings() *warnings {
	return &warnings{records: map[cache.ObjectName]warningRecord{}}
}

// update runs change on the record of the object, a fresh one when the
// object is new (or was recreated under the same name).
func (w *warnings) update(key cache.ObjectName, uid types.UID, change func(*warningRecord)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rec := w.records[key]
	if rec.uid != uid {
		rec = warningRecord{uid: uid}
	}
	change(&rec)
	w.records[key] = rec
}

// failure reports whether a failure with this cause deserves a Warning: it
// does unless the last Warning said the same.
func (w *warnings) failure(key cache.ObjectName, uid types.UID, cause string) bool {
	report := false
	w.update(key, uid, func(rec *warningRecord) {
		rec.pending = ""
		if rec.reported != cause {
			rec.reported, report = cause, true
		}
	})
	return report
}

// referenceProblem reports whether a reference problem with this cause
// deserves a Warning now, and otherwise how long until it would (zero
// when it never will, as it was reported already).
func (w *warnings) referenceProblem(key cache.ObjectName, uid types.UID, cause string, now time.Time, grace time.Duration) (report bool, wait time.Duration) {
	w.update(key, uid, func(rec *warningRecord) {
		if rec.reported == cause {
			return
		}
		if rec.pending != cause {
			rec.pending, rec.pendingSince = cause, now
		}
		if elapsed := now.Sub(rec.pendingSince); elapsed < grace {
			wait = grace - elapsed
			return
		}
		rec.reported, rec.pending, report = cause, "", true
	})
	return report, wait
}

// programmed records a successful write of the given generation: the
// causes reported so far are over, and reported again if they come back.
func (w *warnings) programmed(key cache.ObjectName, uid types.UID, generation int64) {
	w.update(key, uid, func(rec *warningRecord) {
		*rec = warningRecord{uid: uid, programmedGeneration: generation}
	})
}

// wasProgrammedAt reports whether this process last wrote the object to
// Konnect at the given generation; known is false when it never did.
func (w *warnings) wasProgrammedAt(key cache.ObjectName, uid types.UID, generation int64) (at, known bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rec, ok := w.records[key]
	if !ok || rec.uid != uid || rec.programmedGeneration == 0 {
		return false, false
	}
	return rec.programmedGeneration == generation, true
}

// goneWithParent reports whether the entity with this ID going with its
// parent is news.
func (w *warnings) goneWithParent(key cache.ObjectName, uid types.UID, id string) bool {
	report := false
	w.update(key, uid, func(rec *warningRecord) {
		if rec.goneReported != id {
			rec.goneReported, report = id, true
		}
	})
	return report
}

// forget drops what is remembered of an object that no longer exists.
func (w *warnings) forget(key cache.ObjectName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.records, key)
}

// warnFailure records a Warning Event for a failure, unless the last
// Warning about the object said the same.
func (r *EntityReconciler[T, D]) warnFailure(obj T, reason, message string) {
	if r.warnings.failure(cache.MetaObjectToName(obj), obj.GetUID(), reason+"\x00"+message) {
		r.recorder.Event(obj, corev1.EventTypeWarning, reason, message)
	}
}

// warnReferences records a Warning Event for references that are not
// usable once the same problem has lasted the grace period, and returns how
// long to wait before looking again (zero: no need to).
func (r *EntityReconciler[T, D]) warnReferences(obj T, message string) time.Duration {
	report, wait := r.warnings.referenceProblem(cache.MetaObjectToName(obj), obj.GetUID(), message, r.clock.Now(), r.referenceGrace)
	if report {
		r.recorder.Event(obj, corev1.EventTypeWarning, EventReferenceFailed, message)
	}
	return wait
}

// reportGoneWithParent says, once, that the entity recorded in cached went
// from Konnect with its control plane or parent. Only when the object's
// spec is the one last written to Konnect: a reference changed to name
// another, missing object says nothing about where the entity is.
func (r *EntityReconciler[T, D]) reportGoneWithParent(cached T, message string) {
	id := cached.KonnectStatus(false).GetKonnectID()
	if id == "" {
		return
	}
	key := cache.MetaObjectToName(cached)
	at, known := r.warnings.wasProgrammedAt(key, cached.GetUID(), cached.GetGeneration())
	if !at && (known || !IsProgrammed(cached)) {
		return
	}
	if r.warnings.goneWithParent(key, cached.GetUID(), id) {
		r.recorder.Event(cached, corev1.EventTypeWarning, EventDeletedWithParent,
			fmt.Sprintf("Konnect deleted this %s's entity %s with its control plane or parent (%s); it is created again once the reference is back", r.kind.KindName(), id, message))
	}
}
