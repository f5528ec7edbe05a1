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
// kind offers to both the credential-Secret controller and the kind's own.
type credentialClient[T controller.Object] interface {
	entities.ObjectWriter[T]
	controller.Client[T]
}

// credentialKind builds one consumer credential kind: its description,
// whose part in credential Secrets makes objects from them, and the
// controller that reconciles it into Konnect.
func credentialKind[T controller.Entity, B any, C credentialClient[T]](
	f *informerFactories, d dependencies, refs *entities.Refs, consumers *controller.Informer[*configurationv1.KongConsumer],
	resource schema.GroupResource, informer func(externalversions.SharedInformerFactory) cache.SharedIndexInformer,
	clients func(namespace string) C,
	describe func(entities.CredentialDeps[T]) entities.Credential[T, B],
) (entities.CredentialKind, runnable, error) {
	objects := namespaced[T](f, resource, informer)
	credential := describe(entities.CredentialDeps[T]{
		Refs: refs, Consumers: consumers, Objects: objects,
		Clients: func(ns string) entities.ObjectWriter[T] { return clients(ns) },
	})
	c, err := kindController(d, credential.Kind, objects, func(ns string) controller.Client[T] { return clients(ns) })
	return credential.CredentialKind, c, err
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
			}, cs.KongCredentialBasicAuths, entities.BasicAuthKind)),
		add(credentialKind(f, d, refs, consumers, configurationv1alpha1.Resource("kongcredentialapikeys"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCredentialAPIKeys().Informer()
			}, cs.KongCredentialAPIKeys, entities.APIKeyKind)),
		add(credentialKind(f, d, refs, consumers, configurationv1alpha1.Resource("kongcredentialacls"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCredentialACLs().Informer()
			}, cs.KongCredentialACLs, entities.ACLKind)),
		add(credentialKind(f, d, refs, consumers, configurationv1alpha1.Resource("kongcredentialjwts"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCredentialJWTs().Informer()
			}, cs.KongCredentialJWTs, entities.JWTKind)),
		add(credentialKind(f, d, refs, consumers, configurationv1alpha1.Resource("kongcredentialhmacs"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCredentialHMACs().Informer()
			}, cs.KongCredentialHMACs, entities.HMACKind)),
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
