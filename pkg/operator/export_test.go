package operator

import (
	"k8s.io/client-go/kubernetes"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
)

// KonnectInformerFactory is the factory of Konnect objects the operator
// builds for namespace, so that tests can look at what its caches hold.
func KonnectInformerFactory(kube kubernetes.Interface, cs versioned.Interface, namespace string) externalversions.SharedInformerFactory {
	return newInformerFactories(kube, cs, []string{namespace}, "").konnect[namespace]
}
