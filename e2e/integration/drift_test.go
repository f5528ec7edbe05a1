package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

const (
	serviceUpserts = "core-entities/services/{ServiceId}"
	serviceLists   = "core-entities/services"
)

// driftCorrections is the drift counter of one kind.
func (e *env) driftCorrections(kind string) float64 {
	return e.metricValue(metrics.MetricDriftCorrections, map[string]string{"kind": kind})
}

// listCalls counts the GETs of a whole collection (not of one entity).
func (e *env) listCalls(collectionPath string) int {
	return e.sim.CallCount("GET", "/v2/control-planes/{controlPlaneId}/"+collectionPath)
}

// TestDriftIsOverwrittenWithinOneSyncPeriod: in both modes, a service
// changed in Konnect and one deleted there are brought back within one sync
// period. In list mode only those two are written, the drift is counted and
// reported by an Event naming the field (not its value), and an idle period
// costs a list and no write; in update mode every service is written again
// every period, as the seed algorithm does.
func TestDriftIsOverwrittenWithinOneSyncPeriod(t *testing.T) {
	t.Parallel()
	for _, mode := range controller.DriftModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			const period = time.Hour
			e := newEnv(t, envOptions{syncPeriod: period, driftDetection: mode})
			cpID := e.ready()
			for _, name := range []string{"changed", "deleted", "untouched"} {
				e.createService(name)
			}
			ids := map[string]string{}
			for _, name := range []string{"changed", "deleted", "untouched"} {
				ids[name] = e.programmedService(name).Status.Konnect.ID
			}
			e.settle()

			const outside = "changed-outside.example.com"
			ent := e.serviceEntity(cpID, ids["changed"])
			ent["host"] = outside
			if err := e.sim.PutEntity(e.orgID, cpID, "services", ent); err != nil {
				t.Fatal(err)
			}
			if err := e.sim.DeleteEntity(e.orgID, cpID, "services", ids["deleted"]); err != nil {
				t.Fatal(err)
			}
			// The changes really happened in Konnect before anything is
			// expected of the operator.
			if h := e.serviceEntity(cpID, ids["changed"])["host"]; h != outside {
				t.Fatalf("the simulator holds host %v after the change, want %s", h, outside)
			}
			if _, ok := e.entity(cpID, "services", ids["deleted"]); ok {
				t.Fatal("the simulator still holds the deleted service")
			}
			upsertsBefore := e.calls("PUT", serviceUpserts)

			// Within one sync period: the clock moves one period on, no more.
			e.step(period)
			e.eventually("both drifts overwritten", func() error {
				if h := e.serviceEntity(cpID, ids["changed"])["host"]; h != "changed.example.com" {
					return fmt.Errorf("host = %v", h)
				}
				if _, ok := e.entity(cpID, "services", ids["deleted"]); !ok {
					return fmt.Errorf("the deleted service is not back under its ID")
				}
				return nil
			})

			if mode == controller.DriftUpdate {
				// Every service, drifted or not, is written each period.
				e.eventually("the untouched service written again", func() error {
					if n := e.calls("PUT", serviceUpserts) - upsertsBefore; n < 3 {
						return fmt.Errorf("%d upserts since the drift, want every service's", n)
					}
					return nil
				})
				return
			}

			if got := e.calls("PUT", serviceUpserts) - upsertsBefore; got != 2 {
				t.Errorf("%d service upserts after the drift, want 2 (only what drifted)", got)
			}
			e.eventually("two corrections counted", func() error {
				if got := e.driftCorrections("KongService"); got != 2 {
					return fmt.Errorf("%s{kind=KongService} = %v, want 2", metrics.MetricDriftCorrections, got)
				}
				return nil
			})
			changed := e.eventuallyEvent("KongService", "changed", corev1.EventTypeWarning, controller.EventDriftCorrected)
			if !strings.Contains(changed.Message, "host") || strings.Contains(changed.Message, outside) {
				t.Errorf("the drift Event should name the field host and never its value: %q", changed.Message)
			}
			deleted := e.eventuallyEvent("KongService", "deleted", corev1.EventTypeWarning, controller.EventDriftCorrected)
			if !strings.Contains(deleted.Message, "missing") {
				t.Errorf("the drift Event of the deleted service should say it was missing: %q", deleted.Message)
			}

			// Idle: two more periods list and write nothing.
			upserts, lists := e.calls("PUT", serviceUpserts), e.listCalls(serviceLists)
			e.step(period)
			e.step(period)
			if got := e.calls("PUT", serviceUpserts) - upserts; got != 0 {
				t.Errorf("%d service upserts in two idle periods, want 0", got)
			}
			if got := e.listCalls(serviceLists) - lists; got != 2 {
				t.Errorf("%d service lists in two idle periods, want one per period", got)
			}
		})
	}
}

// TestRestartComparesWithoutWriting: after a restart in list mode, the
// first listing compares each entity with its spec instead of writing it:
// the control plane, unchanged services and a basic-auth credential (whose password Konnect
// keeps hashed) are not written, and a service changed while the operator
// was down is overwritten and reported.
func TestRestartComparesWithoutWriting(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period})
	cpID := e.ready()
	for _, name := range []string{"kept", "changed"} {
		e.createService(name)
	}
	ids := map[string]string{"kept": e.programmedService("kept").Status.Konnect.ID, "changed": e.programmedService("changed").Status.Konnect.ID}
	e.createConsumer("alice")
	e.programmedConsumer("alice")
	basicAuth := credentialCases()[0]
	basicAuth.create(e, "alice-basic", "alice", "alice-user", nil)
	e.programmedCredential(basicAuth, "alice-basic")

	e.stopOperator()
	ent := e.serviceEntity(cpID, ids["changed"])
	ent["host"] = "changed-while-down.example.com"
	if err := e.sim.PutEntity(e.orgID, cpID, "services", ent); err != nil {
		t.Fatal(err)
	}
	if h := e.serviceEntity(cpID, ids["changed"])["host"]; h != "changed-while-down.example.com" {
		t.Fatalf("the simulator holds host %v after the change", h)
	}
	e.sim.ResetCalls()
	e.startOperator()

	// The first listing after the restart comes within a period.
	e.step(period)
	e.eventually("the change made while down overwritten", func() error {
		if h := e.serviceEntity(cpID, ids["changed"])["host"]; h != "changed.example.com" {
			return fmt.Errorf("host = %v", h)
		}
		return nil
	})
	e.eventuallyEvent("KongService", "changed", corev1.EventTypeWarning, controller.EventDriftCorrected)
	// Two more periods: everything was listed, nothing else written.
	e.step(period)
	e.step(period)
	if got := e.calls("PUT", serviceUpserts); got != 1 {
		t.Errorf("%d service upserts after the restart, want 1 (the changed one only)", got)
	}
	if got := e.calls("PUT", "basic-auth/{BasicAuthId}"); got != 0 {
		t.Errorf("%d basic-auth upserts after the restart, want 0: its hashed password equals the spec's", got)
	}
	if got := e.calls("PUT", "core-entities/consumers/{ConsumerId}"); got != 0 {
		t.Errorf("%d consumer upserts after the restart, want 0", got)
	}
	if got := e.controlPlaneWrites(); got != 0 {
		t.Errorf("%d control-plane writes after the restart, want 0: it equals its spec", got)
	}
	if e.listCalls(serviceLists) == 0 || e.listCalls("core-entities/basic-auths") == 0 {
		t.Errorf("the services and basic-auths were not listed: %v", e.sim.Calls())
	}
}
