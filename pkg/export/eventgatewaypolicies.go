package export

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// The policies of an event gateway: a listener's, and a virtual cluster's
// (cluster-level, consume and produce). Each names the exported object of
// its listener or virtual cluster; a policy whose parent is not exported
// is not either.

// egPolicies exports the policies of every parent of parentKind, each
// made by object once it is read.
func (b *builder) egPolicies(what, kind, parentKind string, byParent map[string][]map[string]any, object func(name, parent string, entity map[string]any) (runtime.Object, bool)) {
	for _, parentID := range slices.Sorted(maps.Keys(byParent)) {
		policies := byParent[parentID]
		parent := b.nameOf(parentKind, parentID)
		named := egIdentities(kind, policies)
		for _, entity := range egSorted(policies) {
			if parent == "" {
				b.skip(what, egID(entity), "its "+parentKind+" "+parentID+" is not exported")
				continue
			}
			name := b.egObjectName(what, kind, entity, named)
			if name == "" {
				continue
			}
			if obj, ok := object(name, parent, entity); ok {
				b.add(obj, kind, egID(entity), name)
			}
		}
	}
}

func (b *builder) egListenerPolicies(_ string, c entities.EventGatewayContents) {
	kind := entities.KindEventGatewayListenerPolicy
	b.egPolicies("listener policy", kind, entities.KindEventGatewayListener, c.ListenerPolicies, func(name, parent string, entity map[string]any) (runtime.Object, bool) {
		obj := &configurationv1alpha1.EventGatewayListenerPolicy{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kind), ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.EventGatewayListenerPolicySpec{EventGatewayListenerRef: egRef(parent)},
		}
		if !b.egRead("listener policy", entity, &obj.Spec.APISpec, nil) {
			return nil, false
		}
		if tls := obj.Spec.APISpec.TLSServer; tls != nil {
			for i := range tls.Config.Certificates {
				b.egSensitive(kind, name, "config.certificates[].key", &tls.Config.Certificates[i].Key)
			}
		}
		return obj, true
	})
}

func (b *builder) egClusterPolicies(_ string, c entities.EventGatewayContents) {
	kind := entities.KindEventGatewayClusterPolicy
	b.egPolicies("virtual cluster policy", kind, entities.KindEventGatewayVirtualCluster, c.ClusterPolicies, func(name, parent string, entity map[string]any) (runtime.Object, bool) {
		obj := &configurationv1alpha1.EventGatewayVirtualClusterPolicy{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kind), ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.EventGatewayVirtualClusterPolicySpec{EventGatewayVirtualClusterRef: egRef(parent)},
		}
		return obj, b.egRead("virtual cluster policy", entity, &obj.Spec.APISpec, nil)
	})
}

func (b *builder) egConsumePolicies(_ string, c entities.EventGatewayContents) {
	kind := entities.KindEventGatewayConsumePolicy
	b.egPolicies("consume policy", kind, entities.KindEventGatewayVirtualCluster, c.ConsumePolicies, func(name, parent string, entity map[string]any) (runtime.Object, bool) {
		obj := &configurationv1alpha1.EventGatewayVirtualClusterConsumePolicy{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kind), ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.EventGatewayVirtualClusterConsumePolicySpec{EventGatewayVirtualClusterRef: egRef(parent)},
		}
		return obj, b.egRead("consume policy", entity, &obj.Spec.APISpec, c.SchemaRegistries)
	})
}

func (b *builder) egProducePolicies(_ string, c entities.EventGatewayContents) {
	kind := entities.KindEventGatewayProducePolicy
	b.egPolicies("produce policy", kind, entities.KindEventGatewayVirtualCluster, c.ProducePolicies, func(name, parent string, entity map[string]any) (runtime.Object, bool) {
		obj := &configurationv1alpha1.EventGatewayVirtualClusterProducePolicy{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kind), ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.EventGatewayVirtualClusterProducePolicySpec{EventGatewayVirtualClusterRef: egRef(parent)},
		}
		return obj, b.egRead("produce policy", entity, &obj.Spec.APISpec, nil)
	})
}
