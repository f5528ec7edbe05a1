package integration

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// The tests in this file walk the branches of the reconciliation algorithm
// with KongService as the example kind; the lifecycle every kind shares
// (create, change, drift overwritten within one sync period, delete, and
// adoption) is walked for each kind by the harness of kindcase_test.go.

func (e *env) programmedService(name string) *configurationv1alpha1.KongService {
	e.t.Helper()
	var svc *configurationv1alpha1.KongService
	e.eventually("KongService "+name+" Programmed", func() error {
		svc = e.service(name)
		return programmed(svc)
	})
	return svc
}

func (e *env) serviceEntity(cpID, id string) map[string]any {
	e.t.Helper()
	ent, ok := e.entity(cpID, "services", id)
	if !ok {
		e.t.Fatalf("service %s is not in Konnect", id)
	}
	return ent
}

func TestCreatedEntityCarriesItsIdentity(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createService("svc", func(s *configurationv1alpha1.KongService) {
		s.Spec.Tags = []string{"team:payments"}
		s.Annotations = map[string]string{commonv1alpha1.AnnotationTags: "env:prod"}
	})
	svc := e.programmedService("svc")

	st := svc.Status.Konnect
	if st.ID == "" || st.ControlPlaneID != cpID || st.OrgID != e.orgID || st.ServerURL != e.sim.URL {
		t.Fatalf("status.konnect = %+v, want an ID, control plane %s, organisation %s, server %s", st, cpID, e.orgID, e.sim.URL)
	}
	if !slices.Contains(svc.Finalizers, commonv1alpha1.FinalizerKonnectCleanup) {
		t.Fatalf("finalizers = %v, want %s", svc.Finalizers, commonv1alpha1.FinalizerKonnectCleanup)
	}
	for _, ct := range []string{commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ConditionAPIAuthValid} {
		if err := conditionIs(svc, ct, metav1.ConditionTrue, ""); err != nil {
			t.Error(err)
		}
	}
	ent := e.serviceEntity(cpID, st.ID)
	tags := tagsOf(ent)
	for _, want := range []string{
		"k8s-uid:" + string(svc.UID), "k8s-name:svc", "k8s-namespace:" + e.ns, "k8s-kind:KongService",
		"k8s-group:configuration.konghq.com", "k8s-version:v1alpha1", "k8s-generation:1", "team:payments", "env:prod",
	} {
		if !slices.Contains(tags, want) {
			t.Errorf("Konnect tags %v lack %q", tags, want)
		}
	}
	if ent["host"] != "svc.example.com" || ent["name"] != "svc" {
		t.Errorf("Konnect service = %v", ent)
	}
	e.eventuallyEvent("KongService", "svc", corev1.EventTypeNormal, "Created")
	if n := len(e.entities(cpID, "services")); n != 1 {
		t.Fatalf("Konnect holds %d services, want 1", n)
	}
}

func TestReferenceInvalidThenFixed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.createAuthConfig("auth")
	e.createService("svc")
	e.eventually("service reports the missing control plane", func() error {
		svc := e.service("svc")
		if err := conditionIs(svc, commonv1alpha1.ConditionControlPlaneRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(svc.Status.Conditions, commonv1alpha1.ConditionControlPlaneRefValid); !strings.Contains(c.Message, e.ns+"/cp not found") {
			return fmt.Errorf("message %q does not name the missing control plane", c.Message)
		}
		return conditionIs(svc, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonWaitingForReferences)
	})
	e.eventuallyEvent("KongService", "svc", corev1.EventTypeWarning, "ReferencesNotReady")
	if n := e.calls("", "core-entities/services"); n != 0 {
		t.Fatalf("%d calls to Konnect's services while the reference was broken", n)
	}
	if svc := e.service("svc"); slices.Contains(svc.Finalizers, commonv1alpha1.FinalizerKonnectCleanup) {
		t.Fatal("the cleanup finalizer was added although nothing was created")
	}

	e.createControlPlane("cp", "auth")
	svc := e.programmedService("svc")
	if err := conditionIs(svc, commonv1alpha1.ConditionControlPlaneRefValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid); err != nil {
		t.Fatal(err)
	}
}

