package operator

import (
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
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
	syncPeriod   time.Duration
	workers      int
	queueMetrics *metrics.WorkqueueMetrics
	metrics      *metrics.ControllerMetrics
}

func (d dependencies) options() controller.Options {
	return controller.Options{Workers: d.workers, MetricsProvider: d.queueMetrics, Metrics: d.metrics}
}

func (d dependencies) reconcilerOptions() controller.ReconcilerOptions {
	return controller.ReconcilerOptions{SyncPeriod: d.syncPeriod, Metrics: d.metrics}
}

// entityController builds the controller of one Konnect entity kind.
func entityController[T controller.Entity, D any](d dependencies, adapter controller.DependentAdapter[T, D], informer *controller.Informer[T], clients controller.ClientGetter[T]) (runnable, error) {
	return controller.NewEntityController(adapter, informer, clients, d.konnect, d.recorder, d.reconcilerOptions(), d.options())
}

// bindingCleanupController builds the controller of the
// cleanup-plugin-binding finalizer of one kind that bindings target.
func bindingCleanupController[T controller.Entity, D any](d dependencies, adapter controller.Adapter[T, D], informer *controller.Informer[T], bindings *controller.Informer[*configurationv1alpha1.KongPluginBinding], clients controller.ClientGetter[T]) (runnable, error) {
	return entities.NewBindingCleanupController(&entities.BindingCleanupReconciler[T]{
		Adapter: adapter, Targets: informer, Bindings: bindings, Clients: clients,
		BindingClients: func(ns string) entities.ObjectWriter[*configurationv1alpha1.KongPluginBinding] {
			return d.clientset.ConfigurationV1alpha1().KongPluginBindings(ns)
		},
		Recorder: d.recorder,
	}, d.options())
}

