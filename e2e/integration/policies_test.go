package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

func annotated(key, value string) func(*configurationv1alpha1.KongService) {
	return func(s *configurationv1alpha1.KongService) {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[key] = value
	}
}

func (e *env) deleteService(name string) {
	e.t.Helper()
	if err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
	gone(e, "KongService "+name, func() (*configurationv1alpha1.KongService, error) {
		return e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	})
}

// requestsFor counts the simulator's requests whose path names id.
func (e *env) requestsFor(id string) int {
	n := 0
	for _, r := range e.sim.Requests() {
		if strings.Contains(r.Path, id) {
			n++
		}
	}
	return n
}

// TestDeletionPolicyOrphan: a service annotated orphan is released at once
// and its entity stays, untouched, with no DELETE; a control plane deleted
// with orphan leaves its entities too; the annotation, changed at run time,
// takes effect without a restart.
func TestDeletionPolicyOrphan(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{keepNamespace: true}) // what the test leaves in Konnect is on purpose
	cpID := e.ready()

	e.createService("kept", annotated(commonv1alpha1.AnnotationDeletionPolicy, "orphan"))
	keptID := e.programmedService("kept").Status.Konnect.ID
	before := e.serviceEntity(cpID, keptID)
	e.deleteService("kept")
	if after := e.serviceEntity(cpID, keptID); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("the orphaned entity changed:\n before %v\n after  %v", before, after)
	}
	e.eventuallyEvent("KongService", "kept", corev1.EventTypeNormal, controller.EventOrphaned)

	// Changed at run time: orphan, then delete again.
	e.createService("switched", annotated(commonv1alpha1.AnnotationDeletionPolicy, "orphan"))
	switchedID := e.programmedService("switched").Status.Konnect.ID
	e.updateService("switched", func(s *configurationv1alpha1.KongService) {
		delete(s.Annotations, commonv1alpha1.AnnotationDeletionPolicy)
	})
	e.settle()
	e.deleteService("switched")
	if _, ok := e.entity(cpID, "services", switchedID); ok {
		t.Fatal("the service whose orphan policy was removed kept its entity")
	}
	if n := e.calls("DELETE", "core-entities/services"); n != 1 {
		t.Fatalf("%d service DELETEs, want 1 (only the service no longer orphaned)", n)
	}

	// A control plane deleted with orphan keeps its entities, and itself.
	e.createService("child")
	childID := e.programmedService("child").Status.Konnect.ID
	cp := e.controlPlane("cp")
	cp.Annotations = map[string]string{commonv1alpha1.AnnotationDeletionPolicy: "orphan"}
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Update(e.ctx, cp, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.settle()
	e.deleteControlPlane("cp")
	if err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(e.ctx, "child", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("both objects gone", func() error {
		if err := e.controlPlaneGone("cp"); err != nil {
			return err
		}
		if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, "child", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the child is still there: %w", err)
		}
		return nil
	})
	if _, ok := e.entity(cpID, "services", childID); !ok {
		t.Fatal("the child of a control plane deleted with orphan lost its entity")
	}
	if n := e.sim.CallCount("DELETE", "/v2/control-planes/{controlPlaneId}"); n != 0 {
		t.Fatalf("%d control-plane DELETEs, want none", n)
	}
	if n := e.calls("DELETE", "core-entities/services"); n != 1 {
		t.Fatalf("%d service DELETEs, want still 1", n)
	}
}

