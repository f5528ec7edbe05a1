package operator

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// groupVersion converts an API package's GroupVersion.
func groupVersion(gv metav1.GroupVersion) schema.GroupVersion {
	return schema.GroupVersion{Group: gv.Group, Version: gv.Version}
}

// resource is a kind the operator caches and writes: its API resource, its
// scope, and how to make an empty object, which is all a typed cache and a
// typed client need (see informerOf and clientsOf).
type resource[T controller.Object] struct {
	gvr     schema.GroupVersionResource
	cluster bool
	// everyShard: the kind belongs to no shard, and every shard reads all
	// of its objects (see everyShard).
	everyShard bool
	empty      func() T
}

// everyShard marks a kind whose objects belong to no shard: they only
// allow or configure what other objects do, and objects of several shards
// may read the same one.
func everyShard[T controller.Object](r resource[T]) resource[T] {
	r.everyShard = true
	return r
}

// pointerTo constrains T to *O, so that a resource can make an empty O.
type pointerTo[O any] interface {
	*O
	controller.Object
}

func namespacedResource[O any, T pointerTo[O]](gv schema.GroupVersion, plural string) resource[T] {
	return resource[T]{gvr: gv.WithResource(plural), empty: func() T { return new(O) }}
}

func clusterResource[O any, T pointerTo[O]](gv schema.GroupVersion, plural string) resource[T] {
	r := namespacedResource[O, T](gv, plural)
	r.cluster = true
	return r
}

