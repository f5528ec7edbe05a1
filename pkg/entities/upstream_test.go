package entities

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

func testUpstream(name string) kongUpstream {
	return &configurationv1alpha1.KongUpstream{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongUpstreamSpec{
			ControlPlaneRef:     konnectRef("cp"),
			KongUpstreamAPISpec: configurationv1alpha1.KongUpstreamAPISpec{Name: name + ".internal"},
		},
	}
}

func TestUpstreamPresentsAClientCertificateOfItsControlPlane(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	certs := cacheOf[kongCertificate]("kongcertificates")
	idle := testCertificate("idle")
	remote := programmedIn(testCertificate("remote"), "cp-id", "remote-id")
	remote.Namespace = "other"
	put(t, certs, programmedIn(testCertificate("client"), "cp-id", "client-id"), programmedIn(testCertificate("elsewhere"), "cp2-id", "elsewhere-id"), idle, remote)
	kind := UpstreamKind(refs, certs)
	cases := []struct {
		name          string
		ref           *commonv1alpha1.NamespacedRef
		grant         bool
		ready         bool
		certificateID string
		condition     metav1.ConditionStatus
		resolvedRefs  metav1.ConditionStatus
	}{
		{name: "no certificate", ready: true},
		{name: "a Programmed certificate", ref: &commonv1alpha1.NamespacedRef{Name: "client"}, ready: true, certificateID: "client-id", condition: "True"},
		{name: "a missing certificate", ref: &commonv1alpha1.NamespacedRef{Name: "later"}, condition: "False"},
		{name: "an unprogrammed certificate", ref: &commonv1alpha1.NamespacedRef{Name: "idle"}, condition: "False"},
		{name: "a certificate of another control plane", ref: &commonv1alpha1.NamespacedRef{Name: "elsewhere"}, condition: "False"},
		{name: "another namespace without a grant", ref: &commonv1alpha1.NamespacedRef{Name: "remote", Namespace: "other"}, resolvedRefs: "False"},
		{name: "another namespace with a grant", ref: &commonv1alpha1.NamespacedRef{Name: "remote", Namespace: "other"}, grant: true, ready: true, certificateID: "remote-id", condition: "True", resolvedRefs: "True"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.grant {
				grant(t, refs, "other", kindUpstream, testNamespace, groupConfiguration, kindCertificate)
			}
			u := testUpstream("up")
			u.Spec.ClientCertificateRef = tc.ref
			res, err := kind.Resolve(t.Context(), u, controller.ForSync)
			if err != nil || res.Ready != tc.ready {
				t.Fatalf("ready=%v err=%v, want ready=%v; conditions %v", res.Ready, err, tc.ready, res.Conditions)
			}
			if got := u.Status.Konnect.CertificateID; got != tc.certificateID {
				t.Errorf("status certificateID %q, want %q", got, tc.certificateID)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionKongCertificateRefValid); got != tc.condition {
				t.Errorf("KongCertificateRefValid %q, want %q", got, tc.condition)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionResolvedRefs); got != tc.resolvedRefs {
				t.Errorf("ResolvedRefs %q, want %q", got, tc.resolvedRefs)
			}
			deleting, err := kind.Resolve(t.Context(), testUpstreamWith(tc.ref), controller.ForDelete)
			if err != nil || !deleting.Ready || conditionStatus(deleting, commonv1alpha1.ConditionKongCertificateRefValid) != "" {
				t.Errorf("deleting needs the certificate: ready=%v err=%v conditions %v", deleting.Ready, err, deleting.Conditions)
			}
		})
	}
}

func testUpstreamWith(ref *commonv1alpha1.NamespacedRef) kongUpstream {
	u := testUpstream("up")
	u.Spec.ClientCertificateRef = ref
	return u
}

