package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

func testTarget(name, upstreamNamespace, upstream string) kongTarget {
	return &configurationv1alpha1.KongTarget{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongTargetSpec{
			UpstreamRef:       commonv1alpha1.NamespacedRef{Name: upstream, Namespace: upstreamNamespace},
			KongTargetAPISpec: configurationv1alpha1.KongTargetAPISpec{Target: "10.0.0.1:8080", Weight: 50, Tags: []string{"team:a"}},
		},
	}
}

func TestTargetIsPlacedUnderItsUpstream(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	upstreams := cacheOf[kongUpstream]("kongupstreams")
	remote := programmedIn(testUpstream("remote"), "cp-id", "remote-id")
	remote.Namespace = "other"
	remote.Spec.ControlPlaneRef.KonnectNamespacedRef.Namespace = testNamespace
	// The upstream may use the control plane of another namespace, as any
	// Programmed one there did: a grant allows it.
	grant(t, refs, testNamespace, kindUpstream, "other", groupKonnect, kindControlPlane)
	deleting := programmedIn(testUpstream("deleting"), "cp-id", "deleting-id")
	deleting.DeletionTimestamp = &metav1.Time{}
	put(t, upstreams, programmedIn(testUpstream("up"), "cp-id", "up-id"), testUpstream("idle"), deleting, remote)
	kind := TargetKind(refs, upstreams)
	cases := []struct {
		name              string
		namespace, ref    string
		grant             bool
		ready             bool
		parentID          string
		upstreamRefValid  metav1.ConditionStatus
		reason            string
		deletingIsGone    bool
		deletingParentID  string
		resolvedRefsIsSet bool
	}{
		{name: "a Programmed upstream", ref: "up", ready: true, parentID: "up-id", upstreamRefValid: "True", deletingParentID: "up-id"},
		{name: "a missing upstream", ref: "later", upstreamRefValid: "False", reason: commonv1alpha1.ReasonInvalid, deletingIsGone: true},
		{name: "an unprogrammed upstream", ref: "idle", upstreamRefValid: "False", reason: commonv1alpha1.ReasonInvalid, deletingIsGone: true},
		{name: "an upstream being deleted", ref: "deleting", upstreamRefValid: "False", reason: commonv1alpha1.ReasonInvalid, deletingParentID: "deleting-id"},
		{
			// Deleting needs the grant too: the delete would use the
			// upstream's control plane and its token.
			name: "another namespace without a grant", namespace: "other", ref: "remote",
			upstreamRefValid: "False", reason: commonv1alpha1.ReasonRefNotPermitted, deletingParentID: "",
		},
		{name: "another namespace with a grant", namespace: "other", ref: "remote", grant: true, ready: true, parentID: "remote-id", upstreamRefValid: "True", deletingParentID: "remote-id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.grant {
				grant(t, refs, "other", "KongTarget", testNamespace, groupConfiguration, kindUpstream)
			}
			target := testTarget("t", tc.namespace, tc.ref)
			res, err := kind.Resolve(t.Context(), target, controller.ForSync)
			if err != nil || res.Ready != tc.ready || res.Placement.ParentID != tc.parentID {
				t.Fatalf("ready=%v parent=%q err=%v, want ready=%v parent=%q; conditions %v", res.Ready, res.Placement.ParentID, err, tc.ready, tc.parentID, res.Conditions)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionKongUpstreamRefValid); got != tc.upstreamRefValid {
				t.Errorf("KongUpstreamRefValid %q, want %q", got, tc.upstreamRefValid)
			}
			if tc.reason != "" && !slices.ContainsFunc(res.Conditions, func(c metav1.Condition) bool { return c.Reason == tc.reason }) {
				t.Errorf("no condition has reason %s: %v", tc.reason, res.Conditions)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionResolvedRefs); got != "" {
				t.Errorf("ResolvedRefs %q: a target reports its upstream reference on KongUpstreamRefValid", got)
			}
			if tc.ready && (target.Status.Konnect.UpstreamID != tc.parentID || target.Status.Konnect.ControlPlaneID != "cp-id" || res.Placement.Auth.Token != "kpat_test") {
				t.Errorf("status %+v, placement %+v: want the upstream's ID and control plane, with its credentials", target.Status.Konnect, res.Placement)
			}
			res, err = kind.Resolve(t.Context(), testTarget("t", tc.namespace, tc.ref), controller.ForDelete)
			if err != nil || res.Gone != tc.deletingIsGone || res.Placement.ParentID != tc.deletingParentID {
				t.Errorf("deleting: gone=%v parent=%q err=%v, want gone=%v parent=%q", res.Gone, res.Placement.ParentID, err, tc.deletingIsGone, tc.deletingParentID)
			}
			if tc.reason == commonv1alpha1.ReasonRefNotPermitted && (res.Ready || res.Placement.Auth.Token != "") {
				t.Errorf("deleting without the grant: ready=%v, with a token=%v; want neither", res.Ready, res.Placement.Auth.Token != "")
			}
		})
	}
}