func TestKonnectRefusesCreateThenSpecFixed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Path = "no-leading-slash" })
	e.eventually("Konnect's refusal reported", func() error {
		svc := e.service("svc")
		if err := conditionIs(svc, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonFailedToCreate); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(svc.Status.Conditions, commonv1alpha1.ConditionProgrammed); !strings.Contains(c.Message, "path") {
			return fmt.Errorf("message %q does not carry Konnect's field message", c.Message)
		}
		return nil
	})
	e.eventuallyEvent("KongService", "svc", corev1.EventTypeWarning, commonv1alpha1.ReasonFailedToCreate)
	// A 400 needs a spec change: no retries in a hot loop.
	attempts := e.calls("POST", "core-entities/services")
	e.stays("no retry of the refused create", func() error {
		if again := e.calls("POST", "core-entities/services") - attempts; again > 0 {
			return fmt.Errorf("the refused create was retried %d times without a spec change", again)
		}
		return nil
	})
	_ = e.sim.TakeViolations() // the refused body breaks the document's pattern on purpose

	e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Path = "/fixed" })
	svc := e.programmedService("svc")
	if ent := e.serviceEntity(cpID, svc.Status.Konnect.ID); ent["path"] != "/fixed" {
		t.Fatalf("Konnect service path = %v", ent["path"])
	}
}

func TestChangesReachKonnectAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{}) // a sync period of an hour: only changes write
	cpID := e.ready()
	e.createService("svc")
	id := e.programmedService("svc").Status.Konnect.ID

	puts := func() int { return e.calls("PUT", "core-entities/services/") }
	steps := []struct {
		name   string
		change func(*configurationv1alpha1.KongService)
		check  func(ent map[string]any) error
	}{
		{
			name:   "spec",
			change: func(s *configurationv1alpha1.KongService) { s.Spec.Host = "changed.example.com" },
			check: func(ent map[string]any) error {
				if ent["host"] != "changed.example.com" {
					return fmt.Errorf("host = %v", ent["host"])
				}
				return nil
			},
		},
		{
			name:   "labels",
			change: func(s *configurationv1alpha1.KongService) { s.Labels = map[string]string{"team": "a"} },
		},
		{
			name: "annotations",
			change: func(s *configurationv1alpha1.KongService) {
				s.Annotations = map[string]string{commonv1alpha1.AnnotationTags: "release:blue"}
			},
			check: func(ent map[string]any) error {
				if !slices.Contains(tagsOf(ent), "release:blue") {
					return fmt.Errorf("tags = %v", tagsOf(ent))
				}
				return nil
			},
		},
	}
	for _, step := range steps {
		before := puts()
		e.updateService("svc", step.change)
		e.eventually(step.name+" change written to Konnect", func() error {
			if puts() == before {
				return fmt.Errorf("no update call yet")
			}
			if step.check != nil {
				return step.check(e.serviceEntity(cpID, id))
			}
			return nil
		})
	}
	e.eventuallyEvent("KongService", "svc", corev1.EventTypeNormal, "Updated")
	if n := e.calls("POST", "core-entities/services"); n != 1 {
		t.Fatalf("%d creates, want 1", n)
	}
}