// buildControllers constructs every controller over the informers of f.
func buildControllers(f *informerFactories, d dependencies) ([]runnable, error) {
	cs := d.clientset

	refs := &entities.Refs{
		ControlPlanes: namespaced[*konnectv1alpha2.KonnectGatewayControlPlane](f, konnectv1alpha2.Resource("konnectgatewaycontrolplanes"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Konnect().V1alpha2().KonnectGatewayControlPlanes().Informer()
			}),
		AuthConfigs: namespaced[*konnectv1alpha1.KonnectAPIAuthConfiguration](f, konnectv1alpha1.Resource("konnectapiauthconfigurations"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Konnect().V1alpha1().KonnectAPIAuthConfigurations().Informer()
			}),
		Secrets:      f.secretInformer(),
		SecretClient: secretClient{kube: d.kube},
		Grants: namespaced[*configurationv1alpha1.KongReferenceGrant](f, configurationv1alpha1.Resource("kongreferencegrants"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongReferenceGrants().Informer()
			}),
	}
	services := namespaced[*configurationv1alpha1.KongService](f, configurationv1alpha1.Resource("kongservices"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongServices().Informer()
		})
	routes := namespaced[*configurationv1alpha1.KongRoute](f, configurationv1alpha1.Resource("kongroutes"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongRoutes().Informer()
		})
	consumers := namespaced[*configurationv1.KongConsumer](f, configurationv1.Resource("kongconsumers"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1().KongConsumers().Informer()
		})
	consumerGroups := namespaced[*configurationv1beta1.KongConsumerGroup](f, configurationv1beta1.Resource("kongconsumergroups"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1beta1().KongConsumerGroups().Informer()
		})
	plugins := namespaced[*configurationv1.KongPlugin](f, configurationv1.Resource("kongplugins"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1().KongPlugins().Informer()
		})
	clusterPlugins := clusterScoped[*configurationv1.KongClusterPlugin](f, configurationv1.Resource("kongclusterplugins"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1().KongClusterPlugins().Informer()
		})
	certs := newCertificateInformers(f)
	bindings := namespaced[*configurationv1alpha1.KongPluginBinding](f, configurationv1alpha1.Resource("kongpluginbindings"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongPluginBindings().Informer()
		})

	authController, err := entities.NewAuthConfigController(&entities.AuthConfigReconciler{
		Refs: refs,
		Clients: func(ns string) controller.Client[*konnectv1alpha1.KonnectAPIAuthConfiguration] {
			return cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(ns)
		},
		Konnect:    d.konnect,
		Recorder:   d.recorder,
		SyncPeriod: d.syncPeriod,
		Metrics:    d.metrics,
	}, d.options())
	if err != nil {
		return nil, err
	}
	tokenSecrets, err := entities.NewTokenSecretController(&entities.TokenSecretReconciler{Refs: refs, Recorder: d.recorder}, d.options())
	if err != nil {
		return nil, err
	}
	credentials, credentialRunnables, err := credentialControllers(f, d, refs, consumers)
	if err != nil {
		return nil, err
	}
	serviceAdapter := &entities.ServiceAdapter{Refs: refs, Certificates: certs.certificates, CACertificates: certs.caCertificates}
	serviceClients := func(ns string) controller.Client[*configurationv1alpha1.KongService] {
		return cs.ConfigurationV1alpha1().KongServices(ns)
	}
	routeAdapter := &entities.RouteAdapter{Refs: refs, Services: services}
	routeClients := func(ns string) controller.Client[*configurationv1alpha1.KongRoute] {
		return cs.ConfigurationV1alpha1().KongRoutes(ns)
	}
	consumerGroupAdapter := &entities.ConsumerGroupAdapter{Refs: refs}
	consumerGroupClients := func(ns string) controller.Client[*configurationv1beta1.KongConsumerGroup] {
		return cs.ConfigurationV1beta1().KongConsumerGroups(ns)
	}
	consumerAdapter := &entities.ConsumerAdapter{Refs: refs, ConsumerGroups: consumerGroups, Credentials: credentials}
	consumerClients := func(ns string) controller.Client[*configurationv1.KongConsumer] {
		return cs.ConfigurationV1().KongConsumers(ns)
	}
	built := append([]runnable{authController, tokenSecrets}, credentialRunnables...)
	add := func(c runnable, err error) error {
		if err == nil {
			built = append(built, c)
		}
		return err
	}
	for _, err := range []error{
		add(entityController(d, &entities.ControlPlaneAdapter{Refs: refs}, refs.ControlPlanes,
			func(ns string) controller.Client[*konnectv1alpha2.KonnectGatewayControlPlane] {
				return cs.KonnectV1alpha2().KonnectGatewayControlPlanes(ns)
			})),
		add(entityController(d, serviceAdapter, services, serviceClients)),
		add(bindingCleanupController(d, serviceAdapter, services, bindings, serviceClients)),
		add(entityController(d, routeAdapter, routes, routeClients)),
		add(bindingCleanupController(d, routeAdapter, routes, bindings, routeClients)),
		add(entityController(d, consumerGroupAdapter, consumerGroups, consumerGroupClients)),
		add(bindingCleanupController(d, consumerGroupAdapter, consumerGroups, bindings, consumerGroupClients)),
		add(entityController(d, consumerAdapter, consumers, consumerClients)),
		add(bindingCleanupController(d, consumerAdapter, consumers, bindings, consumerClients)),
		add(entityController(d, &entities.PluginBindingAdapter{
			Refs: refs, Plugins: plugins, ClusterPlugins: clusterPlugins,
			Services: services, Routes: routes, Consumers: consumers, ConsumerGroups: consumerGroups,
		}, bindings,
			func(ns string) controller.Client[*configurationv1alpha1.KongPluginBinding] {
				return cs.ConfigurationV1alpha1().KongPluginBindings(ns)
			})),
		add(entities.NewPluginAnnotationController(&entities.PluginAnnotationReconciler{
			Plugins: plugins, Bindings: bindings,
			Services: services, Routes: routes, Consumers: consumers, ConsumerGroups: consumerGroups,
			PluginClients: func(ns string) controller.Client[*configurationv1.KongPlugin] {
				return cs.ConfigurationV1().KongPlugins(ns)
			},
			BindingClients: func(ns string) entities.ObjectWriter[*configurationv1alpha1.KongPluginBinding] {
				return cs.ConfigurationV1alpha1().KongPluginBindings(ns)
			},
		}, d.options())),
	} {
		if err != nil {
			return nil, err
		}
	}
	more, err := buildUpstreamAndTLSControllers(f, d, refs, certs)
	if err != nil {
		return nil, err
	}
	return append(built, more...), nil
}
