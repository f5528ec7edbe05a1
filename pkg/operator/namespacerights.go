package operator

import (
	"context"
	"encoding/json"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/companions"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// rightsBindingFactories caches, in each watched namespace, the one
// RoleBinding that grants the operator its rights there, selected by name:
// RBAC lets the operator read and patch that RoleBinding alone
// (resourceNames), which a list or watch honours only with this field
// selector.
func rightsBindingFactories(kube kubernetes.Interface, namespaces []string, bindingName string) map[string]kubeinformers.SharedInformerFactory {
	out := map[string]kubeinformers.SharedInformerFactory{}
	for _, ns := range namespaces {
		out[ns] = kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0,
			kubeinformers.WithNamespace(ns),
			kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
				o.FieldSelector = fields.OneTermEqualSelector("metadata.name", bindingName).String()
			}),
			kubeinformers.WithTransform(trimForCache))
	}
	return out
}

// rightsBindingInformer is the view of the operator's RoleBindings.
func (f *informerFactories) rightsBindingInformer() *controller.Informer[*rbacv1.RoleBinding] {
	informers := map[string]cache.SharedIndexInformer{}
	for ns, factory := range f.rightsBindings {
		informers[ns] = factory.Rbac().V1().RoleBindings().Informer()
	}
	return controller.NewInformer[*rbacv1.RoleBinding](rbacv1.Resource("rolebindings"), informers)
}

// namespaceRights builds the controller that keeps the operator's
// RoleBindings while their namespaces have its objects: every namespaced
// kind it caches counts, and the token Secrets it keeps itself.
func namespaceRights(w *wiring, refs *entities.Refs) (runnable, error) {
	keepers := []companions.RightsKeepers{
		keepersOf(w, authConfigs), keepersOf(w, controlPlanes), keepersOf(w, referenceGrants),
		keepersOf(w, kongServices), keepersOf(w, kongRoutes), keepersOf(w, kongConsumers), keepersOf(w, kongConsumerGroups),
		keepersOf(w, kongPlugins), keepersOf(w, kongPluginBindings),
		keepersOf(w, kongUpstreams), keepersOf(w, kongTargets), keepersOf(w, kongCertificates), keepersOf(w, kongCACertificates),
		keepersOf(w, kongSNIs), keepersOf(w, kongKeys), keepersOf(w, kongKeySets), keepersOf(w, kongDPCertificates),
		keepersOf(w, kongBasicAuths), keepersOf(w, kongAPIKeys), keepersOf(w, kongACLs), keepersOf(w, kongJWTs), keepersOf(w, kongHMACs),
		keepersOf(w, cloudNetworks), keepersOf(w, cloudTransitGateways), keepersOf(w, cloudDPGroupConfigurations),
		{
			Resource: "secrets", Source: companions.ByNamespace(refs.Secrets, companions.FinalizersChanged),
			Names: companions.ObjectsIn(refs.Secrets, companions.TokenSecretInUse),
		},
	}
	return companions.NewNamespaceRightsController(&companions.NamespaceRightsReconciler{
		Bindings:  w.f.rightsBindingInformer(),
		Keepers:   keepers,
		Writer:    roleBindingClient{kube: w.d.kube},
		Recorder:  w.d.recorder,
		Finalizer: commonv1alpha1.ShardFinalizer(commonv1alpha1.FinalizerNamespaceRights, w.f.shard),
	}, w.d.options())
}

// keepersOf counts every object of a namespaced kind.
func keepersOf[T controller.Object](w *wiring, r resource[T]) companions.RightsKeepers {
	objects := informerOf(w, r)
	return companions.RightsKeepers{
		Resource: r.gvr.Resource, Source: companions.ByNamespace(objects, nil), Names: companions.ObjectsIn(objects, nil),
	}
}

// roleBindingClient writes the finalizers of the operator's RoleBindings:
// a JSON merge patch of metadata.finalizers alone, conditional on the
// resource version read, as for Secrets (see secretClient).
type roleBindingClient struct {
	kube kubernetes.Interface
}

// SetFinalizers implements companions.RoleBindingFinalizers.
func (c roleBindingClient) SetFinalizers(ctx context.Context, binding *rbacv1.RoleBinding, finalizers []string) error {
	if finalizers == nil {
		finalizers = []string{}
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": binding.ResourceVersion, "finalizers": finalizers},
	})
	if err != nil {
		return err
	}
	_, err = c.kube.RbacV1().RoleBindings(binding.Namespace).Patch(ctx, binding.Name, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: controller.FieldManager})
	return err
}