func TestNoChangeWithinThePeriodMakesNoKonnectCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.ready()
	e.createService("svc")
	e.programmedService("svc")
	reconciles := func() float64 {
		return e.metricValue("konnect_operator_reconcile_total", map[string]string{"kind": "KongService"})
	}
	// The reconciles that follow a create (after the finalizer update, or a
	// retry after a stale read) must be over before counting.
	e.settle()
	before := reconciles()
	svc := e.service("svc")
	e.sim.ResetCalls()

	// A status-only update of the service itself triggers nothing; a change
	// of its control plane reconciles it, and that reconcile must find
	// nothing to do.
	svc.Status.Conditions = append(svc.Status.Conditions, metav1.Condition{
		Type: "Unrelated", Status: metav1.ConditionTrue, Reason: "Test", LastTransitionTime: metav1.Now(),
	})
	if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).UpdateStatus(e.ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.stays("no reconcile for a status-only update", func() error {
		if got := reconciles(); got != before {
			return fmt.Errorf("a status-only update caused %v reconciles", got-before)
		}
		return nil
	})

	cp := e.controlPlane("cp")
	cp.Labels = map[string]string{"touched": "yes"}
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Update(e.ctx, cp, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("the service is reconciled again", func() error {
		if reconciles() == before {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	resourceVersion := e.service("svc").ResourceVersion
	e.stays("no call to Konnect's services and no status write", func() error {
		if n := e.callsBesidesListings("", "core-entities/services"); n != 0 {
			return fmt.Errorf("%d calls: %v", n, e.sim.Calls())
		}
		if rv := e.service("svc").ResourceVersion; rv != resourceVersion {
			return fmt.Errorf("the service was written (resourceVersion %s -> %s)", resourceVersion, rv)
		}
		return nil
	})
}

func TestUpdateFailsThenRecovers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createService("svc")
	id := e.programmedService("svc").Status.Konnect.ID

	e.sim.Faults().Set("upsert-service", konnectsim.Fault{ErrorRate: 1, Status: 503})
	e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Host = "new.example.com" })
	e.eventually("update failure reported", func() error {
		return conditionIs(e.service("svc"), commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonFailedToUpdate)
	})
	e.eventuallyEvent("KongService", "svc", corev1.EventTypeWarning, commonv1alpha1.ReasonFailedToUpdate)
	if svc := e.service("svc"); svc.Status.Konnect.ID != id {
		t.Fatalf("a failed update lost the ID: %q", svc.Status.Konnect.ID)
	}

	e.sim.Faults().Remove("upsert-service")
	e.programmedService("svc")
	if h := e.serviceEntity(cpID, id)["host"]; h != "new.example.com" {
		t.Fatalf("host = %v after recovery", h)
	}
}

func TestDeleteFailsIsRetriedUntilItSucceeds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createService("svc")
	e.programmedService("svc")

	e.sim.Faults().Set("delete-service", konnectsim.Fault{ErrorRate: 1, Status: 500})
	if err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(e.ctx, "svc", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("delete failure reported", func() error {
		return conditionIs(e.service("svc"), commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonKonnectAPIOpFailed)
	})
	e.eventuallyEvent("KongService", "svc", corev1.EventTypeWarning, commonv1alpha1.ReasonKonnectAPIOpFailed)
	if n := len(e.entities(cpID, "services")); n != 1 {
		t.Fatalf("%d services in Konnect while deletes fail, want 1", n)
	}

	e.sim.Faults().Remove("delete-service")
	e.eventually("deleted once Konnect accepts", func() error {
		if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, "svc", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still in the cluster")
		}
		if n := len(e.entities(cpID, "services")); n != 0 {
			return fmt.Errorf("%d services left in Konnect", n)
		}
		return nil
	})
}

func TestRateLimitStormConvergesWithoutFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	const storm = 40
	e.sim.Faults().Force429(storm, time.Second)
	const n = 15
	for i := range n {
		e.createService(fmt.Sprintf("svc-%02d", i))
		e.createConsumer(fmt.Sprintf("consumer-%02d", i))
	}
	for i := range n {
		e.programmedService(fmt.Sprintf("svc-%02d", i))
		name := fmt.Sprintf("consumer-%02d", i)
		e.eventually("consumer Programmed", func() error { return programmed(e.consumer(name)) })
	}
	if got := len(e.entities(cpID, "services")); got != n {
		t.Fatalf("%d services in Konnect, want %d", got, n)
	}
	if got := len(e.entities(cpID, "consumers")); got != n {
		t.Fatalf("%d consumers in Konnect, want %d", got, n)
	}
	if got := e.calls("", ""); got == 0 {
		t.Fatal("no calls recorded")
	}
	list, err := e.kube.CoreV1().Events(e.ns).List(e.ctx, metav1.ListOptions{FieldSelector: "type=Warning"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range list.Items {
		if ev.InvolvedObject.Kind == "KongService" || ev.InvolvedObject.Kind == "KongConsumer" {
			t.Errorf("a 429 was reported as a failure: %s %s: %s", ev.InvolvedObject.Name, ev.Reason, ev.Message)
		}
	}
	// The client's side of the storm: what it knew when it sent each call
	// (the simulator's arrival times would also count how busy the machine
	// was).
	if got := served429s(e.sim.Requests()); got != storm {
		t.Fatalf("the simulator served %d 429s, want the %d forced", got, storm)
	}
	calls := e.konnectCalls.all()
	asked, ignored := retryAfterIgnored(calls)
	if asked != storm {
		t.Fatalf("the operator's client saw %d 429s that asked for a wait, want the %d forced", asked, storm)
	}
	// The objects queued behind a refused one were not sent during the
	// pause, nor did their workers wait it out: their calls returned at once
	// with a later turn.
	if !slices.ContainsFunc(calls, func(c konnectCall) bool { return c.deferred }) {
		t.Error("no call was deferred to a later turn during the holds")
	}
	for _, pair := range ignored {
		limited, early := pair[0], pair[1]
		t.Errorf("%s %s began after the 429 to %s %s (Retry-After %s) and ended %s after that 429 began",
			early.method, early.path, limited.method, limited.path, limited.retryAfter, early.ended.Sub(limited.began))
	}
}

// served429s counts the 429s in a request log.
func served429s(log []konnectsim.RequestRecord) int {
	served := 0
	for _, r := range log {
		if r.Status == http.StatusTooManyRequests {
			served++
		}
	}
	return served
}

func TestLostStatusIsAdoptedByUIDNotDuplicated(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createService("svc")
	// A global plugin has no unique field in Konnect: only the UID tag can
	// find it again.
	e.createPlugin("rate", "rate-limiting", `{"minute": 10}`)
	e.createBinding("global", "rate", func(b *configurationv1alpha1.KongPluginBinding) {
		b.Spec.Scope = configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane
	})
	serviceID := e.programmedService("svc").Status.Konnect.ID
	var pluginID string
	e.eventually("binding Programmed", func() error {
		b := e.binding("global")
		pluginID = b.KonnectStatus(false).GetKonnectID()
		return programmed(b)
	})

	// A crash between the create and the status write: the operator stops,
	// and the status loses the IDs.
	e.stopOperator()
	svc := e.service("svc")
	svc.Status.Konnect.ID = ""
	if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).UpdateStatus(e.ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := e.binding("global")
	b.Status.Konnect.ID = ""
	if _, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).UpdateStatus(e.ctx, b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	e.startOperator()
	e.eventually("service adopted by its UID tag", func() error {
		svc := e.service("svc")
		if svc.Status.Konnect.ID != serviceID {
			return fmt.Errorf("status ID %q, want %q", svc.Status.Konnect.ID, serviceID)
		}
		return programmed(svc)
	})
	e.eventually("plugin adopted by its UID tag", func() error {
		b := e.binding("global")
		if id := b.KonnectStatus(false).GetKonnectID(); id != pluginID {
			return fmt.Errorf("status ID %q, want %q", id, pluginID)
		}
		return programmed(b)
	})
	if n := len(e.entities(cpID, "services")); n != 1 {
		t.Fatalf("%d services in Konnect, want 1", n)
	}
	if n := len(e.entities(cpID, "plugins")); n != 1 {
		t.Fatalf("%d plugins in Konnect, want 1", n)
	}
	e.eventuallyEvent("KongService", "svc", corev1.EventTypeNormal, "FoundByUID")
}
