package inventory

import (
	"context"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

// Kind is one of the operator's kinds as kubectl konnect reads it from the
// cluster.
type Kind struct {
	// Name is the kind (KongService); Plural its resource (kongservices);
	// Short the short names kubectl takes for it.
	Name, Plural string
	Short        []string
	// Entity kinds stand for Konnect entities; the others are only read to
	// resolve references.
	Entity bool
	// Cluster kinds are cluster-scoped.
	Cluster bool
	// checked: the operator reports on the kind's objects although they
	// stand for no entity (an auth configuration's token is checked).
	checked bool
	// list lists the kind's objects of a namespace ("" for a
	// cluster-scoped kind).
	list func(ctx context.Context, cs versioned.Interface, namespace string) ([]runtime.Object, error)
}

// Matches reports whether what a user typed (KongService, kongservices,
// kongservice, kc…) names the kind.
func (k Kind) Matches(typed string) bool {
	typed = strings.ToLower(typed)
	if typed == strings.ToLower(k.Name) || typed == k.Plural || typed+"s" == k.Plural {
		return true
	}
	for _, s := range k.Short {
		if typed == s {
			return true
		}
	}
	return false
}

// ReportedOn reports whether the operator writes the status of the kind's
// objects; the others (KongPlugins, grants) are reported on by the objects
// that use them.
func (k Kind) ReportedOn() bool { return k.Entity || k.checked }

// KindOfResource returns the kind whose resource (plural) is resource.
func KindOfResource(resource string) (Kind, bool) {
	for _, k := range kinds {
		if k.Plural == resource {
			return k, true
		}
	}
	return Kind{}, false
}

// pointers returns the addresses of items as objects.
func pointers[T any, PT interface {
	*T
	runtime.Object
}](items []T) []runtime.Object {
	out := make([]runtime.Object, 0, len(items))
	for i := range items {
		out = append(out, PT(&items[i]))
	}
	return out
}

// listed adapts a typed List call.
func listed[L any, T any, PT interface {
	*T
	runtime.Object
}](ctx context.Context, list func(context.Context, metav1.ListOptions) (L, error), items func(L) []T) ([]runtime.Object, error) {
	l, err := list(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return pointers[T, PT](items(l)), nil
}

// kinds are the kinds kubectl konnect reads, the entity kinds first.
var kinds = slices.Concat(gatewayKinds, newerAPIKinds, referencedKinds)

// gatewayKinds are the entity kinds of control planes, their entities and
// Dedicated Cloud Gateways.
var gatewayKinds = []Kind{
	{Name: "KonnectGatewayControlPlane", Plural: "konnectgatewaycontrolplanes", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha2().KonnectGatewayControlPlanes(ns).List, func(l *konnectv1alpha2.KonnectGatewayControlPlaneList) []konnectv1alpha2.KonnectGatewayControlPlane {
			return l.Items
		})
	}},
	{Name: "KongService", Plural: "kongservices", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongServices(ns).List, func(l *configurationv1alpha1.KongServiceList) []configurationv1alpha1.KongService { return l.Items })
	}},
	{Name: "KongRoute", Plural: "kongroutes", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongRoutes(ns).List, func(l *configurationv1alpha1.KongRouteList) []configurationv1alpha1.KongRoute { return l.Items })
	}},
	{Name: "KongUpstream", Plural: "kongupstreams", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongUpstreams(ns).List, func(l *configurationv1alpha1.KongUpstreamList) []configurationv1alpha1.KongUpstream { return l.Items })
	}},
	{Name: "KongTarget", Plural: "kongtargets", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongTargets(ns).List, func(l *configurationv1alpha1.KongTargetList) []configurationv1alpha1.KongTarget { return l.Items })
	}},
	{Name: "KongCertificate", Plural: "kongcertificates", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongCertificates(ns).List, func(l *configurationv1alpha1.KongCertificateList) []configurationv1alpha1.KongCertificate {
			return l.Items
		})
	}},
	{Name: "KongCACertificate", Plural: "kongcacertificates", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongCACertificates(ns).List, func(l *configurationv1alpha1.KongCACertificateList) []configurationv1alpha1.KongCACertificate {
			return l.Items
		})
	}},
	{Name: "KongSNI", Plural: "kongsnis", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongSNIs(ns).List, func(l *configurationv1alpha1.KongSNIList) []configurationv1alpha1.KongSNI { return l.Items })
	}},
	{Name: "KongConsumer", Plural: "kongconsumers", Short: []string{"kc"}, Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1().KongConsumers(ns).List, func(l *configurationv1.KongConsumerList) []configurationv1.KongConsumer { return l.Items })
	}},
	{Name: "KongConsumerGroup", Plural: "kongconsumergroups", Short: []string{"kcg"}, Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1beta1().KongConsumerGroups(ns).List, func(l *configurationv1beta1.KongConsumerGroupList) []configurationv1beta1.KongConsumerGroup {
			return l.Items
		})
	}},
	{Name: "KongCredentialBasicAuth", Plural: "kongcredentialbasicauths", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongCredentialBasicAuths(ns).List, func(l *configurationv1alpha1.KongCredentialBasicAuthList) []configurationv1alpha1.KongCredentialBasicAuth {
			return l.Items
		})
	}},
	{Name: "KongCredentialAPIKey", Plural: "kongcredentialapikeys", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongCredentialAPIKeys(ns).List, func(l *configurationv1alpha1.KongCredentialAPIKeyList) []configurationv1alpha1.KongCredentialAPIKey {
			return l.Items
		})
	}},
	{Name: "KongCredentialACL", Plural: "kongcredentialacls", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongCredentialACLs(ns).List, func(l *configurationv1alpha1.KongCredentialACLList) []configurationv1alpha1.KongCredentialACL {
			return l.Items
		})
	}},
	{Name: "KongCredentialJWT", Plural: "kongcredentialjwts", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongCredentialJWTs(ns).List, func(l *configurationv1alpha1.KongCredentialJWTList) []configurationv1alpha1.KongCredentialJWT {
			return l.Items
		})
	}},
	{Name: "KongCredentialHMAC", Plural: "kongcredentialhmacs", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongCredentialHMACs(ns).List, func(l *configurationv1alpha1.KongCredentialHMACList) []configurationv1alpha1.KongCredentialHMAC {
			return l.Items
		})
	}},
	{Name: "KongPluginBinding", Plural: "kongpluginbindings", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongPluginBindings(ns).List, func(l *configurationv1alpha1.KongPluginBindingList) []configurationv1alpha1.KongPluginBinding {
			return l.Items
		})
	}},
	{Name: "KongKey", Plural: "kongkeys", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongKeys(ns).List, func(l *configurationv1alpha1.KongKeyList) []configurationv1alpha1.KongKey { return l.Items })
	}},
	{Name: "KongKeySet", Plural: "kongkeysets", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongKeySets(ns).List, func(l *configurationv1alpha1.KongKeySetList) []configurationv1alpha1.KongKeySet { return l.Items })
	}},
	{Name: "KongVault", Plural: "kongvaults", Short: []string{"kv"}, Entity: true, Cluster: true, list: func(ctx context.Context, cs versioned.Interface, _ string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongVaults().List, func(l *configurationv1alpha1.KongVaultList) []configurationv1alpha1.KongVault { return l.Items })
	}},
	{Name: "KongDataPlaneClientCertificate", Plural: "kongdataplaneclientcertificates", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongDataPlaneClientCertificates(ns).List, func(l *configurationv1alpha1.KongDataPlaneClientCertificateList) []configurationv1alpha1.KongDataPlaneClientCertificate {
			return l.Items
		})
	}},
	{Name: "KonnectCloudGatewayNetwork", Plural: "konnectcloudgatewaynetworks", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().KonnectCloudGatewayNetworks(ns).List, func(l *konnectv1alpha1.KonnectCloudGatewayNetworkList) []konnectv1alpha1.KonnectCloudGatewayNetwork {
			return l.Items
		})
	}},
	{Name: "KonnectCloudGatewayTransitGateway", Plural: "konnectcloudgatewaytransitgateways", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().KonnectCloudGatewayTransitGateways(ns).List, func(l *konnectv1alpha1.KonnectCloudGatewayTransitGatewayList) []konnectv1alpha1.KonnectCloudGatewayTransitGateway {
			return l.Items
		})
	}},
	{Name: "KonnectCloudGatewayDataPlaneGroupConfiguration", Plural: "konnectcloudgatewaydataplanegroupconfigurations", Entity: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().KonnectCloudGatewayDataPlaneGroupConfigurations(ns).List, func(l *konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfigurationList) []konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfiguration {
			return l.Items
		})
	}},
}

