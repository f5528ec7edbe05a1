package tree

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// TestThePageOfABlockedPortalNamesTheRootCause: a page waits for its
// portal, which waits for an auth configuration whose token Konnect
// rejects; a config store waits for its control plane.
func TestThePageOfABlockedPortalNamesTheRootCause(t *testing.T) {
	portal := &konnectv1alpha1.Portal{ObjectMeta: objectMeta("dev")}
	portal.Spec.KonnectConfiguration = konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: "konnect"}}
	portal.Spec.APISpec.Name = "dev"
	portal.Status.Conditions = []metav1.Condition{withGeneration(blocked)}
	page := &konnectv1alpha1.PortalPage{ObjectMeta: objectMeta("start")}
	page.Spec.PortalRef = commonv1alpha1.ObjectRef{Type: commonv1alpha1.ObjectRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: "dev"}}
	page.Spec.APISpec = konnectv1alpha1.PortalPageAPISpec{Slug: "start", Content: "# Start"}
	page.Status.Conditions = []metav1.Condition{withGeneration(blocked)}
	store := &konnectv1alpha1.KonnectConfigStore{ObjectMeta: objectMeta("secrets")}
	store.Spec.ControlPlaneRef = commonv1alpha1.ObjectRef{Type: commonv1alpha1.ObjectRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: "prod"}}
	store.Status.Conditions = []metav1.Condition{withGeneration(waiting)}
	objects := read(t,
		authConfig("konnect", controller.FalseCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, rejected)),
		portal, page, store,
	)
	for _, tc := range []struct{ object, cause string }{
		{"portalpage/start", "PortalPage start waits for Portal dev, which waits for KonnectAPIAuthConfiguration konnect: " + rejected},
		{"konnectconfigstore/secrets", "KonnectConfigStore secrets waits for KonnectGatewayControlPlane prod, which does not exist"},
	} {
		if got := asked(t, objects, tc.object)[0]; got.Cause != tc.cause {
			t.Errorf("%s: cause %q, want %q", tc.object, got.Cause, tc.cause)
		}
	}
}

func withGeneration(c metav1.Condition) metav1.Condition {
	c.ObservedGeneration = 1
	return c
}
