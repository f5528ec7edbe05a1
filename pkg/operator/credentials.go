package operator

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// credentialClient is what the generated typed client of a credential
// kind offers to both its adapter and its reconciler.
type credentialClient[T controller.Object] interface {
	entities.ObjectWriter[T]
	controller.Client[T]
}

// credentialKind builds one consumer credential kind: its adapter, which
// also makes objects from credential Secrets, and the controller that
// reconciles it into Konnect.
func credentialKind[T controller.Entity, E any, C credentialClient[T]](
	f *informerFactories, d dependencies, refs *entities.Refs, consumers *controller.Informer[*configurationv1.KongConsumer],
	resource schema.GroupResource, informer func(externalversions.SharedInformerFactory) cache.SharedIndexInformer,
	clients func(namespace string) C,
	newAdapter func(entities.CredentialDeps[T]) *entities.CredentialAdapter[T, E],
) (entities.CredentialKind, runnable, error) {
	objects := namespaced[T](f, resource, informer)
	adapter := newAdapter(entities.CredentialDeps[T]{
		Refs: refs, Consumers: consumers, Objects: objects,
		Clients: func(ns string) entities.ObjectWriter[T] { return clients(ns) },
	})
	c, err := entityController(d, adapter, objects, func(ns string) controller.Client[T] { return clients(ns) })
	return adapter, c, err
}

// credentialControllers builds the five credential kinds and the
// controller that makes their objects from credential Secrets.
func credentialControllers(f *informerFactories, d dependencies, refs *entities.Refs, consumers *controller.Informer[*configurationv1.KongConsumer]) ([]entities.CredentialKind, []runnable, error) {
	cs := d.clientset.ConfigurationV1alpha1()
	var kinds []entities.CredentialKind
	var built []runnable
	add := func(kind entities.CredentialKind, c runnable, err error) error {
		kinds, built = append(kinds, kind), append(built, c)
		return err
	}
	for _, err := range []error{
		add(credentialKind(f, d, refs, consumers, configurationv1alpha1.Resource("kongcredentialbasicauths"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCredentialBasicAuths().Informer()
			}, cs.KongCredentialBasicAuths, entities.NewBasicAuthAdapter)),
		add(credentialKind(f, d, refs, consumers, configurationv1alpha1.Resource("kongcredentialapikeys"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCredentialAPIKeys().Informer()
			}, cs.KongCredentialAPIKeys, entities.NewAPIKeyAdapter)),
		add(credentialKind(f, d, refs, consumers, configurationv1alpha1.Resource("kongcredentialacls"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCredentialACLs().Informer()
			}, cs.KongCredentialACLs, entities.NewACLAdapter)),
		add(credentialKind(f, d, refs, consumers, configurationv1alpha1.Resource("kongcredentialjwts"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCredentialJWTs().Informer()
			}, cs.KongCredentialJWTs, entities.NewJWTAdapter)),
		add(credentialKind(f, d, refs, consumers, configurationv1alpha1.Resource("kongcredentialhmacs"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCredentialHMACs().Informer()
			}, cs.KongCredentialHMACs, entities.NewHMACAdapter)),
	} {
		if err != nil {
			return nil, nil, err
		}
	}
	secrets, err := entities.NewCredentialSecretController(&entities.CredentialSecretReconciler{
		Consumers: consumers, Secrets: refs.Secrets, Kinds: kinds,
	}, d.options())
	if err != nil {
		return nil, nil, err
	}
	return kinds, append(built, secrets), nil
}
