package operator

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// resource is a kind the operator caches and writes: its API resource, its
// scope, and how to make an empty object, which is all a typed cache and a
// typed client need (see informerOf and clientsOf).
type resource[T controller.Object] struct {
	gvr     schema.GroupVersionResource
	cluster bool
	empty   func() T
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
	authConfigs     = namespacedResource[konnectv1alpha1.KonnectAPIAuthConfiguration](konnectv1alpha1.SchemeGroupVersion, "konnectapiauthconfigurations")
	controlPlanes   = namespacedResource[konnectv1alpha2.KonnectGatewayControlPlane](konnectv1alpha2.SchemeGroupVersion, "konnectgatewaycontrolplanes")
	referenceGrants = namespacedResource[configurationv1alpha1.KongReferenceGrant](configurationv1alpha1.SchemeGroupVersion, "kongreferencegrants")

	kongServices       = namespacedResource[configurationv1alpha1.KongService](configurationv1alpha1.SchemeGroupVersion, "kongservices")
	kongRoutes         = namespacedResource[configurationv1alpha1.KongRoute](configurationv1alpha1.SchemeGroupVersion, "kongroutes")
	kongConsumers      = namespacedResource[configurationv1.KongConsumer](configurationv1.SchemeGroupVersion, "kongconsumers")
	kongConsumerGroups = namespacedResource[configurationv1beta1.KongConsumerGroup](configurationv1beta1.SchemeGroupVersion, "kongconsumergroups")
	kongPlugins        = namespacedResource[configurationv1.KongPlugin](configurationv1.SchemeGroupVersion, "kongplugins")
	kongClusterPlugins = clusterResource[configurationv1.KongClusterPlugin](configurationv1.SchemeGroupVersion, "kongclusterplugins")
	kongPluginBindings = namespacedResource[configurationv1alpha1.KongPluginBinding](configurationv1alpha1.SchemeGroupVersion, "kongpluginbindings")

	kongUpstreams      = namespacedResource[configurationv1alpha1.KongUpstream](configurationv1alpha1.SchemeGroupVersion, "kongupstreams")
	kongTargets        = namespacedResource[configurationv1alpha1.KongTarget](configurationv1alpha1.SchemeGroupVersion, "kongtargets")
	kongCertificates   = namespacedResource[configurationv1alpha1.KongCertificate](configurationv1alpha1.SchemeGroupVersion, "kongcertificates")
	kongCACertificates = namespacedResource[configurationv1alpha1.KongCACertificate](configurationv1alpha1.SchemeGroupVersion, "kongcacertificates")
	kongSNIs           = namespacedResource[configurationv1alpha1.KongSNI](configurationv1alpha1.SchemeGroupVersion, "kongsnis")
	kongKeys           = namespacedResource[configurationv1alpha1.KongKey](configurationv1alpha1.SchemeGroupVersion, "kongkeys")
	kongKeySets        = namespacedResource[configurationv1alpha1.KongKeySet](configurationv1alpha1.SchemeGroupVersion, "kongkeysets")
	kongVaults         = clusterResource[configurationv1alpha1.KongVault](configurationv1alpha1.SchemeGroupVersion, "kongvaults")
	kongDPCertificates = namespacedResource[configurationv1alpha1.KongDataPlaneClientCertificate](configurationv1alpha1.SchemeGroupVersion, "kongdataplaneclientcertificates")

	kongBasicAuths = namespacedResource[configurationv1alpha1.KongCredentialBasicAuth](configurationv1alpha1.SchemeGroupVersion, "kongcredentialbasicauths")
	kongAPIKeys    = namespacedResource[configurationv1alpha1.KongCredentialAPIKey](configurationv1alpha1.SchemeGroupVersion, "kongcredentialapikeys")
	kongACLs       = namespacedResource[configurationv1alpha1.KongCredentialACL](configurationv1alpha1.SchemeGroupVersion, "kongcredentialacls")
	kongJWTs       = namespacedResource[configurationv1alpha1.KongCredentialJWT](configurationv1alpha1.SchemeGroupVersion, "kongcredentialjwts")
	kongHMACs      = namespacedResource[configurationv1alpha1.KongCredentialHMAC](configurationv1alpha1.SchemeGroupVersion, "kongcredentialhmacs")
)
