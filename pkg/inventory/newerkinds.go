package inventory

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// newerAPIKinds are the entity kinds of Konnect's newer APIs: config
// stores, the Dev Portal and the Event Gateway.
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
	{Name: "KonnectEventGateway", Plural: "konnecteventgateways", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().KonnectEventGateways(ns).List, func(l *konnectv1alpha1.KonnectEventGatewayList) []konnectv1alpha1.KonnectEventGateway { return l.Items })
	}},
	{Name: "EventGatewayBackendCluster", Plural: "eventgatewaybackendclusters", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().EventGatewayBackendClusters(ns).List, func(l *configurationv1alpha1.EventGatewayBackendClusterList) []configurationv1alpha1.EventGatewayBackendCluster {
			return l.Items
		})
	}},
	{Name: "EventGatewayDataPlaneCertificate", Plural: "eventgatewaydataplanecertificates", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().EventGatewayDataPlaneCertificates(ns).List, func(l *configurationv1alpha1.EventGatewayDataPlaneCertificateList) []configurationv1alpha1.EventGatewayDataPlaneCertificate {
			return l.Items
		})
	}},
	{Name: "EventGatewayListener", Plural: "eventgatewaylisteners", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().EventGatewayListeners(ns).List, func(l *configurationv1alpha1.EventGatewayListenerList) []configurationv1alpha1.EventGatewayListener {
			return l.Items
		})
	}},
	{Name: "EventGatewayListenerPolicy", Plural: "eventgatewaylistenerpolicies", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().EventGatewayListenerPolicies(ns).List, func(l *configurationv1alpha1.EventGatewayListenerPolicyList) []configurationv1alpha1.EventGatewayListenerPolicy {
			return l.Items
		})
	}},
	{Name: "EventGatewaySchemaRegistry", Plural: "eventgatewayschemaregistries", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().EventGatewaySchemaRegistries(ns).List, func(l *configurationv1alpha1.EventGatewaySchemaRegistryList) []configurationv1alpha1.EventGatewaySchemaRegistry {
			return l.Items
		})
	}},
	{Name: "EventGatewayVirtualCluster", Plural: "eventgatewayvirtualclusters", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().EventGatewayVirtualClusters(ns).List, func(l *configurationv1alpha1.EventGatewayVirtualClusterList) []configurationv1alpha1.EventGatewayVirtualCluster {
			return l.Items
		})
	}},
	{Name: "EventGatewayVirtualClusterPolicy", Plural: "eventgatewayvirtualclusterpolicies", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().EventGatewayVirtualClusterPolicies(ns).List, func(l *configurationv1alpha1.EventGatewayVirtualClusterPolicyList) []configurationv1alpha1.EventGatewayVirtualClusterPolicy {
			return l.Items
		})
	}},
	{Name: "EventGatewayVirtualClusterConsumePolicy", Plural: "eventgatewayvirtualclusterconsumepolicies", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().EventGatewayVirtualClusterConsumePolicies(ns).List, func(l *configurationv1alpha1.EventGatewayVirtualClusterConsumePolicyList) []configurationv1alpha1.EventGatewayVirtualClusterConsumePolicy {
			return l.Items
		})
	}},
	{Name: "EventGatewayVirtualClusterProducePolicy", Plural: "eventgatewayvirtualclusterproducepolicies", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().EventGatewayVirtualClusterProducePolicies(ns).List, func(l *configurationv1alpha1.EventGatewayVirtualClusterProducePolicyList) []configurationv1alpha1.EventGatewayVirtualClusterProducePolicy {
			return l.Items
		})
	}},
}
