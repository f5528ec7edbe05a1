package companions

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

// The objects the companion controllers read and write, by short names.
type (
	authConfig        = *konnectv1alpha1.KonnectAPIAuthConfiguration
	controlPlane      = *konnectv1alpha2.KonnectGatewayControlPlane
	network           = *konnectv1alpha1.KonnectCloudGatewayNetwork
	kongPlugin        = *configurationv1.KongPlugin
	kongPluginBinding = *configurationv1alpha1.KongPluginBinding
	kongService       = *configurationv1alpha1.KongService
	kongRoute         = *configurationv1alpha1.KongRoute
	kongConsumer      = *configurationv1.KongConsumer
	kongConsumerGroup = *configurationv1beta1.KongConsumerGroup
)

// Kinds as messages and grants name them.
const (
	kindAuthConfig   = "KonnectAPIAuthConfiguration"
	kindControlPlane = "KonnectGatewayControlPlane"
	kindNetwork      = "KonnectCloudGatewayNetwork"
)

// key is the cache key ("namespace/name") of an object.
func key(namespace, name string) string { return cache.NewObjectName(namespace, name).String() }

// namespaceOr is a reference's namespace, or fallback when it names none.
func namespaceOr(namespace, fallback string) string {
	if namespace == "" {
		return fallback
	}
	return namespace
}

func isBeingDeleted(obj metav1.Object) bool { return obj.GetDeletionTimestamp() != nil }