// TestReconcilePolicyReport: a change made in Konnect is found and
// reported (Drifted=True naming the field, never its value; a Warning; the
// drift counter's "reported" series) but not written back; a change of the
// spec still goes out; Drifted goes back to False once Konnect matches.
func TestReconcilePolicyReport(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period})
	cpID := e.ready()
	e.createService("svc", annotated(commonv1alpha1.AnnotationReconcilePolicy, "report"))
	id := e.programmedService("svc").Status.Konnect.ID
	e.eventually("Drifted=False at first", func() error {
		return conditionIs(e.service("svc"), commonv1alpha1.ConditionDrifted, metav1.ConditionFalse, commonv1alpha1.ReasonInSync)
	})

	const outside = "debugging-in-the-ui.example.com"
	ent := e.serviceEntity(cpID, id)
	ent["host"] = outside
	if err := e.sim.PutEntity(e.orgID, cpID, "services", ent); err != nil {
		t.Fatal(err)
	}
	upserts := e.calls("PUT", serviceUpserts)
	e.step(period)
	e.eventually("the drift reported", func() error {
		svc := e.service("svc")
		if err := conditionIs(svc, commonv1alpha1.ConditionDrifted, metav1.ConditionTrue, commonv1alpha1.ReasonDriftReported); err != nil {
			return err
		}
		if msg := conditionMessage(svc, commonv1alpha1.ConditionDrifted); !strings.Contains(msg, "host") || strings.Contains(msg, outside) {
			return fmt.Errorf("Drifted says %q: it must name the field, never the value", msg)
		}
		return nil
	})
	ev := e.eventuallyEvent("KongService", "svc", corev1.EventTypeWarning, controller.EventDriftReported)
	if strings.Contains(ev.Message, outside) {
		t.Errorf("the Event carries the value: %q", ev.Message)
	}
	if got := e.metricValue(metrics.MetricDriftCorrections, map[string]string{"kind": "KongService", "action": metrics.DriftReported}); got != 1 {
		t.Errorf("drift reported %v times, want 1", got)
	}
	e.step(period)
	if h := e.serviceEntity(cpID, id)["host"]; h != outside {
		t.Fatalf("the change made in Konnect was overwritten: host %v", h)
	}
	if got := e.calls("PUT", serviceUpserts) - upserts; got != 0 {
		t.Fatalf("%d service writes under the report policy without a spec change", got)
	}
	if got := e.metricValue(metrics.MetricDriftCorrections, map[string]string{"kind": "KongService", "action": metrics.DriftReported}); got != 1 {
		t.Errorf("the same drift was reported %v times, want once", got)
	}

	// A change of the spec is the user's: it goes out, and Konnect matches.
	e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Port = 8080 })
	e.eventually("the spec change written", func() error {
		if p := e.serviceEntity(cpID, id)["port"]; fmt.Sprint(p) != "8080" {
			return fmt.Errorf("port %v", p)
		}
		return conditionIs(e.service("svc"), commonv1alpha1.ConditionDrifted, metav1.ConditionFalse, commonv1alpha1.ReasonInSync)
	})

	// Drift that Konnect undoes by itself is reported over.
	ent = e.serviceEntity(cpID, id)
	ent["retries"] = 9
	if err := e.sim.PutEntity(e.orgID, cpID, "services", ent); err != nil {
		t.Fatal(err)
	}
	e.step(period)
	e.eventually("the second drift reported", func() error {
		return conditionIs(e.service("svc"), commonv1alpha1.ConditionDrifted, metav1.ConditionTrue, commonv1alpha1.ReasonDriftReported)
	})
	ent["retries"] = 5 // Konnect's default, as the operator wrote it
	if err := e.sim.PutEntity(e.orgID, cpID, "services", ent); err != nil {
		t.Fatal(err)
	}
	e.step(period)
	e.eventually("Drifted=False once Konnect matches", func() error {
		return conditionIs(e.service("svc"), commonv1alpha1.ConditionDrifted, metav1.ConditionFalse, commonv1alpha1.ReasonInSync)
	})
}

// TestReconcilePolicyPause: a paused object makes no request to Konnect at
// all, whatever changes, and says so; removing the annotation resumes it,
// and the change and the drift of meanwhile are written then.
func TestReconcilePolicyPause(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period})
	cpID := e.ready()
	e.createService("svc")
	id := e.programmedService("svc").Status.Konnect.ID
	e.updateService("svc", annotated(commonv1alpha1.AnnotationReconcilePolicy, "pause"))
	e.eventually("Paused=True", func() error {
		return conditionIs(e.service("svc"), commonv1alpha1.ConditionPaused, metav1.ConditionTrue, commonv1alpha1.ReasonPaused)
	})
	e.settle()
	e.sim.ResetCalls()

	ent := e.serviceEntity(cpID, id)
	ent["host"] = "changed-while-paused.example.com"
	if err := e.sim.PutEntity(e.orgID, cpID, "services", ent); err != nil {
		t.Fatal(err)
	}
	e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Port = 8080 })
	e.createService("new", annotated(commonv1alpha1.AnnotationReconcilePolicy, "pause"))
	e.step(period)
	e.step(period)
	if n := e.requestsFor(id); n != 0 {
		t.Fatalf("%d requests for the paused service's entity", n)
	}
	if n := e.calls("POST", "core-entities/services") + e.calls("PUT", serviceUpserts) + e.calls("DELETE", "core-entities/services"); n != 0 {
		t.Fatalf("%d service writes while paused: %v", n, e.sim.Calls())
	}
	if err := conditionIs(e.service("new"), commonv1alpha1.ConditionPaused, metav1.ConditionTrue, commonv1alpha1.ReasonPaused); err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"svc", "new"} {
		e.updateService(name, func(s *configurationv1alpha1.KongService) {
			delete(s.Annotations, commonv1alpha1.AnnotationReconcilePolicy)
		})
	}
	e.eventually("resumed: the change and the drift written", func() error {
		ent := e.serviceEntity(cpID, id)
		if fmt.Sprint(ent["port"]) != "8080" || ent["host"] != "svc.example.com" {
			return fmt.Errorf("port %v, host %v", ent["port"], ent["host"])
		}
		if c := conditionMessage(e.service("svc"), commonv1alpha1.ConditionPaused); c != "" {
			return fmt.Errorf("still says Paused: %q", c)
		}
		return programmed(e.service("new"))
	})
}

