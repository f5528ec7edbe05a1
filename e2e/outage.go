package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// What the outage tests require, from the simulator's log.
const (
	// convergedAfterReturn bounds the time from Konnect's return (the
	// moment its fault is lifted) to the end of the last write the objects
	// needed.
	convergedAfterReturn = 30 * time.Second
	// mostRequestsPerMinuteWhileDown bounds the requests that reach a
	// failing organisation in any minute of its outage.
	mostRequestsPerMinuteWhileDown = 60
)

// KonnectOutage takes Konnect away for outageLength, answering every
// request with 503 or, with hang, answering none (each hangs until the
// operator's request timeout, 30s by default), while a third of the
// services change, a sixth are deleted and a sixth more are created. Two
// replicas run with the Deployment's flags. Judged by the simulator's log:
// at most 60 requests a minute reach the organisation while it fails;
// every object has converged within 30s of Konnect's return, with exactly one entity per object and none left over; the
// changed objects said that Konnect was unreachable, with at most one
// Warning Event each, and the leader's metrics said the organisation was
// held.
func KonnectOutage(t *testing.T, hang bool) {
	ctx := t.Context()
	name, fault := "503", `{"errorRate": 1, "status": 503}`
	if hang {
		name, fault = "hang", `{"errorRate": 1, "hang": true}`
	}
	n := outageServices
	w := newOutageWorld(ctx, t, suite.cluster, name, n)
	w.start()
	w.start()
	lead, _ := w.leader(ctx, nil)
	w.apply(ctx)
	w.waitConverged(ctx, patience)

	began := time.Now()
	if err := w.sim.do(ctx, http.MethodPut, "/_sim/faults/*", false, jsonBody(fault), nil); err != nil {
		t.Fatal(err)
	}
	changed, deleted, created := outageChanges(w, n)
	w.apply(ctx, deleted...)
	t.Logf("Konnect %s for %s from %s: %d services (and routes) changed, %d deleted, %d created; %d objects declared",
		name, outageLength, began.Format(time.RFC3339), len(changed), len(deleted), len(created), w.objects())

	// What the user sees meanwhile, before Konnect comes back: the changed
	// objects say that Konnect does not answer (their routes, that their
	// service waits for it), and the leader's metrics that it holds the
	// organisation. The outage lasts until they do, if that is longer.
	err := waitFor(ctx, patience, func(ctx context.Context) error {
		if err := w.sayWhy(ctx, changed, commonv1alpha1.ReasonKonnectUnreachable, "has not answered"); err != nil {
			return err
		}
		return heldIn(ctx, lead, konnect.HoldUnreachable)
	})
	if err != nil {
		t.Errorf("during the outage: %v", err)
	}
	time.Sleep(time.Until(began.Add(outageLength)))
	// Konnect is back from the moment its faults are lifted: taken before
	// the request that lifts them, so that nothing is counted short.
	lifted := time.Now()
	if err := w.sim.do(ctx, http.MethodDelete, "/_sim/faults", false, nil, nil); err != nil {
		t.Fatal(err)
	}
	returned := time.Now()
	convergedSeen := w.waitConverged(ctx, patience)

	log, err := w.sim.requestLog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	during := log.between(began, returned)
	failed := during.where(func(r requestEntry) bool { return !r.answered() })
	probes := during.where(func(r requestEntry) bool { return r.Path == "/v2/control-planes" && r.Query == "page%5Bsize%5D=1" })
	back, ok := log.firstAnswered(began)
	if !ok {
		t.Fatal("the simulator's log holds no answer after the outage")
	}
	last, ok := log.between(back.Time, convergedSeen).lastWrite()
	if !ok {
		t.Fatal("the simulator's log holds no write after Konnect came back")
	}
	took := last.ended().Sub(lifted)
	t.Logf("Konnect %s (%s): %d requests reached it while it failed (%d failed, %d of them probes), at most %d in a minute; "+
		"first answer %s after the outage ended (%s %s), the last write needed %s after that answer, %s after the outage ended",
		name, w.answering(), during.count(), failed.count(), probes.count(), during.mostInAMinute(),
		back.ended().Sub(returned).Round(time.Millisecond), back.Method, back.Path,
		last.ended().Sub(back.ended()).Round(time.Millisecond), took.Round(time.Millisecond))
	t.Logf("the requests that reached Konnect while it failed, from the outage's start:%s", during.timeline(began))
	if failed.count() == 0 {
		t.Errorf("no request failed during the outage: the fault was not injected")
	}
	if most := during.mostInAMinute(); most > mostRequestsPerMinuteWhileDown {
		t.Errorf("%d requests reached the failing organisation within a minute, want at most %d", most, mostRequestsPerMinuteWhileDown)
	}
	if took > convergedAfterReturn {
		t.Errorf("the last write needed ended %s after Konnect came back, want at most %s", took.Round(time.Millisecond), convergedAfterReturn)
	}
	w.checkOneEventPerObject(ctx, commonv1alpha1.ReasonKonnectUnreachable)
	w.checkAnsweredLate(log)
	w.checkNoViolations(ctx)
}

