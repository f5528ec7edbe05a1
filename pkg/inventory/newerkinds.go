package inventory

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// newerAPIKinds are the entity kinds of Konnect's newer APIs: config
// stores and the Dev Portal.
var newerAPIKinds = []Kind{
	{Name: "KonnectConfigStore", Plural: "konnectconfigstores", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().KonnectConfigStores(ns).List, func(l *konnectv1alpha1.KonnectConfigStoreList) []konnectv1alpha1.KonnectConfigStore {
			return l.Items
		})
	}},
	{Name: "Portal", Plural: "portals", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().Portals(ns).List, func(l *konnectv1alpha1.PortalList) []konnectv1alpha1.Portal { return l.Items })
	}},
	{Name: "PortalPage", Plural: "portalpages", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().PortalPages(ns).List, func(l *konnectv1alpha1.PortalPageList) []konnectv1alpha1.PortalPage { return l.Items })
	}},
	{Name: "PortalTeam", Plural: "portalteams", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().PortalTeams(ns).List, func(l *konnectv1alpha1.PortalTeamList) []konnectv1alpha1.PortalTeam { return l.Items })
	}},
	{Name: "PortalCustomization", Plural: "portalcustomizations", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().PortalCustomizations(ns).List, func(l *konnectv1alpha1.PortalCustomizationList) []konnectv1alpha1.PortalCustomization {
			return l.Items
		})
	}},
	{Name: "PortalCustomDomain", Plural: "portalcustomdomains", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().PortalCustomDomains(ns).List, func(l *konnectv1alpha1.PortalCustomDomainList) []konnectv1alpha1.PortalCustomDomain {
			return l.Items
		})
	}},
	{Name: "PortalEmailConfig", Plural: "portalemailconfigs", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().PortalEmailConfigs(ns).List, func(l *konnectv1alpha1.PortalEmailConfigList) []konnectv1alpha1.PortalEmailConfig {
			return l.Items
		})
	}},
	{Name: "PortalIdentityProviderRequest", Plural: "portalidentityproviderrequests", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().PortalIdentityProviderRequests(ns).List, func(l *konnectv1alpha1.PortalIdentityProviderRequestList) []konnectv1alpha1.PortalIdentityProviderRequest {
			return l.Items
		})
	}},
	{Name: "PortalIPAllowList", Plural: "portalipallowlists", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().PortalIPAllowLists(ns).List, func(l *konnectv1alpha1.PortalIPAllowListList) []konnectv1alpha1.PortalIPAllowList {
			return l.Items
		})
	}},
}
