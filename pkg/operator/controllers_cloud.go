package operator

import (
	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// networkInformer is the informer of KonnectCloudGatewayNetworks, which
// entities.Refs carries: auth configurations stay while networks use them.
func networkInformer(f *informerFactories) *controller.Informer[*konnectv1alpha1.KonnectCloudGatewayNetwork] {
	return namespaced[*konnectv1alpha1.KonnectCloudGatewayNetwork](f, konnectv1alpha1.Resource("konnectcloudgatewaynetworks"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Konnect().V1alpha1().KonnectCloudGatewayNetworks().Informer()
		})
}

// buildCloudGatewayControllers constructs the controllers of the Dedicated
// Cloud Gateway kinds: networks, their transit gateways and the data-plane
// group configurations of control planes.
func buildCloudGatewayControllers(f *informerFactories, d dependencies, refs *entities.Refs) ([]runnable, error) {
	cs := d.clientset.KonnectV1alpha1()
	networks := refs.Networks
	transitGateways := namespaced[*konnectv1alpha1.KonnectCloudGatewayTransitGateway](f, konnectv1alpha1.Resource("konnectcloudgatewaytransitgateways"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Konnect().V1alpha1().KonnectCloudGatewayTransitGateways().Informer()
		})
	configurations := namespaced[*konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfiguration](f, konnectv1alpha1.Resource("konnectcloudgatewaydataplanegroupconfigurations"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Konnect().V1alpha1().KonnectCloudGatewayDataPlaneGroupConfigurations().Informer()
		})

	var built []runnable
	for _, build := range []func() (runnable, error){
		func() (runnable, error) {
			return kindController(d, entities.NetworkKind(refs), networks,
				func(ns string) controller.Client[*konnectv1alpha1.KonnectCloudGatewayNetwork] {
					return cs.KonnectCloudGatewayNetworks(ns)
				})
		},
		func() (runnable, error) {
			return kindController(d, entities.TransitGatewayKind(refs, networks), transitGateways,
				func(ns string) controller.Client[*konnectv1alpha1.KonnectCloudGatewayTransitGateway] {
					return cs.KonnectCloudGatewayTransitGateways(ns)
				})
		},
		func() (runnable, error) {
			return kindController(d, entities.DataPlaneGroupConfigurationKind(refs, networks), configurations,
				func(ns string) controller.Client[*konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfiguration] {
					return cs.KonnectCloudGatewayDataPlaneGroupConfigurations(ns)
				})
		},
	} {
		c, err := build()
		if err != nil {
			return nil, err
		}
		built = append(built, c)
	}
	return built, nil
}
