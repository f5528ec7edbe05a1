package export

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// An event gateway's kinds have no spec.adopt (nor have Kong Operator's).
// What takes an entity over without a write is the operator's recovery:
// an object without an ID takes back the entity whose identity labels
// (k8s-kind, k8s-namespace, k8s-name) name it, and a data-plane
// certificate, which carries no labels, the one with its certificate. So
// an entity is exported as the object its labels name, in the export's
// namespace; one its labels do not name an object for (made in Konnect's
// UI, or written for another namespace or by another cluster's operator)
// is not exported, and said so: an object applied for it would create a
// second entity, or be refused.

// egSpecOf reads an entity into spec, its kind's apiSpec; a consume
// policy's schema registry becomes the exported object that stands for
// it.
func (b *builder) egSpecOf(entity map[string]any, spec any, registries []map[string]any) error {
	return entities.DecodeEventGatewaySpec(entity, spec, func(ref map[string]any) (string, error) {
		id, _ := ref["id"].(string)
		if name, _ := ref["name"].(string); id == "" && name != "" {
			for _, r := range registries {
				if r["name"] == name {
					id, _ = r["id"].(string)
				}
			}
		}
		if object := b.nameOf(entities.KindEventGatewaySchemaRegistry, id); object != "" {
			return object, nil
		}
		return "", fmt.Errorf("it names schema registry %v, which is not exported", ref)
	})
}

// egIdentities counts, by the object's namespace and name, the entities
// of a collection whose identity labels name an object of kind.
func egIdentities(kind string, entities []map[string]any) map[string]int {
	out := map[string]int{}
	for _, e := range entities {
		if id := controller.IdentityFromLabels(egLabels(e)); id.Kind == kind {
			out[id.Namespace+"/"+id.Name]++
		}
	}
	return out
}

// egObjectName is the name of the object that takes entity (of kind, one
// of a collection whose identities are counted in named) back: the one
// its identity labels name. "" when there is none in the export's
// namespace; what is not exported is noted.
func (b *builder) egObjectName(what, kind string, entity map[string]any, named map[string]int) string {
	labels, id := egLabels(entity), egID(entity)
	identity := controller.IdentityFromLabels(labels)
	var why string
	switch {
	case identity.Kind == "" && identity.Name == "":
		why = "it carries no identity labels (k8s-kind, k8s-namespace, k8s-name): it was not written for an object, and " + kind +
			", like Kong Operator's, has no spec.adopt, so an object applied for it would make a second one (or be refused for its name)"
	case identity.Kind != kind:
		why = "its identity labels name a " + identity.Kind + ", not a " + kind
	case identity.Namespace != b.opts.Namespace:
		why = fmt.Sprintf("it was written for %s: export it with -n %s", identity, identity.Namespace)
	case named[identity.Namespace+"/"+identity.Name] > 1:
		why = fmt.Sprintf("%d entities of its collection were written for %s, which takes back only one of them", named[identity.Namespace+"/"+identity.Name], identity)
	case len(validation.IsDNS1123Subdomain(identity.Name)) > 0:
		why = fmt.Sprintf("its identity labels name %q, which is not an object name", identity.Name)
	case !b.names.take(kind, identity.Name):
		why = "another exported " + kind + " is called " + identity.Name
	}
	if why != "" {
		b.skip(what, id, why)
		return ""
	}
	if owner := labels[controller.TagKeyCluster]; owner != "" && !slices.Contains(b.egOwners, owner) {
		b.egOwners = append(b.egOwners, owner)
		b.note("%s %s and what it holds were written by the operator of cluster %s (label %s): the exported objects take them back only under an operator run with --cluster-identity=%s; any other refuses them (OwnedByOtherCluster)",
			what, id, owner, controller.TagKeyCluster, owner)
	}
	return identity.Name
}

// egRef names the exported object called name.
func egRef(name string) commonv1alpha1.ObjectRef {
	return commonv1alpha1.ObjectRef{Type: commonv1alpha1.ObjectRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: name}}
}

// eventGatewayFamily adds the event gateway and what it holds; nothing
// of it when the gateway itself is not exported.
func (b *builder) eventGatewayFamily(c entities.EventGatewayContents) {
	gateway := c.Gateway
	name := b.egObjectName("event gateway", entities.KindEventGateway, gateway, map[string]int{})
	if name == "" {
		if n := egHeld(c); n > 0 {
			b.note("not exported either: the %d entities event gateway %s holds", n, egID(gateway))
		}
		return
	}
	obj := &konnectv1alpha1.KonnectEventGateway{
		TypeMeta:   typeMeta(konnectv1alpha1.GroupVersion, entities.KindEventGateway),
		ObjectMeta: b.meta(name),
		Spec: konnectv1alpha1.KonnectEventGatewaySpec{
			KonnectConfiguration: konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: b.opts.AuthConfiguration}},
		},
	}
	if !b.egRead("event gateway", gateway, &obj.Spec.APISpec, nil) {
		return
	}
	b.add(obj, entities.KindEventGateway, egID(gateway), name)
	for _, step := range []func(gateway string, c entities.EventGatewayContents){
		b.egBackendClusters, b.egSchemaRegistries, b.egListeners, b.egDataPlaneCertificates, b.egVirtualClusters,
		b.egListenerPolicies, b.egClusterPolicies, b.egConsumePolicies, b.egProducePolicies,
	} {
		step(name, c)
	}
}

// egHeld counts the entities below a gateway.
func egHeld(c entities.EventGatewayContents) int {
	n := len(c.BackendClusters) + len(c.Listeners) + len(c.VirtualClusters) + len(c.SchemaRegistries) + len(c.DataPlaneCertificates)
	for _, policies := range []map[string][]map[string]any{c.ListenerPolicies, c.ClusterPolicies, c.ConsumePolicies, c.ProducePolicies} {
		for _, p := range policies {
			n += len(p)
		}
	}
	return n
}

// egSorted orders entities by their IDs, so that every run writes the
// same.
func egSorted(items []map[string]any) []map[string]any {
	out := slices.Clone(items)
	slices.SortFunc(out, func(a, b map[string]any) int { return strings.Compare(egID(a), egID(b)) })
	return out
}

func egID(entity map[string]any) string {
	id, _ := entity["id"].(string)
	return id
}

// egLabels are an entity's labels as strings.
func egLabels(entity map[string]any) map[string]string {
	out := map[string]string{}
	labels, _ := entity["labels"].(map[string]any)
	for k, v := range labels {
		out[k] = fmt.Sprint(v)
	}
	return out
}