// The kinds the operator reads and reconciles.
var (
	authConfigs     = namespacedResource[konnectv1alpha1.KonnectAPIAuthConfiguration](groupVersion(konnectv1alpha1.GroupVersion), "konnectapiauthconfigurations")
	controlPlanes   = namespacedResource[konnectv1alpha2.KonnectGatewayControlPlane](groupVersion(konnectv1alpha2.GroupVersion), "konnectgatewaycontrolplanes")
	referenceGrants = everyShard(namespacedResource[configurationv1alpha1.KongReferenceGrant](groupVersion(configurationv1alpha1.GroupVersion), "kongreferencegrants"))

	kongServices       = namespacedResource[configurationv1alpha1.KongService](groupVersion(configurationv1alpha1.GroupVersion), "kongservices")
	kongRoutes         = namespacedResource[configurationv1alpha1.KongRoute](groupVersion(configurationv1alpha1.GroupVersion), "kongroutes")
	kongConsumers      = namespacedResource[configurationv1.KongConsumer](groupVersion(configurationv1.GroupVersion), "kongconsumers")
	kongConsumerGroups = namespacedResource[configurationv1beta1.KongConsumerGroup](groupVersion(configurationv1beta1.GroupVersion), "kongconsumergroups")
	kongPlugins        = namespacedResource[configurationv1.KongPlugin](groupVersion(configurationv1.GroupVersion), "kongplugins")
	kongClusterPlugins = everyShard(clusterResource[configurationv1.KongClusterPlugin](groupVersion(configurationv1.GroupVersion), "kongclusterplugins"))
	kongPluginBindings = namespacedResource[configurationv1alpha1.KongPluginBinding](groupVersion(configurationv1alpha1.GroupVersion), "kongpluginbindings")

	kongUpstreams      = namespacedResource[configurationv1alpha1.KongUpstream](groupVersion(configurationv1alpha1.GroupVersion), "kongupstreams")
	kongTargets        = namespacedResource[configurationv1alpha1.KongTarget](groupVersion(configurationv1alpha1.GroupVersion), "kongtargets")
	kongCertificates   = namespacedResource[configurationv1alpha1.KongCertificate](groupVersion(configurationv1alpha1.GroupVersion), "kongcertificates")
	kongCACertificates = namespacedResource[configurationv1alpha1.KongCACertificate](groupVersion(configurationv1alpha1.GroupVersion), "kongcacertificates")
	kongSNIs           = namespacedResource[configurationv1alpha1.KongSNI](groupVersion(configurationv1alpha1.GroupVersion), "kongsnis")
	kongKeys           = namespacedResource[configurationv1alpha1.KongKey](groupVersion(configurationv1alpha1.GroupVersion), "kongkeys")
	kongKeySets        = namespacedResource[configurationv1alpha1.KongKeySet](groupVersion(configurationv1alpha1.GroupVersion), "kongkeysets")
	kongVaults         = clusterResource[configurationv1alpha1.KongVault](groupVersion(configurationv1alpha1.GroupVersion), "kongvaults")
	kongDPCertificates = namespacedResource[configurationv1alpha1.KongDataPlaneClientCertificate](groupVersion(configurationv1alpha1.GroupVersion), "kongdataplaneclientcertificates")

	kongBasicAuths = namespacedResource[configurationv1alpha1.KongCredentialBasicAuth](groupVersion(configurationv1alpha1.GroupVersion), "kongcredentialbasicauths")
	kongAPIKeys    = namespacedResource[configurationv1alpha1.KongCredentialAPIKey](groupVersion(configurationv1alpha1.GroupVersion), "kongcredentialapikeys")
	kongACLs       = namespacedResource[configurationv1alpha1.KongCredentialACL](groupVersion(configurationv1alpha1.GroupVersion), "kongcredentialacls")
	kongJWTs       = namespacedResource[configurationv1alpha1.KongCredentialJWT](groupVersion(configurationv1alpha1.GroupVersion), "kongcredentialjwts")
	kongHMACs      = namespacedResource[configurationv1alpha1.KongCredentialHMAC](groupVersion(configurationv1alpha1.GroupVersion), "kongcredentialhmacs")

	cloudNetworks              = namespacedResource[konnectv1alpha1.KonnectCloudGatewayNetwork](groupVersion(konnectv1alpha1.GroupVersion), "konnectcloudgatewaynetworks")
	cloudTransitGateways       = namespacedResource[konnectv1alpha1.KonnectCloudGatewayTransitGateway](groupVersion(konnectv1alpha1.GroupVersion), "konnectcloudgatewaytransitgateways")
	cloudDPGroupConfigurations = namespacedResource[konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfiguration](groupVersion(konnectv1alpha1.GroupVersion), "konnectcloudgatewaydataplanegroupconfigurations")

	configStores = namespacedResource[konnectv1alpha1.KonnectConfigStore](groupVersion(konnectv1alpha1.GroupVersion), "konnectconfigstores")

	portals                 = namespacedResource[konnectv1alpha1.Portal](groupVersion(konnectv1alpha1.GroupVersion), "portals")
	portalPages             = namespacedResource[konnectv1alpha1.PortalPage](groupVersion(konnectv1alpha1.GroupVersion), "portalpages")
	portalTeams             = namespacedResource[konnectv1alpha1.PortalTeam](groupVersion(konnectv1alpha1.GroupVersion), "portalteams")
	portalCustomizations    = namespacedResource[konnectv1alpha1.PortalCustomization](groupVersion(konnectv1alpha1.GroupVersion), "portalcustomizations")
	portalCustomDomains     = namespacedResource[konnectv1alpha1.PortalCustomDomain](groupVersion(konnectv1alpha1.GroupVersion), "portalcustomdomains")
	portalEmailConfigs      = namespacedResource[konnectv1alpha1.PortalEmailConfig](groupVersion(konnectv1alpha1.GroupVersion), "portalemailconfigs")
	portalIdentityProviders = namespacedResource[konnectv1alpha1.PortalIdentityProviderRequest](groupVersion(konnectv1alpha1.GroupVersion), "portalidentityproviderrequests")
	portalIPAllowLists      = namespacedResource[konnectv1alpha1.PortalIPAllowList](groupVersion(konnectv1alpha1.GroupVersion), "portalipallowlists")

	eventGateways           = namespacedResource[konnectv1alpha1.KonnectEventGateway](groupVersion(konnectv1alpha1.GroupVersion), "konnecteventgateways")
	egBackendClusters       = namespacedResource[configurationv1alpha1.EventGatewayBackendCluster](groupVersion(configurationv1alpha1.GroupVersion), "eventgatewaybackendclusters")
	egDataPlaneCertificates = namespacedResource[configurationv1alpha1.EventGatewayDataPlaneCertificate](groupVersion(configurationv1alpha1.GroupVersion), "eventgatewaydataplanecertificates")
	egListeners             = namespacedResource[configurationv1alpha1.EventGatewayListener](groupVersion(configurationv1alpha1.GroupVersion), "eventgatewaylisteners")
	egListenerPolicies      = namespacedResource[configurationv1alpha1.EventGatewayListenerPolicy](groupVersion(configurationv1alpha1.GroupVersion), "eventgatewaylistenerpolicies")
	egSchemaRegistries      = namespacedResource[configurationv1alpha1.EventGatewaySchemaRegistry](groupVersion(configurationv1alpha1.GroupVersion), "eventgatewayschemaregistries")
	egVirtualClusters       = namespacedResource[configurationv1alpha1.EventGatewayVirtualCluster](groupVersion(configurationv1alpha1.GroupVersion), "eventgatewayvirtualclusters")
	egClusterPolicies       = namespacedResource[configurationv1alpha1.EventGatewayVirtualClusterPolicy](groupVersion(configurationv1alpha1.GroupVersion), "eventgatewayvirtualclusterpolicies")
	egConsumePolicies       = namespacedResource[configurationv1alpha1.EventGatewayVirtualClusterConsumePolicy](groupVersion(configurationv1alpha1.GroupVersion), "eventgatewayvirtualclusterconsumepolicies")
	egProducePolicies       = namespacedResource[configurationv1alpha1.EventGatewayVirtualClusterProducePolicy](groupVersion(configurationv1alpha1.GroupVersion), "eventgatewayvirtualclusterproducepolicies")
)
