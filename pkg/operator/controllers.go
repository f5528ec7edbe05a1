package operator

import (
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/companions"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// dependencies are what every controller is built from.
type dependencies struct {
	kube         kubernetes.Interface
	clientset    versioned.Interface
	konnect      *konnect.ClientFactory
	recorder     record.EventRecorder
	clock        clock.WithTicker
	policies     commonv1alpha1.PolicyDefaults
	cluster      string
	syncPeriod   time.Duration
	drift        string
	workers      int
	queueMetrics *metrics.WorkqueueMetrics
	metrics      *metrics.ControllerMetrics
	// objects counts the objects of each reconciled kind at scrape time.
	objects *metrics.ObjectsCollector
	// locator finds the objects of other shards that references name.
	locator *shardLocator
	// metadata reads objects' metadata alone: a Secret's labels and
	// finalizers, never its data.
	metadata metadata.Interface
	// allowedHosts are the servers tokens may be sent to.
	allowedHosts konnect.AllowedHosts
}

func (d dependencies) options() controller.Options {
	return controller.Options{Workers: d.workers, MetricsProvider: d.queueMetrics, Metrics: d.metrics, Clock: d.clock}
}

func (d dependencies) reconcilerOptions() controller.ReconcilerOptions {
	return controller.ReconcilerOptions{
		SyncPeriod: d.syncPeriod, Metrics: d.metrics, DriftDetection: d.drift, Clock: d.clock,
		Policies: d.policies, Cluster: d.cluster,
	}
}

// buildControllers constructs every controller over the informers of f:
// one line per kind reconciled into Konnect, and the controllers that help
// them (finalizers on Secrets and on binding targets, credentials made from
// Secrets, bindings made from plugin annotations).
func buildControllers(f *informerFactories, d dependencies) ([]runnable, error) {
	w := newWiring(f, d)
	refs := &entities.Refs{
		ControlPlanes: informerOf(w, controlPlanes),
		AuthConfigs:   informerOf(w, authConfigs),
		Secrets:       f.secretInformer(),
		SecretClient:  secretClient{kube: d.kube, metadata: d.metadata},
		Grants:        informerOf(w, referenceGrants),
		Networks:      informerOf(w, cloudNetworks),
		Validations:   &entities.Validations{Konnect: d.konnect, Clock: d.clock},
		AllowedHosts:  d.allowedHosts,
	}
	services, routes := informerOf(w, kongServices), informerOf(w, kongRoutes)
	consumers, consumerGroups := informerOf(w, kongConsumers), informerOf(w, kongConsumerGroups)
	certificates, caCertificates := informerOf(w, kongCertificates), informerOf(w, kongCACertificates)
	plugins, bindings := informerOf(w, kongPlugins), informerOf(w, kongPluginBindings)

	credentials := []entities.CredentialKind{
		credential(w, refs, kongBasicAuths, entities.BasicAuthKind),
		credential(w, refs, kongAPIKeys, entities.APIKeyKind),
		credential(w, refs, kongACLs, entities.ACLKind),
		credential(w, refs, kongJWTs, entities.JWTKind),
		credential(w, refs, kongHMACs, entities.HMACKind),
	}
	entity(w, controlPlanes, entities.ControlPlaneKind(refs))
	bindingTarget(w, kongServices, entities.ServiceKind(refs, certificates, caCertificates))
	bindingTarget(w, kongRoutes, entities.RouteKind(refs, services))
	bindingTarget(w, kongConsumerGroups, entities.ConsumerGroupKind(refs))
	bindingTarget(w, kongConsumers, entities.ConsumerKind(refs, consumerGroups, credentials))
	bindingSources := entities.PluginBindingSources{
		Plugins: plugins, ClusterPlugins: informerOf(w, kongClusterPlugins),
		Services: services, Routes: routes, Consumers: consumers, ConsumerGroups: consumerGroups,
	}
	entity(w, kongPluginBindings, entities.PluginBindingKind(refs, bindingSources))
	entity(w, kongUpstreams, entities.UpstreamKind(refs, certificates))
	entity(w, kongTargets, entities.TargetKind(refs, informerOf(w, kongUpstreams)))
	entity(w, kongCertificates, entities.CertificateKind(refs))
	entity(w, kongCACertificates, entities.CACertificateKind(refs))
	entity(w, kongSNIs, entities.SNIKind(refs, certificates))
	entity(w, kongKeySets, entities.KeySetKind(refs))
	entity(w, kongKeys, entities.KeyKind(refs, informerOf(w, kongKeySets)))
	entity(w, configStores, entities.ConfigStoreKind(refs))
	entity(w, kongVaults, entities.VaultKind(refs, informerOf(w, configStores), f.watches))
	entity(w, kongDPCertificates, entities.DataPlaneCertificateKind(refs))
	entity(w, cloudNetworks, entities.NetworkKind(refs))
	entity(w, cloudTransitGateways, entities.TransitGatewayKind(refs, refs.Networks))
	entity(w, cloudDPGroupConfigurations, entities.DataPlaneGroupConfigurationKind(refs, refs.Networks))

	portalObjects := informerOf(w, portals)
	authUsers := []companions.AuthUser{companions.NewAuthUser(entities.KindPortal, portalObjects, entities.PortalAuthKeys)}
	entity(w, portals, entities.PortalKind(refs))
	entity(w, portalPages, entities.PortalPageKind(refs, portalObjects))
	entity(w, portalTeams, entities.PortalTeamKind(refs, portalObjects))
	entity(w, portalCustomizations, entities.PortalCustomizationKind(refs, portalObjects))
	entity(w, portalCustomDomains, entities.PortalCustomDomainKind(refs, portalObjects))
	entity(w, portalEmailConfigs, entities.PortalEmailConfigKind(refs, portalObjects))
	entity(w, portalIdentityProviders, entities.PortalIdentityProviderKind(refs, portalObjects))
	entity(w, portalIPAllowLists, entities.PortalIPAllowListKind(refs, portalObjects))

	egObjects := entities.EventGatewayObjects{
		Gateways: informerOf(w, eventGateways), BackendClusters: informerOf(w, egBackendClusters), Listeners: informerOf(w, egListeners),
		VirtualClusters: informerOf(w, egVirtualClusters), SchemaRegistries: informerOf(w, egSchemaRegistries),
	}
	authUsers = append(authUsers, companions.NewAuthUser(entities.KindEventGateway, egObjects.Gateways, entities.EventGatewayAuthKeys))
	entity(w, eventGateways, entities.EventGatewayKind(refs))
	entity(w, egBackendClusters, entities.EventGatewayBackendClusterKind(refs, egObjects))
	entity(w, egListeners, entities.EventGatewayListenerKind(refs, egObjects))
	entity(w, egSchemaRegistries, entities.EventGatewaySchemaRegistryKind(refs, egObjects))
	entity(w, egDataPlaneCertificates, entities.EventGatewayDataPlaneCertificateKind(refs, egObjects))
	entity(w, egVirtualClusters, entities.EventGatewayVirtualClusterKind(refs, egObjects))
	entity(w, egListenerPolicies, entities.EventGatewayListenerPolicyKind(refs, egObjects))
	entity(w, egClusterPolicies, entities.EventGatewayClusterPolicyKind(refs, egObjects))
	entity(w, egConsumePolicies, entities.EventGatewayConsumePolicyKind(refs, egObjects))
	entity(w, egProducePolicies, entities.EventGatewayProducePolicyKind(refs, egObjects))

	authController, err := companions.NewAuthConfigController(&companions.AuthConfigReconciler{
		Refs: refs, Clients: statusClients(w, authConfigs), KonnectClients: d.konnect,
		Recorder: d.recorder, SyncPeriod: d.syncPeriod, Metrics: d.metrics, Clock: d.clock, Users: authUsers,
	}, d.options())
	if err == nil {
		metrics.AddObjects(d.objects, authController.Kind(), commonv1alpha1.ConditionAPIAuthValid, refs.AuthConfigs.List)
	}
	w.add(authController, err)
	w.add(companions.NewTokenSecretController(&companions.TokenSecretReconciler{
		Refs: refs, AuthConfigs: everyShardOf(w, authConfigs), Recorder: d.recorder,
	}, d.options()))
	w.add(companions.NewCredentialSecretController(&companions.CredentialSecretReconciler{
		Consumers: consumers, Secrets: refs.Secrets, Kinds: credentials,
	}, d.options()))
	w.add(companions.NewPluginAnnotationController(&companions.PluginAnnotationReconciler{
		Plugins: plugins, Bindings: bindings,
		Services: services, Routes: routes, Consumers: consumers, ConsumerGroups: consumerGroups,
		PluginClients: statusClients(w, kongPlugins), BindingClients: writers(w, kongPluginBindings),
	}, d.options()))
	if f.rightsBindings != nil {
		w.add(namespaceRights(w, refs))
	}
	return w.built, w.err
}
