package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// TestAHostileServerCostsOnlyItsOwnNamespace: namespace A's auth
// configuration names a server of A's own (a second simulator), which
// turns hostile once A's control plane and a first service are
// Programmed: it pages without end, then answers every request with a
// body of 1 GiB, then takes requests and never answers. Throughout,
// namespace B's services (on its own Konnect) are Programmed as they are
// created, while A's new services report in their Programmed condition
// why the server's answer was refused, and A's first service reports
// Drifted Unknown, its listing refused. Once the server answers as
// Konnect again, A's services are Programmed and its drift known again.
// The stalled requests were still unanswered when B's services were
// Programmed.
func TestAHostileServerCostsOnlyItsOwnNamespace(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{
		neighbour: true, otherNamespace: true, workers: 64, syncPeriod: time.Minute,
		// Long enough that no stalled request is given up on during the
		// test: the stall is what B's services are Programmed beside.
		konnectTimeout: 2 * time.Minute,
	})
	hostile := e.neighbour
	// Before the cleanup deletes everything, the server is Konnect again.
	t.Cleanup(func() { hostile.SetHostile(konnectsim.Hostile{}) })
	e.ready()
	a := e.other
	if _, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(a).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "auth-a"},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: neighbourToken, ServerURL: hostile.URL,
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cpA := e.controlPlaneObject("cp-a", "auth-a")
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(a).Create(e.ctx, cpA, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createA := func(name string) {
		t.Helper()
		svc := &configurationv1alpha1.KongService{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: configurationv1alpha1.KongServiceSpec{
				ControlPlaneRef:    cpRefIn(a, "cp-a"),
				KongServiceAPISpec: configurationv1alpha1.KongServiceAPISpec{Name: name, Host: name + ".example.com"},
			},
		}
		if _, err := e.cs.ConfigurationV1alpha1().KongServices(a).Create(e.ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	serviceA := func(name string) *configurationv1alpha1.KongService {
		t.Helper()
		svc, err := e.cs.ConfigurationV1alpha1().KongServices(a).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	createA("a-steady")
	e.eventually("A's first service Programmed before the server turns", func() error { return programmed(serviceA("a-steady")) })

	createdB := 0
	bConverges := func(phase string) {
		t.Helper()
		var names []string
		for range 3 {
			createdB++
			name := fmt.Sprintf("b-svc-%d", createdB)
			e.createService(name)
			names = append(names, name)
		}
		for _, name := range names {
			e.eventuallyWithin(0, "B's "+name+" Programmed while A's server "+phase, func() error { return programmed(e.service(name)) })
		}
	}
	refused := func(name, says string) func() error {
		return func() error {
			c := meta.FindStatusCondition(serviceA(name).Status.Conditions, commonv1alpha1.ConditionProgrammed)
			switch {
			case c == nil || c.Status != metav1.ConditionFalse || c.Reason != commonv1alpha1.ReasonFailedToCreate:
				return fmt.Errorf("A's %s is not reported failed to create: %+v", name, c)
			case !strings.Contains(c.Message, "answer refused") || !strings.Contains(c.Message, says):
				return fmt.Errorf("A's %s says %q, want a refused answer saying %q", name, c.Message, says)
			}
			return nil
		}
	}

	// Pages without end: the drift listing of A's first service, and the
	// take-back listing before A's next create, stop at the listing
	// limits. Two sync periods on, the index of A's control plane that the
	// first create listed is no longer kept: the next create lists again.
	hostile.SetHostile(konnectsim.Hostile{EndlessPages: true})
	e.clock.Step(2 * time.Minute)
	e.eventually("A's first service's drift reported unknown", func() error {
		return conditionIs(serviceA("a-steady"), commonv1alpha1.ConditionDrifted, metav1.ConditionUnknown, controller.ReasonListingRefused)
	})
	createA("a-paged")
	bConverges("pages without end")
	e.eventually("A's service refused a listing without end", refused("a-paged", "listed more than 100000 entities"))
	if pages := hostile.HostileServed().Pages; pages < 100 {
		t.Fatalf("the hostile server made up %d pages, want at least the 100 a listing stops after", pages)
	}

	// Bodies of 1 GiB: read to the page limit, then refused.
	hostile.SetHostile(konnectsim.Hostile{BodyBytes: 1 << 30})
	createA("a-large")
	bConverges("answers 1 GiB bodies")
	e.eventually("A's service refused a body of 1 GiB", refused("a-large", "body larger than 8 MiB"))
	if streamed := hostile.HostileServed().StreamedBytes; streamed == 0 || streamed >= 1<<30 {
		t.Fatalf("the hostile server streamed %d bytes, want some and less than one whole body", streamed)
	}

	// A stall: A's requests are kept unanswered.
	hostile.SetHostile(konnectsim.Hostile{Stall: true})
	stallsBefore := hostile.HostileServed().Stalls
	createA("a-stalled")
	e.eventuallyWithin(0, "A's server to stall a request", func() error {
		if hostile.HostileServed().Stalls == stallsBefore {
			return fmt.Errorf("no request stalled yet")
		}
		return nil
	})
	bConverges("stalls")
	for _, r := range hostile.Requests() {
		if r.Status == 0 {
			t.Fatalf("a stalled request (%s %s) ended before B's services were Programmed", r.Method, r.Path)
		}
	}
	if err := programmed(serviceA("a-stalled")); err == nil {
		t.Fatal("A's service is Programmed while its server stalls")
	}

	hostile.SetHostile(konnectsim.Hostile{})
	for _, name := range []string{"a-paged", "a-large", "a-stalled"} {
		e.eventuallyWithin(2*time.Minute, "A's "+name+" Programmed once its server answers as Konnect", func() error { return programmed(serviceA(name)) })
	}
	e.eventuallyWithin(2*time.Minute, "A's first service's drift known again", func() error {
		if c := meta.FindStatusCondition(serviceA("a-steady").Status.Conditions, commonv1alpha1.ConditionDrifted); c != nil {
			return fmt.Errorf("Drifted is still %s/%s", c.Status, c.Reason)
		}
		return nil
	})
}
