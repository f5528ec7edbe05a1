package operator_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// existingService puts a service into Konnect behind the operator's back and
// returns its ID.
func (e *env) existingService(cpID, name, host string, tags ...string) string {
	e.t.Helper()
	id := fmt.Sprintf("0000aaaa-0000-4000-8000-%012d", len(e.entities(cpID, "services"))+1)
	ent := map[string]any{"id": id, "name": name, "host": host, "port": 80, "protocol": "http"}
	if len(tags) > 0 {
		ent["tags"] = tags
	}
	if err := e.sim.PutEntity(e.orgID, cpID, "services", ent); err != nil {
		e.t.Fatal(err)
	}
	return id
}

func adopt(id string, mode commonv1alpha1.AdoptMode) func(*configurationv1alpha1.KongService) {
	return func(s *configurationv1alpha1.KongService) {
		s.Spec.Adopt = &commonv1alpha1.AdoptOptions{From: commonv1alpha1.AdoptSourceKonnect, Mode: mode, Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: id}}
	}
}

func TestAdoptExistingService(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()

	t.Run("override takes the entity over and writes the spec", func(t *testing.T) {
		e := e.with(t)
		id := e.existingService(cpID, "legacy", "old.example.com")
		e.createService("legacy", adopt(id, commonv1alpha1.AdoptModeOverride))
		svc := e.programmedService("legacy")
		if svc.Status.Konnect.ID != id {
			t.Fatalf("adopted ID %q, want %q", svc.Status.Konnect.ID, id)
		}
		if err := conditionIs(svc, commonv1alpha1.ConditionAdopted, metav1.ConditionTrue, commonv1alpha1.ReasonAdopted); err != nil {
			t.Fatal(err)
		}
		ent := e.serviceEntity(cpID, id)
		if ent["host"] != "legacy.example.com" || !slices.Contains(tagsOf(ent), "k8s-uid:"+string(svc.UID)) {
			t.Fatalf("override did not write the spec: %v", ent)
		}
	})

	t.Run("match adopts an equal entity without writing it", func(t *testing.T) {
		e := e.with(t)
		id := e.existingService(cpID, "same", "same.example.com")
		puts := e.calls("PUT", "core-entities/services/")
		e.createService("same", adopt(id, commonv1alpha1.AdoptModeMatch))
		svc := e.programmedService("same")
		if svc.Status.Konnect.ID != id {
			t.Fatalf("adopted ID %q, want %q", svc.Status.Konnect.ID, id)
		}
		if got := e.calls("PUT", "core-entities/services/"); got != puts {
			t.Fatalf("match mode wrote the entity (%d PUTs)", got-puts)
		}
	})

	t.Run("match refuses an entity that differs and names the fields", func(t *testing.T) {
		e := e.with(t)
		id := e.existingService(cpID, "differs", "elsewhere.example.com")
		e.createService("differs", adopt(id, commonv1alpha1.AdoptModeMatch))
		e.eventually("mismatch reported", func() error {
			svc := e.service("differs")
			if err := conditionIs(svc, commonv1alpha1.ConditionAdopted, metav1.ConditionFalse, commonv1alpha1.ReasonNotMatch); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(svc.Status.Conditions, commonv1alpha1.ConditionAdopted); !strings.Contains(c.Message, "host") {
				return fmt.Errorf("message %q does not name the differing field", c.Message)
			}
			return conditionIs(svc, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonFailedToAdopt)
		})
		if h := e.serviceEntity(cpID, id)["host"]; h != "elsewhere.example.com" {
			t.Fatalf("match mode changed the entity: host %v", h)
		}
	})

	t.Run("an entity owned by another object is not taken", func(t *testing.T) {
		e := e.with(t)
		id := e.existingService(cpID, "owned", "owned.example.com", "k8s-uid:someone-else")
		e.createService("owned", adopt(id, commonv1alpha1.AdoptModeOverride))
		e.eventually("UID conflict reported", func() error {
			return conditionIs(e.service("owned"), commonv1alpha1.ConditionAdopted, metav1.ConditionFalse, commonv1alpha1.ReasonUIDConflict)
		})
	})

	t.Run("a missing entity cannot be fetched", func(t *testing.T) {
		e := e.with(t)
		e.createService("nowhere", adopt("0000bbbb-0000-4000-8000-000000000001", commonv1alpha1.AdoptModeOverride))
		e.eventually("fetch failure reported", func() error {
			return conditionIs(e.service("nowhere"), commonv1alpha1.ConditionAdopted, metav1.ConditionFalse, commonv1alpha1.ReasonFetchFailed)
		})
	})
}
