package catalog

import (
	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// NewCatalog builds every kind over caches holding objects: the typed
// objects of the operator's kinds, KongPlugins, KongReferenceGrants and the
// Secrets they read (tokens, certificates, credentials), as a List of the
// cluster returns them. Objects of other types are ignored.
func NewCatalog(objects []runtime.Object) *Catalog {
	refs := &entities.Refs{
		ControlPlanes: filled[*konnectv1alpha2.KonnectGatewayControlPlane](objects, "konnectgatewaycontrolplanes"),
		AuthConfigs:   filled[*konnectv1alpha1.KonnectAPIAuthConfiguration](objects, "konnectapiauthconfigurations"),
		Secrets:       filled[*corev1.Secret](objects, "secrets"),
		Grants:        filled[*configurationv1alpha1.KongReferenceGrant](objects, "kongreferencegrants"),
		Networks:      filled[*konnectv1alpha1.KonnectCloudGatewayNetwork](objects, "konnectcloudgatewaynetworks"),
	}
	services := filled[*configurationv1alpha1.KongService](objects, "kongservices")
	routes := filled[*configurationv1alpha1.KongRoute](objects, "kongroutes")
	upstreams := filled[*configurationv1alpha1.KongUpstream](objects, "kongupstreams")
	certificates := filled[*configurationv1alpha1.KongCertificate](objects, "kongcertificates")
	caCertificates := filled[*configurationv1alpha1.KongCACertificate](objects, "kongcacertificates")
	keySets := filled[*configurationv1alpha1.KongKeySet](objects, "kongkeysets")
	consumers := filled[*configurationv1.KongConsumer](objects, "kongconsumers")
	groups := filled[*configurationv1beta1.KongConsumerGroup](objects, "kongconsumergroups")
	basicAuth := entities.BasicAuthKind(credentialDeps[*configurationv1alpha1.KongCredentialBasicAuth](refs, consumers, objects, "kongcredentialbasicauths"))
	apiKey := entities.APIKeyKind(credentialDeps[*configurationv1alpha1.KongCredentialAPIKey](refs, consumers, objects, "kongcredentialapikeys"))
	acl := entities.ACLKind(credentialDeps[*configurationv1alpha1.KongCredentialACL](refs, consumers, objects, "kongcredentialacls"))
	jwt := entities.JWTKind(credentialDeps[*configurationv1alpha1.KongCredentialJWT](refs, consumers, objects, "kongcredentialjwts"))
	hmac := entities.HMACKind(credentialDeps[*configurationv1alpha1.KongCredentialHMAC](refs, consumers, objects, "kongcredentialhmacs"))
	credentials := []entities.CredentialKind{basicAuth.CredentialKind, apiKey.CredentialKind, acl.CredentialKind, jwt.CredentialKind, hmac.CredentialKind}
	portals := filled[*konnectv1alpha1.Portal](objects, "portals")
	configStores := filled[*konnectv1alpha1.KonnectConfigStore](objects, "konnectconfigstores")
	eg := entities.EventGatewayObjects{
		Gateways:         filled[*konnectv1alpha1.KonnectEventGateway](objects, "konnecteventgateways"),
		BackendClusters:  filled[*configurationv1alpha1.EventGatewayBackendCluster](objects, "eventgatewaybackendclusters"),
		Listeners:        filled[*configurationv1alpha1.EventGatewayListener](objects, "eventgatewaylisteners"),
		VirtualClusters:  filled[*configurationv1alpha1.EventGatewayVirtualCluster](objects, "eventgatewayvirtualclusters"),
		SchemaRegistries: filled[*configurationv1alpha1.EventGatewaySchemaRegistry](objects, "eventgatewayschemaregistries"),
	}
	bindings := entities.PluginBindingSources{
		Plugins:        filled[*configurationv1.KongPlugin](objects, "kongplugins"),
		ClusterPlugins: filled[*configurationv1.KongClusterPlugin](objects, "kongclusterplugins"),
		Services:       services, Routes: routes, Consumers: consumers, ConsumerGroups: groups,
	}
	return &Catalog{refs: refs, entries: []comparer{
		controlPlaneEntry{kind: entities.ControlPlaneKind(refs)},
		adoptingEntry[*configurationv1alpha1.KongService, components.Service]{kind: entities.ServiceKind(refs, certificates, caCertificates)},
		adoptingEntry[*configurationv1alpha1.KongRoute, components.Route]{kind: entities.RouteKind(refs, services)},
		adoptingEntry[*configurationv1alpha1.KongUpstream, components.Upstream]{kind: entities.UpstreamKind(refs, certificates)},
		adoptingEntry[*configurationv1alpha1.KongTarget, components.TargetWithoutParents]{kind: entities.TargetKind(refs, upstreams)},
		adoptingEntry[*configurationv1alpha1.KongCertificate, components.CertificateRequest]{
			kind: entities.CertificateKind(refs), hidden: certificateHidden,
		},
		adoptingEntry[*configurationv1alpha1.KongCACertificate, components.CACertificate]{
			kind: entities.CACertificateKind(refs), hidden: caCertificateHidden,
		},
		adoptingEntry[*configurationv1alpha1.KongSNI, components.SNIWithoutParents]{kind: entities.SNIKind(refs, certificates)},
		adoptingEntry[*configurationv1.KongConsumer, entities.ConsumerDesired]{
			kind: entities.ConsumerKind(refs, groups, credentials), values: consumerValues,
		},
		adoptingEntry[*configurationv1beta1.KongConsumerGroup, components.ConsumerGroup]{kind: entities.ConsumerGroupKind(refs)},
		adoptingEntry[*configurationv1alpha1.KongCredentialBasicAuth, components.BasicAuthWithoutParents]{
			kind: basicAuth.Kind, secret: []string{"password"}, hidden: credentialHidden[*configurationv1alpha1.KongCredentialBasicAuth], extra: basicAuthExtra,
		},
		adoptingEntry[*configurationv1alpha1.KongCredentialAPIKey, components.KeyAuthWithoutParents]{
			kind: apiKey.Kind, secret: []string{"key"}, hidden: credentialHidden[*configurationv1alpha1.KongCredentialAPIKey],
		},
		adoptingEntry[*configurationv1alpha1.KongCredentialACL, components.ACLWithoutParents]{
			kind: acl.Kind, hidden: credentialHidden[*configurationv1alpha1.KongCredentialACL],
		},
		adoptingEntry[*configurationv1alpha1.KongCredentialJWT, components.JWTWithoutParents]{
			kind: jwt.Kind, secret: []string{"secret"}, hidden: credentialHidden[*configurationv1alpha1.KongCredentialJWT],
		},
		adoptingEntry[*configurationv1alpha1.KongCredentialHMAC, components.HMACAuthWithoutParents]{
			kind: hmac.Kind, secret: []string{"secret"}, hidden: credentialHidden[*configurationv1alpha1.KongCredentialHMAC],
		},
		adoptingEntry[*configurationv1alpha1.KongPluginBinding, components.Plugin]{
			kind: entities.PluginBindingKind(refs, bindings), hidden: bindingHidden(bindings),
		},
		adoptingEntry[*configurationv1alpha1.KongKey, components.Key]{
			kind: entities.KeyKind(refs, keySets), secret: []string{"pem", "jwk"},
		},
		adoptingEntry[*configurationv1alpha1.KongKeySet, components.KeySet]{kind: entities.KeySetKind(refs)},
		adoptingEntry[*configurationv1alpha1.KongVault, components.Vault]{kind: entities.VaultKind(refs, configStores, func(string) bool { return true })},
		adoptingEntry[*konnectv1alpha1.KonnectConfigStore, components.CreateConfigStore]{kind: entities.ConfigStoreKind(refs)},
		adoptingEntry[*konnectv1alpha1.Portal, components.CreatePortal]{kind: entities.PortalKind(refs)},
		adoptingEntry[*konnectv1alpha1.PortalPage, components.CreatePortalPageRequest]{kind: entities.PortalPageKind(refs, portals)},
		adoptingEntry[*konnectv1alpha1.PortalTeam, components.PortalCreateTeamRequest]{kind: entities.PortalTeamKind(refs, portals)},
		adoptingEntry[*konnectv1alpha1.PortalCustomization, components.PortalCustomization]{kind: entities.PortalCustomizationKind(refs, portals)},
		adoptingEntry[*konnectv1alpha1.PortalCustomDomain, components.CreatePortalCustomDomainRequest]{
			kind: entities.PortalCustomDomainKind(refs, portals), secret: []string{"ssl"},
		},
		adoptingEntry[*konnectv1alpha1.PortalEmailConfig, components.PostPortalEmailConfig]{kind: entities.PortalEmailConfigKind(refs, portals)},
		adoptingEntry[*konnectv1alpha1.PortalIdentityProviderRequest, components.PortalCreateIdentityProvider]{
			kind: entities.PortalIdentityProviderKind(refs, portals), secret: []string{"config"},
		},
		adoptingEntry[*konnectv1alpha1.PortalIPAllowList, components.CreatePortalSourceIPRestriction]{kind: entities.PortalIPAllowListKind(refs, portals)},
		adoptingEntry[*konnectv1alpha1.KonnectEventGateway, map[string]any]{kind: entities.EventGatewayKind(refs)},
		adoptingEntry[*configurationv1alpha1.EventGatewayBackendCluster, map[string]any]{
			kind: entities.EventGatewayBackendClusterKind(refs, eg), secret: []string{"authentication", "tls"},
		},
		adoptingEntry[*configurationv1alpha1.EventGatewayListener, map[string]any]{kind: entities.EventGatewayListenerKind(refs, eg)},
		adoptingEntry[*configurationv1alpha1.EventGatewaySchemaRegistry, map[string]any]{
			kind: entities.EventGatewaySchemaRegistryKind(refs, eg), secret: []string{"config"},
		},
		adoptingEntry[*configurationv1alpha1.EventGatewayDataPlaneCertificate, map[string]any]{kind: entities.EventGatewayDataPlaneCertificateKind(refs, eg)},
		adoptingEntry[*configurationv1alpha1.EventGatewayVirtualCluster, map[string]any]{
			kind: entities.EventGatewayVirtualClusterKind(refs, eg), secret: []string{"authentication"},
		},
		adoptingEntry[*configurationv1alpha1.EventGatewayListenerPolicy, map[string]any]{
			kind: entities.EventGatewayListenerPolicyKind(refs, eg), secret: []string{"config"},
		},
		adoptingEntry[*configurationv1alpha1.EventGatewayVirtualClusterPolicy, map[string]any]{kind: entities.EventGatewayClusterPolicyKind(refs, eg)},
		adoptingEntry[*configurationv1alpha1.EventGatewayVirtualClusterConsumePolicy, map[string]any]{kind: entities.EventGatewayConsumePolicyKind(refs, eg)},
		adoptingEntry[*configurationv1alpha1.EventGatewayVirtualClusterProducePolicy, map[string]any]{kind: entities.EventGatewayProducePolicyKind(refs, eg)},
		adoptingEntry[*configurationv1alpha1.KongDataPlaneClientCertificate, components.DataPlaneClientCertificateRequest]{kind: entities.DataPlaneCertificateKind(refs)},
		adoptingEntry[*konnectv1alpha1.KonnectCloudGatewayNetwork, components.CreateNetworkRequest]{kind: entities.NetworkKind(refs)},
		adoptingEntry[*konnectv1alpha1.KonnectCloudGatewayTransitGateway, components.CreateTransitGatewayRequest]{kind: entities.TransitGatewayKind(refs, refs.Networks)},
		adoptingEntry[*konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfiguration, components.CreateConfigurationRequest]{
			kind: entities.DataPlaneGroupConfigurationKind(refs, refs.Networks),
		},
	}}
}

// credentialDeps is what a credential kind reads: refs, the consumers and
// the credentials of its type among objects.
func credentialDeps[T controller.Object](refs *entities.Refs, consumers *controller.Informer[*configurationv1.KongConsumer], objects []runtime.Object, resource string) entities.CredentialDeps[T] {
	return entities.CredentialDeps[T]{Refs: refs, Consumers: consumers, Objects: filled[T](objects, resource)}
}

// filled is a view of the objects of type T among objects, over an
// informer that is never started.
func filled[T controller.Object](objects []runtime.Object, resource string) *controller.Informer[T] {
	var zero T
	shared := cache.NewSharedIndexInformer(&cache.ListWatch{}, zero, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, obj := range objects {
		if typed, ok := obj.(T); ok {
			_ = shared.GetIndexer().Add(typed) // only fails for an object without metadata
		}
	}
	return controller.NewInformer[T](schema.GroupResource{Resource: resource}, map[string]cache.SharedIndexInformer{"": shared})
}