func TestUpstreamBodySendsKonnectsDefaultsForUnsetFields(t *testing.T) {
	kind := UpstreamKind(testRefs(), cacheOf[kongCertificate]("kongcertificates"))
	u := testUpstream("up")
	u.Spec.Algorithm = "least-connections"
	u.Spec.Tags = []string{"team:a"}
	body, err := kind.Desired(t.Context(), u, controller.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	if body.Name != "up.internal" || deref(body.Algorithm) != components.UpstreamAlgorithmLeastConnections || body.ClientCertificate != nil {
		t.Fatalf("body %+v", body)
	}
	if !slices.Contains(body.Tags, "team:a") || !slices.Contains(body.Tags, controller.UIDTag(u)) {
		t.Errorf("tags %v", body.Tags)
	}
	var sent map[string]any
	raw, err := json.Marshal(body)
	if err == nil {
		err = json.Unmarshal(raw, &sent)
	}
	if err != nil {
		t.Fatal(err)
	}
	// A PUT overwrites what was changed out of band only if every field
	// with a default is sent.
	for field, want := range map[string]any{
		"algorithm": "least-connections", "hash_on": "none", "hash_fallback": "none", "hash_on_cookie_path": "/",
		"slots": 10000.0, "sticky_sessions_cookie_path": "/", "use_srv_name": false,
	} {
		if sent[field] != want {
			t.Errorf("%s sent as %v, want %v", field, sent[field], want)
		}
	}
}

func TestUpstreamBodyNamesItsClientCertificate(t *testing.T) {
	kind := UpstreamKind(testRefs(), cacheOf[kongCertificate]("kongcertificates"))
	referenced := testUpstreamWith(&commonv1alpha1.NamespacedRef{Name: "client"})
	referenced.ControlPlaneStatus(true)
	referenced.Status.Konnect.CertificateID = "client-id"
	raw := testUpstream("raw")
	raw.Spec.ClientCertificate = &configurationv1alpha1.UpstreamClientCertificate{ID: ptr("raw-id")}
	for upstream, want := range map[kongUpstream]string{referenced: "client-id", raw: "raw-id"} {
		body, err := kind.Desired(t.Context(), upstream, controller.Placement{})
		if err != nil || deref(body.ClientCertificate.GetID()) != want {
			t.Errorf("%s: client certificate %v (%v), want %q", upstream.Name, body.ClientCertificate, err, want)
		}
	}
}

func TestUpstreamHealthChecksAreSentAsGiven(t *testing.T) {
	u := testUpstream("up")
	u.Spec.Healthchecks = &configurationv1alpha1.Healthchecks{
		Threshold: 25,
		Active: &configurationv1alpha1.ActiveHealthcheck{
			Type: "https", Concurrency: 0, HTTPPath: "/healthz", Timeout: 2,
			Healthy: &configurationv1alpha1.ActiveHealthy{HTTPStatuses: []int64{200}, Interval: 5, Successes: 1},
		},
		Passive: &configurationv1alpha1.PassiveHealthcheck{Unhealthy: &configurationv1alpha1.PassiveUnhealthy{TCPFailures: 3}},
	}
	raw, err := json.Marshal(upstreamBody(u, configurationGVK(kindUpstream), controller.Placement{}).Healthchecks)
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Threshold float64
		Active    map[string]any
		Passive   map[string]any
	}
	if err := json.Unmarshal(raw, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Threshold != 25 || sent.Active["type"] != "https" || sent.Active["concurrency"] != 0.0 || sent.Active["http_path"] != "/healthz" ||
		sent.Active["https_verify_certificate"] != false || sent.Passive["type"] != "http" {
		t.Fatalf("health checks sent as %s", raw)
	}
	if healthy, _ := sent.Active["healthy"].(map[string]any); healthy["interval"] != 5.0 || healthy["successes"] != 1.0 {
		t.Fatalf("active healthy sent as %v", sent.Active["healthy"])
	}
}

func TestUpstreamMatchAppliesKonnectDefaults(t *testing.T) {
	desired := upstreamBody(testUpstream("up"), configurationGVK(kindUpstream), controller.Placement{})
	cases := []struct {
		name   string
		actual components.Upstream
		want   []string
	}{
		{name: "an entity with only a name has every default", actual: components.Upstream{Name: "up.internal"}},
		{
			name: "Konnect's filled-in defaults equal unset ones",
			actual: components.Upstream{
				Name: "up.internal", Algorithm: components.UpstreamAlgorithmRoundRobin.ToPointer(), Slots: ptr[int64](10000), HashOnCookiePath: ptr("/"),
				Healthchecks: &components.Healthchecks{
					Threshold: ptr(0.0),
					Active:    &components.Active{Type: components.UpstreamTypeHTTP.ToPointer(), Concurrency: ptr[int64](10), HTTPPath: ptr("/"), Timeout: ptr(1.0)},
				},
			},
		},
		{
			name:   "changed health checks differ",
			actual: components.Upstream{Name: "up.internal", Healthchecks: &components.Healthchecks{Threshold: ptr(25.0)}},
			want:   []string{"healthchecks"},
		},
		{
			name:   "changed active probes differ",
			actual: components.Upstream{Name: "up.internal", Healthchecks: &components.Healthchecks{Active: &components.Active{Concurrency: ptr[int64](3)}}},
			want:   []string{"healthchecks"},
		},
		{
			name:   "name, algorithm and slots are compared",
			actual: components.Upstream{Name: "other", Algorithm: components.UpstreamAlgorithmLatency.ToPointer(), Slots: ptr[int64](20)},
			want:   []string{"name", "algorithm", "slots"},
		},
		{
			name: "use_srv_name, tags and the client certificate are not",
			actual: components.Upstream{
				Name: "up.internal", UseSrvName: ptr(true), Tags: []string{"x"}, ClientCertificate: &components.UpstreamClientCertificate{ID: ptr("c")},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := upstreamMatches(desired, &tc.actual); !slices.Equal(got, tc.want) {
				t.Fatalf("differences %v, want %v", got, tc.want)
			}
		})
	}
}

func TestUpstreamCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, upstreamCalls,
		components.Upstream{Name: "up.internal", Tags: []string{uid}},
		components.Upstream{Name: "up.internal", Algorithm: components.UpstreamAlgorithmLatency.ToPointer(), Tags: []string{uid}}, uid)
}

