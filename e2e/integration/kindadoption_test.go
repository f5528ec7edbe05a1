package integration

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// The adoption modes every kind of the harness (kindcase_test.go) goes
// through.

func adoptOptions(id string, mode commonv1alpha1.AdoptMode) *commonv1alpha1.AdoptOptions {
	return &commonv1alpha1.AdoptOptions{From: commonv1alpha1.AdoptSourceKonnect, Mode: mode, Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: id}}
}

// testAdoption: override takes an existing entity over and writes the spec
// (kinds with tags: it then carries the object's UID), match takes an equal
// entity without writing it, then or in the next period, and match refuses
// one that differs, naming the field. An entity tagged with another
// object's UID is not taken (kinds whose entities the harness can tag in
// the simulator's store), nor is an ID Konnect does not know.
func (k kindCase[T]) testAdoption(t *testing.T, e *env, cpID string) {
	adopted := func(name, id string, mode commonv1alpha1.AdoptMode) T {
		obj := k.object(e, name)
		k.adopt(obj, adoptOptions(id, mode))
		k.create(e, obj)
		return obj
	}
	// refused waits until the adoption of name is refused for reason, with
	// a message that mentions what it must.
	refused := func(name, reason, mentions string) {
		obj := k.condition(e, name, commonv1alpha1.ConditionAdopted, metav1.ConditionFalse, reason)
		if msg := conditionMessage(obj, commonv1alpha1.ConditionAdopted); !strings.Contains(msg, mentions) {
			e.t.Fatalf("Adopted says %q; want it to mention %q", msg, mentions)
		}
		k.condition(e, name, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonFailedToAdopt)
	}
	if !k.untagged {
		t.Run("override", func(t *testing.T) {
			defer e.use(t)()
			name := k.objName(e, "override")
			id := k.seed(e, cpID, name, false)
			adopted(name, id, commonv1alpha1.AdoptModeOverride)
			obj := k.programmed(e, name)
			if got := obj.KonnectStatus(false).GetKonnectID(); got != id {
				t.Fatalf("adopted ID %q, want %q", got, id)
			}
			if err := conditionIs(obj, commonv1alpha1.ConditionAdopted, metav1.ConditionTrue, commonv1alpha1.ReasonAdopted); err != nil {
				t.Fatal(err)
			}
			ent, err := k.entity(e, cpID, obj)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(tagsOf(ent), "k8s-uid:"+string(obj.GetUID())) {
				t.Fatalf("override did not write the spec: %v", ent)
			}
			if k.overridden != nil {
				e.eventually("override wrote the spec", func() error { return k.overridden(e, cpID, obj) })
			}
		})
	}
	t.Run("match", func(t *testing.T) {
		defer e.use(t)()
		name := k.objName(e, "match")
		id := k.seed(e, cpID, name, true)
		writes := e.calls("PUT", k.path) + e.calls("POST", k.path)
		adopted(name, id, commonv1alpha1.AdoptModeMatch)
		obj := k.programmed(e, name)
		if got := obj.KonnectStatus(false).GetKonnectID(); got != id {
			t.Fatalf("adopted ID %q, want %q", got, id)
		}
		if err := conditionIs(obj, commonv1alpha1.ConditionAdopted, metav1.ConditionTrue, commonv1alpha1.ReasonAdopted); err != nil {
			t.Fatal(err)
		}
		if got := e.calls("PUT", k.path) + e.calls("POST", k.path); got != writes {
			t.Fatalf("match mode wrote to Konnect (%d writes)", got-writes)
		}
		// Nor does the next sync period, whose listing finds the adopted
		// entity without the operator's tags and compares it with the spec.
		e.step(time.Hour)
		if got := e.calls("PUT", k.path) + e.calls("POST", k.path) + e.calls("PATCH", k.path); got != writes {
			t.Fatalf("the period after a match wrote to Konnect (%d writes)", got-writes)
		}
	})
	t.Run("match refuses an entity that differs", func(t *testing.T) {
		defer e.use(t)()
		name := k.objName(e, "differs")
		id := k.seed(e, cpID, name, false)
		adopted(name, id, commonv1alpha1.AdoptModeMatch)
		refused(name, commonv1alpha1.ReasonNotMatch, k.differs)
	})
	if !k.untagged && k.lookup == nil {
		t.Run("an entity owned by another object is not taken", func(t *testing.T) {
			defer e.use(t)()
			name := k.objName(e, "owned")
			id := k.seed(e, cpID, name, true)
			ent, ok := e.entity(cpID, k.collection, id)
			if !ok {
				t.Fatalf("the seeded %s %s is not in Konnect", k.collection, id)
			}
			ent["tags"] = []any{"k8s-uid:someone-else"}
			e.reput(cpID, k.collection, ent)
			adopted(name, id, commonv1alpha1.AdoptModeOverride)
			refused(name, commonv1alpha1.ReasonUIDConflict, "someone-else")
		})
	}
	t.Run("a missing entity cannot be fetched", func(t *testing.T) {
		defer e.use(t)()
		name := k.objName(e, "missing")
		missing := newUUID()
		adopted(name, missing, commonv1alpha1.AdoptModeMatch)
		refused(name, commonv1alpha1.ReasonFetchFailed, missing)
	})
}