// referencedKinds are the kinds only read to resolve references.
var referencedKinds = []Kind{
	{Name: "KonnectAPIAuthConfiguration", Plural: "konnectapiauthconfigurations", checked: true, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(ns).List, func(l *konnectv1alpha1.KonnectAPIAuthConfigurationList) []konnectv1alpha1.KonnectAPIAuthConfiguration {
			return l.Items
		})
	}},
	{Name: "KongPlugin", Plural: "kongplugins", Short: []string{"kp"}, list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1().KongPlugins(ns).List, func(l *configurationv1.KongPluginList) []configurationv1.KongPlugin { return l.Items })
	}},
	{Name: "KongClusterPlugin", Plural: "kongclusterplugins", Short: []string{"kcp"}, Cluster: true, list: func(ctx context.Context, cs versioned.Interface, _ string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1().KongClusterPlugins().List, func(l *configurationv1.KongClusterPluginList) []configurationv1.KongClusterPlugin { return l.Items })
	}},
	{Name: "KongReferenceGrant", Plural: "kongreferencegrants", list: func(ctx context.Context, cs versioned.Interface, ns string) ([]runtime.Object, error) {
		return listed(ctx, cs.ConfigurationV1alpha1().KongReferenceGrants(ns).List, func(l *configurationv1alpha1.KongReferenceGrantList) []configurationv1alpha1.KongReferenceGrant {
			return l.Items
		})
	}},
}
