package integration

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/operator"
)

// TestCachesLeaveOutWhatTheOperatorNeverReads: an object applied with
// kubectl's last-applied annotation is cached without it and without its
// managedFields, while the annotations the operator reads stay (its
// konghq.com/tags reach Konnect); the server copy keeps both through the
// finalizer and status writes; and an operator started again over the
// trimmed caches writes nothing, to Konnect or to the status.
func TestCachesLeaveOutWhatTheOperatorNeverReads(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	lastApplied, err := json.Marshal(map[string]any{"apiVersion": "configuration.konghq.com/v1alpha1", "kind": "KongService",
		"metadata": map[string]any{"name": "applied", "namespace": e.ns}, "spec": map[string]any{"host": "applied.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	e.createService("applied", func(s *configurationv1alpha1.KongService) {
		s.Annotations = map[string]string{
			corev1.LastAppliedConfigAnnotation: string(lastApplied),
			commonv1alpha1.AnnotationTags:      "team-a",
		}
	})
	e.createService("other")
	e.eventually("the services Programmed", func() error {
		if err := programmed(e.service("applied")); err != nil {
			return err
		}
		return programmed(e.service("other"))
	})
	e.settle()

	onServer := e.service("applied")
	if onServer.Annotations[corev1.LastAppliedConfigAnnotation] != string(lastApplied) {
		t.Errorf("the server copy lost kubectl's last-applied annotation: %v", onServer.Annotations)
	}
	if len(onServer.ManagedFields) == 0 {
		t.Error("the server copy has no managedFields")
	}
	if !slices.Contains(onServer.Finalizers, commonv1alpha1.FinalizerKonnectCleanup) {
		t.Errorf("the operator wrote no finalizer: %v", onServer.Finalizers)
	}
	ent, ok := e.entity(cpID, "services", onServer.Status.Konnect.ID)
	if !ok {
		t.Fatal("the service is not in Konnect")
	}
	if !slices.Contains(tagsOf(ent), "team-a") {
		t.Errorf("Konnect's service has tags %v, without team-a from the annotation", tagsOf(ent))
	}

	factory := operator.KonnectInformerFactory(e.kube, e.cs, e.ns)
	lister := factory.Configuration().V1alpha1().KongServices().Lister()
	stop := make(chan struct{})
	factory.Start(stop)
	defer func() {
		close(stop)
		factory.Shutdown()
	}()
	if !cache.WaitForNamedCacheSync("KongService", stop, factory.Configuration().V1alpha1().KongServices().Informer().HasSynced) {
		t.Fatal("the cache did not sync")
	}
	cached, err := lister.KongServices(e.ns).Get("applied")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cached.Annotations[corev1.LastAppliedConfigAnnotation]; ok {
		t.Error("the cached copy holds kubectl's last-applied annotation")
	}
	if cached.Annotations[commonv1alpha1.AnnotationTags] != "team-a" {
		t.Errorf("the cached copy lost an annotation the operator reads: %v", cached.Annotations)
	}
	if cached.ManagedFields != nil {
		t.Errorf("the cached copy holds managedFields: %v", cached.ManagedFields)
	}
	// No room for conditions the decoder grew the slice for, and one copy
	// of the strings every entity of the control plane repeats.
	if n := len(cached.Status.Conditions); n < 2 || cap(cached.Status.Conditions) != n {
		t.Errorf("the cached copy holds %d conditions in room for %d", n, cap(cached.Status.Conditions))
	}
	other, err := lister.KongServices(e.ns).Get("other")
	if err != nil {
		t.Fatal(err)
	}
	for field, pair := range map[string][2]string{
		"serverURL":          {cached.Status.Konnect.ServerURL, other.Status.Konnect.ServerURL},
		"organizationID":     {cached.Status.Konnect.OrgID, other.Status.Konnect.OrgID},
		"controlPlaneID":     {cached.Status.Konnect.ControlPlaneID, other.Status.Konnect.ControlPlaneID},
		"a condition's type": {cached.Status.Conditions[0].Type, other.Status.Conditions[0].Type},
	} {
		if pair[0] == "" || pair[0] != pair[1] || unsafe.StringData(pair[0]) != unsafe.StringData(pair[1]) {
			t.Errorf("the two cached services do not share one copy of their status's %s (%q, %q)", field, pair[0], pair[1])
		}
	}

	statusWrites := e.statusWrites("KongService")
	e.sim.ResetCalls()
	e.stopOperator()
	e.startOperator()
	e.settle()
	if got := e.statusWrites("KongService"); got != 0 {
		t.Errorf("the operator started again wrote the status %v times (before the restart: %v)", got, statusWrites)
	}
	if writes := e.konnectWrites(); writes != 0 {
		t.Errorf("the operator started again made %d writes to Konnect: %v", writes, e.sim.Calls())
	}
	if e.service("applied").Annotations[corev1.LastAppliedConfigAnnotation] != string(lastApplied) {
		t.Error("the server copy lost kubectl's last-applied annotation after the restart")
	}
}

// konnectWrites counts the simulator's requests other than reads.
func (e *env) konnectWrites() int {
	n := 0
	for op, count := range e.sim.Calls() {
		if !strings.HasPrefix(op, "GET ") {
			n += count
		}
	}
	return n
}