// Konnect refuses to delete an upstream with targets: they are deleted
// first, and those of other upstreams stay.
func TestDeletingAnUpstreamDeletesItsTargetsFirst(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	upstreamID := created(t, s, p, upstreamCalls, components.Upstream{Name: "up.internal"})
	otherID := created(t, s, p, upstreamCalls, components.Upstream{Name: "other.internal"})
	under := func(id string) controller.Placement {
		return controller.Placement{ControlPlaneID: p.ControlPlaneID, ParentID: id}
	}
	for _, address := range []string{"10.0.0.1:80", "10.0.0.2:80"} {
		created(t, s, under(upstreamID), targetCalls, components.TargetWithoutParents{Target: ptr(address)})
	}
	kept := created(t, s, under(otherID), targetCalls, components.TargetWithoutParents{Target: ptr("10.0.0.3:80")})

	if err := deleteUpstream(t.Context(), s.api, p, upstreamID); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if n := refusals(s, "delete-upstream"); n != 1 {
		t.Fatalf("Konnect refused %d deletes, want 1 (the upstream had targets)", n)
	}
	if _, err := upstreamCalls.doGet(t.Context(), s.api, p, upstreamID); !konnect.IsNotFound(err) {
		t.Fatalf("the upstream is still there: %v", err)
	}
	if left, err := targetCalls.doList(t.Context(), s.api, under(otherID)); err != nil || len(left) != 1 || deref(left[0].ID) != kept {
		t.Fatalf("the other upstream's targets: %v, %v; want only %s", left, err, kept)
	}
}
