package entities

import (
	"context"
	"fmt"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// The policies of the Event Gateway: a listener's, and a virtual
// cluster's (cluster-level, consume and produce). Each is a union whose
// member the CRD's rules check at admission; Konnect lists a parent's
// policies all at once, in their order.

// EventGatewayListenerPolicyKind describes EventGatewayListenerPolicies:
// how a listener serves TLS and forwards connections to virtual clusters.
// Konnect never answers the certificates' private keys.
func EventGatewayListenerPolicyKind(refs *Refs, objects EventGatewayObjects) controller.Kind[egListenerPolicy, egBody] {
	kind := KindEventGatewayListenerPolicy
	ref := egParent[egListenerPolicy](KindEventGatewayListener, commonv1alpha1.ConditionEventGatewayListenerRefValid, "spec.eventGatewayListenerRef")
	return egKind[egListenerPolicy]{
		gvk: egGVK(kind),
		placed: readingSensitiveData(underEventGatewayEntity(refs, kind, objects, ref, objects.Listeners, egBelowParent), refs, kind,
			func(p egListenerPolicy) []egSensitiveData {
				var sources []egSensitiveData
				if tls := p.Spec.APISpec.TLSServer; tls != nil {
					for i := range tls.Config.Certificates {
						sources = append(sources, egIdentitySources(&tls.Config.Certificates[i])...)
					}
				}
				return sources
			}),
		calls:   listenerPolicySDK.calls(),
		spec:    func(p egListenerPolicy) any { return p.Spec.APISpec },
		secrets: egSecretPaths{"config.certificates[].key"},
	}.kind(refs)
}

var listenerPolicySDK = egSDK[components.EventGatewayListenerPolicyCreate, components.EventGatewayListenerPolicyUpdate, components.EventGatewayListenerPolicy]{
	answerIncomplete: true,
	entity:           "event_gateway_listener_policy", nested: true, path: egPath("/listeners", "/policies"),
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body *components.EventGatewayListenerPolicyCreate) (*components.EventGatewayListenerPolicy, error) {
		res, err := api.EventGatewayListenerPolicies.CreateEventGatewayListenerPolicy(ctx, operations.CreateEventGatewayListenerPolicyRequest{
			GatewayID: p.GrandparentID, ListenerID: p.ParentID, EventGatewayListenerPolicyCreate: *body,
		})
		return res.GetEventGatewayListenerPolicy(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *components.EventGatewayListenerPolicyUpdate) (*components.EventGatewayListenerPolicy, error) {
		res, err := api.EventGatewayListenerPolicies.UpdateEventGatewayListenerPolicy(ctx, operations.UpdateEventGatewayListenerPolicyRequest{
			GatewayID: p.GrandparentID, ListenerID: p.ParentID, PolicyID: id, EventGatewayListenerPolicyUpdate: *body,
		})
		return res.GetEventGatewayListenerPolicy(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.EventGatewayListenerPolicies.DeleteEventGatewayListenerPolicy(ctx, operations.DeleteEventGatewayListenerPolicyRequest{
			GatewayID: p.GrandparentID, ListenerID: p.ParentID, PolicyID: id,
		})
		return err
	},
}

// underVirtualCluster places a policy below the virtual cluster that its
// spec.eventGatewayVirtualClusterRef names.
func underVirtualCluster[T egEntity](refs *Refs, kind string, objects EventGatewayObjects) placed[T] {
	ref := egParent[T](KindEventGatewayVirtualCluster, commonv1alpha1.ConditionEventGatewayVirtualClusterRefValid, "spec.eventGatewayVirtualClusterRef")
	return underEventGatewayEntity(refs, kind, objects, ref, objects.VirtualClusters, egBelowParent)
}

// EventGatewayClusterPolicyKind describes EventGatewayVirtualClusterPolicies:
// a virtual cluster's cluster-level policies (ACLs).
func EventGatewayClusterPolicyKind(refs *Refs, objects EventGatewayObjects) controller.Kind[egClusterPolicy, egBody] {
	kind := KindEventGatewayClusterPolicy
	return egKind[egClusterPolicy]{
		gvk:    egGVK(kind),
		placed: underVirtualCluster[egClusterPolicy](refs, kind, objects),
		calls:  clusterPolicySDK.calls(),
		spec:   func(p egClusterPolicy) any { return p.Spec.APISpec },
	}.kind(refs)
}

var clusterPolicySDK = egSDK[components.EventGatewayClusterPolicyModify, components.EventGatewayClusterPolicyModify, components.EventGatewayPolicy]{
	answerIncomplete: true,
	entity:           "event_gateway_cluster_policy", nested: true, path: egPath("/virtual-clusters", "/cluster-policies"),
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body *components.EventGatewayClusterPolicyModify) (*components.EventGatewayPolicy, error) {
		res, err := api.EventGatewayClusterPolicies.CreateEventGatewayVirtualClusterClusterLevelPolicy(ctx, operations.CreateEventGatewayVirtualClusterClusterLevelPolicyRequest{
			GatewayID: p.GrandparentID, VirtualClusterID: p.ParentID, EventGatewayClusterPolicyModify: body,
		})
		return res.GetEventGatewayPolicy(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *components.EventGatewayClusterPolicyModify) (*components.EventGatewayPolicy, error) {
		res, err := api.EventGatewayClusterPolicies.UpdateEventGatewayVirtualClusterClusterLevelPolicy(ctx, operations.UpdateEventGatewayVirtualClusterClusterLevelPolicyRequest{
			GatewayID: p.GrandparentID, VirtualClusterID: p.ParentID, PolicyID: id, EventGatewayClusterPolicyModify: body,
		})
		return res.GetEventGatewayPolicy(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.EventGatewayClusterPolicies.DeleteEventGatewayVirtualClusterClusterLevelPolicy(ctx, operations.DeleteEventGatewayVirtualClusterClusterLevelPolicyRequest{
			GatewayID: p.GrandparentID, VirtualClusterID: p.ParentID, PolicyID: id,
		})
		return err
	},
}

// EventGatewayConsumePolicyKind describes
// EventGatewayVirtualClusterConsumePolicies: what a virtual cluster does
// to the records its clients consume. A schema validation names its
// schema registry by object, of the policy's namespace and gateway.
func EventGatewayConsumePolicyKind(refs *Refs, objects EventGatewayObjects) controller.Kind[egConsumePolicy, egBody] {
	kind := KindEventGatewayConsumePolicy
	registryOf := func(p egConsumePolicy) *egSchemaRegistryBy {
		sv := p.Spec.APISpec.SchemaValidation
		if sv == nil || sv.Config == nil {
			return nil
		}
		for _, v := range []*egConsumeValidation{sv.Config.ConfluentSchemaRegistry, sv.Config.JSON} {
			if v != nil && v.SchemaRegistry != nil {
				return v.SchemaRegistry
			}
		}
		return nil
	}
	return egKind[egConsumePolicy]{
		gvk:    egGVK(kind),
		placed: namingSchemaRegistry(underVirtualCluster[egConsumePolicy](refs, kind, objects), objects, registryOf),
		calls:  consumePolicySDK.calls(),
		spec:   func(p egConsumePolicy) any { return p.Spec.APISpec },
		schemaRegistry: func(p egConsumePolicy, ref egSchemaRegistryBy) (any, error) {
			r, err := objects.SchemaRegistries.Get(p.Namespace, ref.Name)
			if err != nil || r.Status.ID == "" {
				return nil, fmt.Errorf("%s %s/%s has no Konnect ID yet", KindEventGatewaySchemaRegistry, p.Namespace, ref.Name)
			}
			return map[string]any{"id": r.Status.ID}, nil
		},
	}.kind(refs)
}

var consumePolicySDK = egSDK[components.EventGatewayConsumePolicyCreate, components.EventGatewayConsumePolicyUpdate, components.EventGatewayPolicy]{
	answerIncomplete: true,
	entity:           "event_gateway_consume_policy", nested: true, path: egPath("/virtual-clusters", "/consume-policies"),
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body *components.EventGatewayConsumePolicyCreate) (*components.EventGatewayPolicy, error) {
		res, err := api.EventGatewayConsumePolicies.CreateEventGatewayVirtualClusterConsumePolicy(ctx, operations.CreateEventGatewayVirtualClusterConsumePolicyRequest{
			GatewayID: p.GrandparentID, VirtualClusterID: p.ParentID, EventGatewayConsumePolicyCreate: body,
		})
		return res.GetEventGatewayPolicy(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *components.EventGatewayConsumePolicyUpdate) (*components.EventGatewayPolicy, error) {
		res, err := api.EventGatewayConsumePolicies.UpdateEventGatewayVirtualClusterConsumePolicy(ctx, operations.UpdateEventGatewayVirtualClusterConsumePolicyRequest{
			GatewayID: p.GrandparentID, VirtualClusterID: p.ParentID, PolicyID: id, EventGatewayConsumePolicyUpdate: body,
		})
		return res.GetEventGatewayPolicy(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.EventGatewayConsumePolicies.DeleteEventGatewayVirtualClusterConsumePolicy(ctx, operations.DeleteEventGatewayVirtualClusterConsumePolicyRequest{
			GatewayID: p.GrandparentID, VirtualClusterID: p.ParentID, PolicyID: id,
		})
		return err
	},
}

// EventGatewayProducePolicyKind describes
// EventGatewayVirtualClusterProducePolicies: what a virtual cluster does
// to the records its clients produce. A schema validation names its
// schema registry by Konnect ID or name, as Konnect does.
func EventGatewayProducePolicyKind(refs *Refs, objects EventGatewayObjects) controller.Kind[egProducePolicy, egBody] {
	kind := KindEventGatewayProducePolicy
	return egKind[egProducePolicy]{
		gvk:    egGVK(kind),
		placed: underVirtualCluster[egProducePolicy](refs, kind, objects),
		calls:  producePolicySDK.calls(),
		spec:   func(p egProducePolicy) any { return p.Spec.APISpec },
	}.kind(refs)
}

var producePolicySDK = egSDK[components.EventGatewayProducePolicyCreate, components.EventGatewayProducePolicyUpdate, components.EventGatewayPolicy]{
	answerIncomplete: true,
	entity:           "event_gateway_produce_policy", nested: true, path: egPath("/virtual-clusters", "/produce-policies"),
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body *components.EventGatewayProducePolicyCreate) (*components.EventGatewayPolicy, error) {
		res, err := api.EventGatewayProducePolicies.CreateEventGatewayVirtualClusterProducePolicy(ctx, operations.CreateEventGatewayVirtualClusterProducePolicyRequest{
			GatewayID: p.GrandparentID, VirtualClusterID: p.ParentID, EventGatewayProducePolicyCreate: body,
		})
		return res.GetEventGatewayPolicy(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *components.EventGatewayProducePolicyUpdate) (*components.EventGatewayPolicy, error) {
		res, err := api.EventGatewayProducePolicies.UpdateEventGatewayVirtualClusterProducePolicy(ctx, operations.UpdateEventGatewayVirtualClusterProducePolicyRequest{
			GatewayID: p.GrandparentID, VirtualClusterID: p.ParentID, PolicyID: id, EventGatewayProducePolicyUpdate: body,
		})
		return res.GetEventGatewayPolicy(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.EventGatewayProducePolicies.DeleteEventGatewayVirtualClusterProducePolicy(ctx, operations.DeleteEventGatewayVirtualClusterProducePolicyRequest{
			GatewayID: p.GrandparentID, VirtualClusterID: p.ParentID, PolicyID: id,
		})
		return err
	},
}

// namingSchemaRegistry adds to p the schema registry that registryOf(obj)
// names, of obj's namespace: it must be Programmed in obj's gateway. It
// is reported by SchemaRegistryRefValid, and holds the registry while
// being deleted.
func namingSchemaRegistry[T egEntity](p placed[T], objects EventGatewayObjects, registryOf func(T) *egSchemaRegistryBy) placed[T] {
	condition := commonv1alpha1.ConditionEventGatewaySchemaRegistryRefValid
	return p.with(reference[T]{
		conditions: []string{condition},
		resolve: func(b *resolver, obj T) {
			ref := registryOf(obj)
			if ref == nil || b.forDelete() {
				return
			}
			if ref.Namespace != "" && ref.Namespace != obj.GetNamespace() {
				b.refuse(condition, commonv1alpha1.ReasonInvalid,
					"schemaRegistry names namespace %s: only a schema registry of the policy's own namespace can be named; remove namespace", ref.Namespace)
				return
			}
			r, id := parent(b, objects.SchemaRegistries, condition, KindEventGatewaySchemaRegistry, obj.GetNamespace(), ref.Name)
			if id == "" {
				return
			}
			if gw, own := r.Status.RecordedGatewayID(), obj.EventGatewayRecords().RecordedGatewayID(); gw != own {
				b.refuse(condition, commonv1alpha1.ReasonInvalid,
					"%s %s/%s belongs to event gateway %s, the policy to %s: name a schema registry of the policy's gateway", KindEventGatewaySchemaRegistry, r.Namespace, r.Name, gw, own)
			}
		},
		dependencies: []controller.Dependency[T]{{
			Name: dependencyOf(KindEventGatewaySchemaRegistry), Source: objects.SchemaRegistries,
			Keys: func(obj T) []string {
				if ref := registryOf(obj); ref != nil {
					return []string{key(obj.GetNamespace(), ref.Name)}
				}
				return nil
			},
		}},
	})
}