var installControls sync.Once

// controlsPolicy installs manifests/admission, once for the test cluster.
func (e *env) controlsPolicy() {
	e.t.Helper()
	installControls.Do(func() {
		data, err := os.ReadFile(filepath.Join("..", "..", "manifests", "admission", "controls.yaml"))
		if err != nil {
			e.t.Fatal(err)
		}
		docs := strings.Split(string(data), "\n---\n")
		var policy admissionregistrationv1.ValidatingAdmissionPolicy
		var binding admissionregistrationv1.ValidatingAdmissionPolicyBinding
		if err := yaml.Unmarshal([]byte(docs[0]), &policy); err != nil {
			e.t.Fatal(err)
		}
		if err := yaml.Unmarshal([]byte(docs[1]), &binding); err != nil {
			e.t.Fatal(err)
		}
		admission := e.kube.AdmissionregistrationV1()
		if _, err := admission.ValidatingAdmissionPolicies().Create(e.ctx, &policy, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			e.t.Fatal(err)
		}
		if _, err := admission.ValidatingAdmissionPolicyBindings().Create(e.ctx, &binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			e.t.Fatal(err)
		}
	})
}

// TestProtectedObjects: deleting a protected object is refused at
// admission with a message that says what to do, and so are policy
// annotations with values the operator does not know; a namespace deleted
// whole (which admission cannot refuse) leaves the entity in Konnect.
func TestProtectedObjects(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{keepNamespace: true})
	e.controlsPolicy()
	e.createAuthConfig("auth")
	protectedCP := e.controlPlaneObject("cp", "auth")
	protectedCP.Annotations = map[string]string{commonv1alpha1.AnnotationProtected: "true"}
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Create(e.ctx, protectedCP, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var cpID string
	e.eventually("control plane Programmed", func() error {
		cp := e.controlPlane("cp")
		cpID = cp.Status.ID
		return programmed(cp)
	})
	e.createService("svc", annotated(commonv1alpha1.AnnotationProtected, "true"))
	e.createService("plain")
	e.programmedService("plain")
	id := e.programmedService("svc").Status.Konnect.ID

	// The policy takes a moment to reach the API server's admission.
	e.eventually("deletion refused", func() error {
		err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(e.ctx, "svc", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), "remove the annotation first") {
			return fmt.Errorf("deletion not refused as it should be: %w", err)
		}
		return nil
	})
	for _, bad := range [][2]string{
		{commonv1alpha1.AnnotationDeletionPolicy, "keep"},
		{commonv1alpha1.AnnotationReconcilePolicy, "sometimes"},
		{commonv1alpha1.AnnotationProtected, "yes"},
	} {
		// A patch, not an update: the operator's status writes must not turn
		// the refusal into a conflict.
		patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, bad[0], bad[1])
		_, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Patch(e.ctx, "svc", types.MergePatchType, patch, metav1.PatchOptions{})
		if err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%s: %s was not refused with a message naming it: %v", bad[0], bad[1], err)
		}
	}

	// The namespace goes whole: the protected control plane stays in
	// Konnect, and its entities with it.
	if err := e.kube.CoreV1().Namespaces().Delete(e.ctx, e.ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("the namespace gone", func() error {
		if _, err := e.kube.CoreV1().Namespaces().Get(e.ctx, e.ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %w", err)
		}
		return nil
	})
	if _, ok := e.entity(cpID, "services", id); !ok {
		t.Fatalf("the protected service %s went with its namespace", id)
	}
	// The unprotected service may go or stay: whether its control plane is
	// seen deleting first is a race the namespace controller decides (the
	// README says to protect each object that must stay).
	if n := e.sim.CallCount("DELETE", "/v2/control-planes/{controlPlaneId}"); n != 0 {
		t.Fatalf("the protected control plane was deleted from Konnect (%d DELETEs)", n)
	}
	if !slices.ContainsFunc(e.sim.ControlPlanes(e.orgID), func(cp map[string]any) bool { return cp["id"] == cpID }) {
		t.Fatalf("the protected control plane %s went with its namespace", cpID)
	}
}
