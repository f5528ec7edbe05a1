package operator

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// informerFactories holds one factory per watched namespace ("" for all),
// plus cluster-wide factories for cluster-scoped kinds.
type informerFactories struct {
	namespaces  []string
	konnect     map[string]externalversions.SharedInformerFactory
	clusterWide externalversions.SharedInformerFactory
	// secrets holds, per namespace, the factories of the two selections of
	// Secrets the operator reads (see secretSelectors).
	secrets map[string][]kubeinformers.SharedInformerFactory
	// rightsBindings caches the operator's RoleBinding in each watched
	// namespace (see namespacerights.go); nil unless the operator holds them.
	rightsBindings map[string]kubeinformers.SharedInformerFactory
}

// secretSelectors select the only Secrets the operator reads, by the labels
// users already put on them: tokens and consumer credentials carry
// konghq.com/credential (konnect, basic-auth, key-auth, acl, jwt, hmac);
// TLS material for certificates carries konghq.com/secret=true. A label
// selector cannot say "one label or the other", hence two informers, whose
// caches the Secret view joins. Every other Secret of the cluster stays out
// of the operator's memory.
var secretSelectors = []string{
	commonv1alpha1.LabelCredential,
	commonv1alpha1.LabelSecret + "=true",
}

func newInformerFactories(kube kubernetes.Interface, konnect versioned.Interface, namespaces []string) *informerFactories {
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	f := &informerFactories{
		namespaces:  namespaces,
		konnect:     map[string]externalversions.SharedInformerFactory{},
		secrets:     map[string][]kubeinformers.SharedInformerFactory{},
		clusterWide: externalversions.NewSharedInformerFactory(konnect, 0),
	}
	for _, ns := range namespaces {
		f.konnect[ns] = externalversions.NewSharedInformerFactoryWithOptions(konnect, 0, externalversions.WithNamespace(ns))
		for _, selector := range secretSelectors {
			f.secrets[ns] = append(f.secrets[ns], kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
				kubeinformers.WithNamespace(ns),
				kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }),
				kubeinformers.WithTransform(dropManagedFields)))
		}
	}
	if len(namespaces) == 1 && namespaces[0] == metav1.NamespaceAll {
		f.clusterWide = f.konnect[metav1.NamespaceAll]
	}
	return f
}

// watches reports whether the operator watches namespace.
func (f *informerFactories) watches(namespace string) bool {
	return slices.Contains(f.namespaces, metav1.NamespaceAll) || slices.Contains(f.namespaces, namespace)
}

// secretInformer is the view of the labelled Secrets of every watched
// namespace. What a Secret is used for is still checked where it is read (a
// token Secret must carry konghq.com/credential=konnect, a certificate's
// konghq.com/secret=true).
func (f *informerFactories) secretInformer() *controller.Informer[*corev1.Secret] {
	informers := map[string][]cache.SharedIndexInformer{}
	for ns, factories := range f.secrets {
		for _, factory := range factories {
			informers[ns] = append(informers[ns], factory.Core().V1().Secrets().Informer())
		}
	}
	return controller.NewUnionInformer[*corev1.Secret](corev1.Resource("secrets"), informers)
}

func (f *informerFactories) start(stop <-chan struct{}) {
	for _, factory := range f.konnect {
		factory.Start(stop)
	}
	f.clusterWide.Start(stop)
	for _, factories := range f.secrets {
		for _, factory := range factories {
			factory.Start(stop)
		}
	}
	for _, factory := range f.rightsBindings {
		factory.Start(stop)
	}
}

func (f *informerFactories) shutdown() {
	for _, factory := range f.konnect {
		factory.Shutdown()
	}
	f.clusterWide.Shutdown()
	for _, factories := range f.secrets {
		for _, factory := range factories {
			factory.Shutdown()
		}
	}
	for _, factory := range f.rightsBindings {
		factory.Shutdown()
	}
}

// dropManagedFields keeps the field-ownership records of cached Secrets out
// of memory: nothing reads them, and they can outweigh a small Secret.
func dropManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