func TestTargetIsManagedWhenItsUpstreamIsInKonnect(t *testing.T) {
	upstreams := cacheOf[kongUpstream]("kongupstreams")
	kic := testUpstream("kic")
	kic.Spec.ControlPlaneRef = &commonv1alpha1.ControlPlaneRef{Type: "kic"}
	put(t, upstreams, testUpstream("up"), kic)
	kind := TargetKind(testRefs(), upstreams)
	for upstream, want := range map[string]bool{"up": true, "kic": false, "missing": true} {
		if got := kind.IsManaged(testTarget("t", "", upstream)); got != want {
			t.Errorf("a target of upstream %q managed=%v, want %v", upstream, got, want)
		}
	}
}

func TestTargetBodyNamesItsUpstream(t *testing.T) {
	target := testTarget("t", "", "up")
	body, err := TargetKind(testRefs(), cacheOf[kongUpstream]("kongupstreams")).Desired(t.Context(), target, controller.Placement{ControlPlaneID: "cp-id", ParentID: "up-id"})
	if err != nil {
		t.Fatal(err)
	}
	if deref(body.Target) != "10.0.0.1:8080" || deref(body.Weight) != 50 || deref(body.Upstream.GetID()) != "up-id" {
		t.Fatalf("body %+v", body)
	}
	if !slices.Contains(body.Tags, "team:a") || !slices.Contains(body.Tags, controller.UIDTag(target)) {
		t.Errorf("tags %v", body.Tags)
	}
}

func TestTargetMatchAppliesKonnectDefaults(t *testing.T) {
	desired := components.TargetWithoutParents{Target: ptr("10.0.0.1"), Weight: ptr[int64](100)}
	cases := []struct {
		name   string
		actual components.Target
		want   []string
	}{
		{"Konnect added the default port and weight", components.Target{Target: ptr("10.0.0.1:8000")}, nil},
		{"another port", components.Target{Target: ptr("10.0.0.1:80"), Weight: ptr[int64](100)}, []string{"target"}},
		{"another weight", components.Target{Target: ptr("10.0.0.1:8000"), Weight: ptr[int64](7)}, []string{"weight"}},
	}
	for _, tc := range cases {
		if got := targetMatches(desired, &tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTargetAddressesGetKonnectsDefaultPort(t *testing.T) {
	cases := map[string]string{
		"10.0.0.1":         "10.0.0.1:8000",
		"10.0.0.1:80":      "10.0.0.1:80",
		"a.example.com":    "a.example.com:8000",
		"a.example.com:81": "a.example.com:81",
		"[::1]":            "[::1]:8000",
		"[::1]:9000":       "[::1]:9000",
	}
	for in, want := range cases {
		if got := withDefaultPort(in); got != want {
			t.Errorf("withDefaultPort(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTargetCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	p.ParentID = created(t, s, p, upstreamCalls, components.Upstream{Name: "up.internal"})
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, targetCalls,
		components.TargetWithoutParents{Target: ptr("10.0.0.1:80"), Upstream: &components.TargetWithoutParentsUpstream{ID: &p.ParentID}, Tags: []string{uid}},
		components.TargetWithoutParents{Target: ptr("10.0.0.1:80"), Weight: ptr[int64](5), Tags: []string{uid}}, uid)
}
