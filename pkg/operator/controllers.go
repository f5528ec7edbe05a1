package operator

import (
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
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
	clientset    versioned.Interface
	konnect      *konnect.ClientFactory
	recorder     record.EventRecorder
	syncPeriod   time.Duration
	drift        string
	workers      int
	queueMetrics *metrics.WorkqueueMetrics
	metrics      *metrics.ControllerMetrics
	// objects counts the objects of each reconciled kind at scrape time.
	objects *metrics.ObjectsCollector
}

func (d dependencies) options() controller.Options {
	return controller.Options{Workers: d.workers, MetricsProvider: d.queueMetrics, Metrics: d.metrics}
}

func (d dependencies) reconcilerOptions() controller.ReconcilerOptions {
	return controller.ReconcilerOptions{SyncPeriod: d.syncPeriod, Metrics: d.metrics, DriftDetection: d.drift}
}

// kindController builds the controller of one kind described as data. Its
// objects are counted by their Programmed condition in the objects metric.
func kindController[T controller.Entity, D any](d dependencies, kind controller.Kind[T, D], informer *controller.Informer[T], clients controller.ClientGetter[T]) (runnable, error) {
	c, err := controller.NewEntityController(kind, informer, clients, d.konnect, d.recorder, d.reconcilerOptions(), d.options())
	if err != nil {
		return nil, err
	}
	metrics.AddObjects(d.objects, c.Kind(), commonv1alpha1.ConditionProgrammed, informer.List)
	return c, nil
}

// bindingCleanupController builds the controller of the
// cleanup-plugin-binding finalizer of one kind that bindings target.
func bindingCleanupController[T controller.Entity, D any](d dependencies, kind controller.Kind[T, D], informer *controller.Informer[T], bindings *controller.Informer[*configurationv1alpha1.KongPluginBinding], clients controller.ClientGetter[T]) (runnable, error) {
	return entities.NewBindingCleanupController(&entities.BindingCleanupReconciler[T]{
		Kind: &kind, Targets: informer, Bindings: bindings, Clients: clients,
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
		Secrets: f.secretInformer(),
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
	metrics.AddObjects(d.objects, authController.Kind(), commonv1alpha1.ConditionAPIAuthValid, refs.AuthConfigs.List)
	credentials, credentialRunnables, err := credentialControllers(f, d, refs, consumers)
	if err != nil {
		return nil, err
	}
	serviceKind := entities.ServiceKind(refs, certs.certificates, certs.caCertificates)
	serviceClients := func(ns string) controller.Client[*configurationv1alpha1.KongService] {
		return cs.ConfigurationV1alpha1().KongServices(ns)
	}
	routeKind := entities.RouteKind(refs, services)
	routeClients := func(ns string) controller.Client[*configurationv1alpha1.KongRoute] {
		return cs.ConfigurationV1alpha1().KongRoutes(ns)
	}
	consumerGroupKind := entities.ConsumerGroupKind(refs)
	consumerGroupClients := func(ns string) controller.Client[*configurationv1beta1.KongConsumerGroup] {
		return cs.ConfigurationV1beta1().KongConsumerGroups(ns)
	}
	consumerKind := entities.ConsumerKind(refs, consumerGroups, credentials)
	consumerClients := func(ns string) controller.Client[*configurationv1.KongConsumer] {
		return cs.ConfigurationV1().KongConsumers(ns)
	}
	built := append([]runnable{authController}, credentialRunnables...)
	add := func(c runnable, err error) error {
		if err == nil {
			built = append(built, c)
		}
		return err
	}
	for _, err := range []error{
		add(kindController(d, entities.ControlPlaneKind(refs), refs.ControlPlanes,
			func(ns string) controller.Client[*konnectv1alpha2.KonnectGatewayControlPlane] {
				return cs.KonnectV1alpha2().KonnectGatewayControlPlanes(ns)
			})),
		add(kindController(d, serviceKind, services, serviceClients)),
		add(bindingCleanupController(d, serviceKind, services, bindings, serviceClients)),
		add(kindController(d, routeKind, routes, routeClients)),
		add(bindingCleanupController(d, routeKind, routes, bindings, routeClients)),
		add(kindController(d, consumerGroupKind, consumerGroups, consumerGroupClients)),
		add(bindingCleanupController(d, consumerGroupKind, consumerGroups, bindings, consumerGroupClients)),
		add(kindController(d, consumerKind, consumers, consumerClients)),
		add(bindingCleanupController(d, consumerKind, consumers, bindings, consumerClients)),
		add(kindController(d, entities.PluginBindingKind(refs, entities.PluginBindingSources{
			Plugins: plugins, ClusterPlugins: clusterPlugins,
			Services: services, Routes: routes, Consumers: consumers, ConsumerGroups: consumerGroups,
		}), bindings,
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
