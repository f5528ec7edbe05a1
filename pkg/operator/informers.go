package operator

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// informerFactories holds one factory per watched namespace ("" for all),
// plus cluster-wide factories for cluster-scoped kinds.
type informerFactories struct {
	namespaces  []string
	konnect     map[string]externalversions.SharedInformerFactory
	clusterWide externalversions.SharedInformerFactory
	secrets     map[string]kubeinformers.SharedInformerFactory
}

func newInformerFactories(kube kubernetes.Interface, konnect versioned.Interface, namespaces []string) *informerFactories {
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	f := &informerFactories{
		namespaces:  namespaces,
		konnect:     map[string]externalversions.SharedInformerFactory{},
		secrets:     map[string]kubeinformers.SharedInformerFactory{},
		clusterWide: externalversions.NewSharedInformerFactory(konnect, 0),
	}
	// Every Secret of the watched namespaces: certificates name theirs
	// without a label. What a Secret is used for is checked where it is
	// read (a token Secret must still carry konghq.com/credential=konnect).
	for _, ns := range namespaces {
		f.konnect[ns] = externalversions.NewSharedInformerFactoryWithOptions(konnect, 0, externalversions.WithNamespace(ns))
		f.secrets[ns] = kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0, kubeinformers.WithNamespace(ns))
	}
	if len(namespaces) == 1 && namespaces[0] == metav1.NamespaceAll {
		f.clusterWide = f.konnect[metav1.NamespaceAll]
	}
	return f
}

// namespaced builds a typed view of a namespaced kind over every factory.
func namespaced[T controller.Object](f *informerFactories, gr schema.GroupResource, get func(externalversions.SharedInformerFactory) cache.SharedIndexInformer) *controller.Informer[T] {
	informers := map[string]cache.SharedIndexInformer{}
	for ns, factory := range f.konnect {
		informers[ns] = get(factory)
	}
	return controller.NewInformer[T](gr, informers)
}

// clusterScoped builds a typed view of a cluster-scoped kind.
func clusterScoped[T controller.Object](f *informerFactories, gr schema.GroupResource, get func(externalversions.SharedInformerFactory) cache.SharedIndexInformer) *controller.Informer[T] {
	return controller.NewInformer[T](gr, map[string]cache.SharedIndexInformer{metav1.NamespaceAll: get(f.clusterWide)})
}

// watches reports whether the operator watches namespace.
func (f *informerFactories) watches(namespace string) bool {
	return slices.Contains(f.namespaces, metav1.NamespaceAll) || slices.Contains(f.namespaces, namespace)
}

func (f *informerFactories) secretInformer() *controller.Informer[*corev1.Secret] {
	informers := map[string]cache.SharedIndexInformer{}
	for ns, factory := range f.secrets {
		informers[ns] = factory.Core().V1().Secrets().Informer()
	}
	return controller.NewInformer[*corev1.Secret](corev1.Resource("secrets"), informers)
}

func (f *informerFactories) start(stop <-chan struct{}) {
	for _, factory := range f.konnect {
		factory.Start(stop)
	}
	f.clusterWide.Start(stop)
	for _, factory := range f.secrets {
		factory.Start(stop)
	}
}

func (f *informerFactories) shutdown() {
	for _, factory := range f.konnect {
		factory.Shutdown()
	}
	f.clusterWide.Shutdown()
	for _, factory := range f.secrets {
		factory.Shutdown()
	}
}