// outageChanges changes what the world declares as a user does during an
// outage: the first third of the services change, the next sixth are
// deleted, and a sixth more are created. It returns the indices of each.
func outageChanges(w *outageWorld, n int) (changed, deleted, created []int) {
	for i := range n / 3 {
		w.versions[i] = 2
		changed = append(changed, i)
	}
	for i := n / 3; i < n/3+max(1, n/6); i++ {
		delete(w.versions, i)
		deleted = append(deleted, i)
	}
	for i := n; i < n+max(1, n/6); i++ {
		w.versions[i] = 1
		created = append(created, i)
	}
	return changed, deleted, created
}

// sayWhy reports why the services and routes of indices do not all say,
// in a Programmed=False condition, what keeps them: the services for
// reason (or for one of others), and every object in a message that
// says so.
func (w *outageWorld) sayWhy(ctx context.Context, indices []int, reason, says string, others ...string) error {
	for _, i := range indices {
		for _, o := range []struct {
			gvk  schema.GroupVersionKind
			name string
		}{{serviceKind, fmt.Sprintf("svc-%d", i)}, {routeKind, fmt.Sprintf("route-%d", i)}} {
			obj, err := w.c.get(ctx, o.gvk, w.ns, o.name)
			if err != nil {
				return err
			}
			cond := conditionsOf(obj)["Programmed"]
			reasonOK := o.gvk != serviceKind || slices.Contains(append([]string{reason}, others...), cond["reason"])
			if cond["status"] != "False" || !reasonOK || !strings.Contains(cond["message"], says) {
				return fmt.Errorf("%s %s: %s", o.gvk.Kind, o.name, describeCondition(cond))
			}
		}
	}
	return nil
}

// heldIn reports why op's metrics do not say that it holds an
// organisation for reason.
func heldIn(ctx context.Context, op *operatorProcess, reason string) error {
	families, err := op.metrics(ctx)
	if err != nil {
		return err
	}
	if held := sumMetric(families, konnect.MetricHeld, map[string]string{"reason": reason}); held != 1 {
		return fmt.Errorf("%s{reason=%q} = %v", konnect.MetricHeld, reason, held)
	}
	return nil
}

// checkOneEventPerObject fails the test for an object with more than one
// Warning Event of reason.
func (w *outageWorld) checkOneEventPerObject(ctx context.Context, reason string) {
	w.t.Helper()
	events, err := w.c.kube.CoreV1().Events(w.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	perObject := map[string]int32{}
	for _, e := range events.Items {
		if e.Reason == reason {
			perObject[e.InvolvedObject.Kind+" "+e.InvolvedObject.Name] += max(e.Count, 1)
		}
	}
	for object, n := range perObject {
		if n > 1 {
			w.t.Errorf("%s got %d %s Events, want at most one", object, n, reason)
		}
	}
	w.t.Logf("%d objects got a %s Event", len(perObject), reason)
}

// checkNoViolations fails the test for every OpenAPI violation the
// world's simulator saw.
func (w *outageWorld) checkNoViolations(ctx context.Context) {
	w.t.Helper()
	violations, err := w.sim.violations(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, v := range violations {
		w.t.Error(v)
	}
}
