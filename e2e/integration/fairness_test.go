package integration

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// TestOrganisationPausedDoesNotDelayAnother: one operator with a single
// worker per kind serves organisation A and organisation B (on a Konnect
// of its own). B's Konnect refuses B's next request with a 429 whose
// Retry-After pauses B's limiter for ten minutes, and B's services and consumers are
// created before A's. A's are all Programmed while the clock stands still;
// B's wait, neither sent again nor reported as a failure, and are
// Programmed once the clock has passed the pause.
func TestOrganisationPausedDoesNotDelayAnother(t *testing.T) {
	t.Parallel()
	const (
		pause   = 10 * time.Minute
		perKind = 3
	)
	e := newEnv(t, envOptions{neighbour: true, workers: 1})
	e.ready()
	e.createNeighbourAuth("auth-b")
	e.createControlPlane("cp-b", "auth-b")
	e.eventually("B's control plane Programmed", func() error { return programmed(e.controlPlane("cp-b")) })
	orgB := e.authConfig("auth-b").Status.OrganizationID

	e.neighbour.Faults().Force429(1, pause)
	onB := func(svc *configurationv1alpha1.KongService) { svc.Spec.ControlPlaneRef = cpRef("cp-b") }
	for i := range perKind {
		e.createService(fmt.Sprintf("b-svc-%d", i), onB)
		e.createConsumerOn(fmt.Sprintf("b-consumer-%d", i), "cp-b")
	}
	for i := range perKind {
		e.createService(fmt.Sprintf("a-svc-%d", i))
		e.createConsumer(fmt.Sprintf("a-consumer-%d", i))
	}
	// The clock does not move: B's pause lasts throughout.
	for i := range perKind {
		svc, consumer := fmt.Sprintf("a-svc-%d", i), fmt.Sprintf("a-consumer-%d", i)
		e.eventuallyWithin(0, "A's "+svc+" Programmed during B's pause", func() error { return programmed(e.service(svc)) })
		e.eventuallyWithin(0, "A's "+consumer+" Programmed during B's pause", func() error { return programmed(e.consumer(consumer)) })
	}
	e.settle()
	if got := e.neighbour.Served().RateLimited; got != 1 {
		t.Fatalf("B's Konnect served %d 429s with a delay, want the 1 forced", got)
	}
	for i := range perKind {
		if err := programmed(e.service(fmt.Sprintf("b-svc-%d", i))); err == nil {
			t.Errorf("B's service %d is Programmed during B's pause", i)
		}
	}
	if got := e.metricValue(konnect.MetricLimiterDeferrals, map[string]string{"organization": orgB, "reason": "hold"}); got < 2*perKind-1 {
		t.Errorf("%s{organization=B,reason=hold} = %v: B's other objects were not deferred to their turn", konnect.MetricLimiterDeferrals, got)
	}
	warnings, err := e.kube.CoreV1().Events(e.ns).List(e.ctx, metav1.ListOptions{FieldSelector: "type=" + corev1.EventTypeWarning})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range warnings.Items {
		t.Errorf("Warning Event on %s %s during B's pause: %s: %s", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Reason, ev.Message)
	}

	e.clock.Step(pause)
	for i := range perKind {
		svc, consumer := fmt.Sprintf("b-svc-%d", i), fmt.Sprintf("b-consumer-%d", i)
		e.eventually("B's "+svc+" Programmed after the pause", func() error { return programmed(e.service(svc)) })
		e.eventually("B's "+consumer+" Programmed after the pause", func() error { return programmed(e.consumer(consumer)) })
	}
}

// createNeighbourAuth creates an auth configuration of env.neighbour's
// organisation.
func (e *env) createNeighbourAuth(name string) {
	e.t.Helper()
	_, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type:      konnectv1alpha1.KonnectAPIAuthTypeToken,
			Token:     neighbourToken,
			ServerURL: e.neighbour.URL,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
}

// createConsumerOn creates a consumer in control plane cp.
func (e *env) createConsumerOn(name, cp string) {
	e.t.Helper()
	c := &configurationv1.KongConsumer{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Username:   name,
		Spec:       configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef(cp)},
	}
	if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, c, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}
