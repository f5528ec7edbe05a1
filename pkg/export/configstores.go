package export

import (
	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// kindConfigStore is the kind of exported config stores.
const kindConfigStore = "KonnectConfigStore"

// configStoreIDField is the field of a konnect vault's config that names
// its config store.
const configStoreIDField = "config_store_id"

// configStores exports the control plane's config stores. Kong Operator
// gives KonnectConfigStore no spec.adopt: an object takes the store of its
// name when it is applied, so that only a store with a name of its own can
// be exported; the others are noted.
func (b *builder) configStores(c entities.Contents) error {
	names := map[string]int{}
	for _, s := range c.ConfigStores {
		names[deref(s.Name)]++
	}
	for _, s := range sortedByID(c.ConfigStores, func(s *components.ConfigStore) *string { return s.ID }) {
		id, storeName := deref(s.ID), deref(s.Name)
		switch {
		case storeName == "":
			b.skip("config store", id, "it has no name, which is how its object would find it: name it in Konnect and export again")
			continue
		case names[storeName] > 1:
			b.skip("config store", id, "another store of the control plane has its name "+storeName+", which is how its object would find it")
			continue
		}
		name := b.names.name(kindConfigStore, b.cpName+"-"+storeName, b.cpName+"-config-store", id)
		obj := &konnectv1alpha1.KonnectConfigStore{
			TypeMeta:   typeMeta(konnectv1alpha1.GroupVersion, kindConfigStore),
			ObjectMeta: b.meta(name),
			Spec: konnectv1alpha1.KonnectConfigStoreSpec{
				ControlPlaneRef: commonv1alpha1.ObjectRef{
					Type: commonv1alpha1.ObjectRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: b.cpName},
				},
				APISpec: konnectv1alpha1.KonnectConfigStoreAPISpec{Name: storeName},
			},
		}
		b.add(obj, kindConfigStore, id, name)
	}
	return nil
}

// exportedStore is the object name of the exported config store a konnect
// vault names in its config, "" when it names none that was exported.
func (b *builder) exportedStore(v *components.Vault) string {
	if v.Name != "konnect" {
		return ""
	}
	id, _ := v.Config[configStoreIDField].(string)
	if id == "" {
		return ""
	}
	return b.nameOf(kindConfigStore, id)
}
