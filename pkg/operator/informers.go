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
	namespaces []string
	// shard is the operator's shard; konnect and clusterWide select its
	// objects alone (commonv1alpha1.ShardSelector).
	shard       string
	konnect     map[string]externalversions.SharedInformerFactory
	clusterWide externalversions.SharedInformerFactory
	// everyShard and everyShardClusterWide select the objects of every
	// shard, for the kinds that belong to none (see resource.everyShard).
	everyShard            map[string]externalversions.SharedInformerFactory
	everyShardClusterWide externalversions.SharedInformerFactory
	// secrets holds, per namespace, the factories of the two selections of
	// Secrets the operator reads (see secretSelectors).
	secrets map[string][]kubeinformers.SharedInformerFactory
	// rightsBindings caches the operator's RoleBinding in each watched
	// namespace (see namespacerights.go); nil unless the operator keeps them.
	rightsBindings map[string]kubeinformers.SharedInformerFactory
	// secretView is the one view of Secrets, made on first use.
	secretView *controller.Informer[*corev1.Secret]
}

// secretSelectors select the Secrets the operator caches, by the labels
// users already put on them: tokens and consumer credentials carry
// konghq.com/credential (konnect, basic-auth, key-auth, acl, jwt, hmac);
// TLS material for certificates carries konghq.com/secret=true. A label
// selector cannot say "one label or the other", hence two informers, whose
// caches the Secret view joins. A Secret without these labels is never
// read, even one an object names explicitly (a certificate's secretRef):
// its object says which label it lacks. Every other Secret of the cluster
// stays out of the operator's memory, as in Kong Operator.
var secretSelectors = []string{
	commonv1alpha1.LabelCredential,
	commonv1alpha1.LabelSecret + "=true",
}

func newInformerFactories(kube kubernetes.Interface, konnect versioned.Interface, namespaces []string, shard string) *informerFactories {
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	// The API server filters by label, so another shard's objects never
	// reach this process: neither its memory nor its event handlers.
	inShard := externalversions.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = commonv1alpha1.ShardSelector(shard)
	})
	f := &informerFactories{
		namespaces:            namespaces,
		shard:                 shard,
		konnect:               map[string]externalversions.SharedInformerFactory{},
		everyShard:            map[string]externalversions.SharedInformerFactory{},
		secrets:               map[string][]kubeinformers.SharedInformerFactory{},
		clusterWide:           externalversions.NewSharedInformerFactoryWithOptions(konnect, 0, inShard, externalversions.WithTransform(trimForCache)),
		everyShardClusterWide: externalversions.NewSharedInformerFactoryWithOptions(konnect, 0, externalversions.WithTransform(trimForCache)),
	}
	for _, ns := range namespaces {
		f.konnect[ns] = externalversions.NewSharedInformerFactoryWithOptions(konnect, 0, externalversions.WithNamespace(ns),
			inShard, externalversions.WithTransform(trimForCache))
		f.everyShard[ns] = externalversions.NewSharedInformerFactoryWithOptions(konnect, 0, externalversions.WithNamespace(ns),
			externalversions.WithTransform(trimForCache))
		for _, selector := range secretSelectors {
			f.secrets[ns] = append(f.secrets[ns], kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
				kubeinformers.WithNamespace(ns),
				kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }),
				kubeinformers.WithTransform(trimForCache)))
		}
	}
	if len(namespaces) == 1 && namespaces[0] == metav1.NamespaceAll {
		f.clusterWide = f.konnect[metav1.NamespaceAll]
		f.everyShardClusterWide = f.everyShard[metav1.NamespaceAll]
	}
	return f
}

// watches reports whether the operator watches namespace.
func (f *informerFactories) watches(namespace string) bool {
	return slices.Contains(f.namespaces, metav1.NamespaceAll) || slices.Contains(f.namespaces, namespace)
}

// secretInformer is the view of the labelled Secrets of every watched
// namespace. What a Secret is used for is still checked where it is read
// (a token Secret must carry konghq.com/credential=konnect, a certificate's
// konghq.com/secret=true).
func (f *informerFactories) secretInformer() *controller.Informer[*corev1.Secret] {
	if f.secretView != nil {
		return f.secretView
	}
	informers := map[string][]cache.SharedIndexInformer{}
	for ns, factories := range f.secrets {
		for _, factory := range factories {
			informers[ns] = append(informers[ns], factory.Core().V1().Secrets().Informer())
		}
	}
	f.secretView = controller.NewUnionInformer[*corev1.Secret](corev1.Resource("secrets"), informers)
	return f.secretView
}

// konnectFactories are the factories of the operator's own kinds.
func (f *informerFactories) konnectFactories() []externalversions.SharedInformerFactory {
	out := []externalversions.SharedInformerFactory{f.clusterWide, f.everyShardClusterWide}
	for _, ns := range f.namespaces {
		out = append(out, f.konnect[ns], f.everyShard[ns])
	}
	// Watching every namespace, the cluster-wide factories are those of ""
	// (a factory starts and stops once however often it is named).
	return out
}

func (f *informerFactories) start(stop <-chan struct{}) {
	for _, factory := range f.konnectFactories() {
		factory.Start(stop)
	}
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
	for _, factory := range f.konnectFactories() {
		factory.Shutdown()
	}
	for _, factories := range f.secrets {
		for _, factory := range factories {
			factory.Shutdown()
		}
	}
	for _, factory := range f.rightsBindings {
		factory.Shutdown()
	}
}

// KonnectInformerFactory returns the factory of Konnect objects the
// operator builds for namespace, its caches trimmed as the operator's are,
// so that tests can look at what those caches hold.
func KonnectInformerFactory(kube kubernetes.Interface, cs versioned.Interface, namespace string) externalversions.SharedInformerFactory {
	return newInformerFactories(kube, cs, []string{namespace}, "").konnect[namespace]
}
