package entities

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// Where the Event Gateway's entities live: in the gateway that their
// object names (a backend cluster, a listener, a schema registry, a
// data-plane certificate), or that their parent's does (a virtual
// cluster lives in its backend cluster's gateway, a policy under its
// listener or virtual cluster). Every one uses the credentials of its
// gateway's KonnectEventGateway.
//
// Kong Operator's KongReferenceGrants name the Event Gateway kinds in the
// konnect.konghq.com group, whatever their API group (its grant rules
// admit no other), and so do the grants here.

// Kinds of the Event Gateway as references and grants name them.
const (
	KindEventGateway               = "KonnectEventGateway"
	KindEventGatewayBackendCluster = "EventGatewayBackendCluster"
	KindEventGatewayListener       = "EventGatewayListener"
	KindEventGatewayVirtualCluster = "EventGatewayVirtualCluster"
	KindEventGatewaySchemaRegistry = "EventGatewaySchemaRegistry"
)

type (
	eventGateway        = *konnectv1alpha1.KonnectEventGateway
	egBackendCluster    = *configurationv1alpha1.EventGatewayBackendCluster
	egListener          = *configurationv1alpha1.EventGatewayListener
	egVirtualCluster    = *configurationv1alpha1.EventGatewayVirtualCluster
	egSchemaRegistry    = *configurationv1alpha1.EventGatewaySchemaRegistry
	egDataPlaneCert     = *configurationv1alpha1.EventGatewayDataPlaneCertificate
	egListenerPolicy    = *configurationv1alpha1.EventGatewayListenerPolicy
	egClusterPolicy     = *configurationv1alpha1.EventGatewayVirtualClusterPolicy
	egConsumePolicy     = *configurationv1alpha1.EventGatewayVirtualClusterConsumePolicy
	egProducePolicy     = *configurationv1alpha1.EventGatewayVirtualClusterProducePolicy
	egSensitiveData     = configurationv1alpha1.SensitiveDataSource
	egSchemaRegistryBy  = configurationv1alpha1.EventGatewaySchemaRegistryRef
	egConsumeValidation = configurationv1alpha1.EventGatewayConsumeValidation
)

// EventGatewayObjects are the informers of the Event Gateway kinds that
// the objects of other kinds name.
type EventGatewayObjects struct {
	Gateways         *controller.Informer[eventGateway]
	BackendClusters  *controller.Informer[egBackendCluster]
	Listeners        *controller.Informer[egListener]
	VirtualClusters  *controller.Informer[egVirtualCluster]
	SchemaRegistries *controller.Informer[egSchemaRegistry]
}

// egEntity is an object of an entity that lives in an event gateway.
type egEntity interface {
	controller.Entity
	EventGatewayParentRef() *commonv1alpha1.ObjectRef
	EventGatewayRecords() configurationv1alpha1.EventGatewayRecords
}

// egReferrer is obj, of kind, as grants name it.
func egReferrer(kind string, obj metav1.Object) referrer {
	return referrer{group: groupKonnect, kind: kind, namespace: obj.GetNamespace()}
}

// egParent is how a kind names its parent: the parent's kind, the
// condition that reports the reference, and the spec field.
func egParent[T egEntity](kind, condition, field string) parentByObjectRef[T] {
	return parentByObjectRef[T]{
		kind: kind, condition: condition, field: field,
		ref:      func(obj T) *commonv1alpha1.ObjectRef { return obj.EventGatewayParentRef() },
		recorded: func(obj T) string { return obj.EventGatewayRecords().RecordedParentID() },
		record:   func(obj T, id string) { obj.EventGatewayRecords().RecordParentID(id) },
	}
}

// egParentConditions are the reference conditions of an Event Gateway
// entity.
func egParentConditions(condition string) []string {
	return []string{condition, commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ConditionResolvedRefs}
}

// egGrantedParent resolves the parent object that ref names, checking the
// grant a parent in another namespace needs; it returns the parent and
// its Konnect ID, or "" when the entity cannot be placed (the resolver
// says why).
func egGrantedParent[T egEntity, P controller.Entity](b *resolver, refs *Refs, kind string, ref parentByObjectRef[T], parents *controller.Informer[P], obj T) (P, string) {
	var zero P
	namespace, name, ok := ref.named(b, obj)
	if !ok {
		return zero, ""
	}
	from := egReferrer(kind, obj)
	if namespace != from.namespace && !refs.crossNamespaceRef(b, from, groupKonnect, ref.kind, namespace, name) {
		b.notReady()
		return zero, ""
	}
	return parent(b, parents, ref.condition, ref.kind, namespace, name)
}

// underEventGateway places a kind's entities in the KonnectEventGateway
// that spec.gatewayRef names, with its credentials.
func underEventGateway[T egEntity](refs *Refs, kind string, objects EventGatewayObjects) placed[T] {
	ref := egParent[T](KindEventGateway, commonv1alpha1.ConditionEventGatewayRefValid, "spec.gatewayRef")
	return placed[T]{
		refs:       refs,
		conditions: egParentConditions(ref.condition),
		steps: []func(*resolver, T){func(b *resolver, obj T) {
			gw, gatewayID := egGrantedParent(b, refs, kind, ref, objects.Gateways, obj)
			if gatewayID == "" {
				return
			}
			ref.moved(b, obj, gatewayID)
			b.res.Placement.ParentID = gatewayID
			b.res.Placement.Auth = refs.authOf(b, egReferrer(KindEventGateway, gw), gw.GetName(), &gw.Spec.KonnectConfiguration)
		}},
		dependencies: []controller.Dependency[T]{{Name: dependencyOf(KindEventGateway), Source: objects.Gateways, Keys: ref.keys}},
		namespaces:   []func(T) []string{ref.namespaces},
		managed:      func(T) bool { return true },
	}
}

// egNesting says where an entity named by its parent object lives.
type egNesting int

const (
	// egBesideParent: in the parent's gateway, next to the parent (a
	// virtual cluster, which maps to its backend cluster).
	egBesideParent egNesting = iota
	// egBelowParent: below the parent, whose path names the gateway too
	// (a policy of a listener or of a virtual cluster).
	egBelowParent
)

// underEventGatewayEntity places a kind's entities by the entity of its
// gateway that ref names (an object of parents, whose status records the
// gateway's ID), with the gateway's credentials.
func underEventGatewayEntity[T, P egEntity](refs *Refs, kind string, objects EventGatewayObjects, ref parentByObjectRef[T],
	parents *controller.Informer[P], nesting egNesting) placed[T] {
	return placed[T]{
		refs:       refs,
		conditions: egParentConditions(ref.condition),
		steps: []func(*resolver, T){func(b *resolver, obj T) {
			p, parentID := egGrantedParent(b, refs, kind, ref, parents, obj)
			if parentID == "" {
				return
			}
			gatewayID := p.EventGatewayRecords().RecordedGatewayID()
			gw, err := gatewayOf(objects, p)
			if err != nil || gatewayID == "" {
				b.invalid(ref.condition, commonv1alpha1.ReasonInvalid, "the event gateway of %s %s/%s is not known yet: %v",
					ref.kind, p.GetNamespace(), p.GetName(), orMissing(err))
				return
			}
			switch nesting {
			case egBelowParent:
				ref.moved(b, obj, parentID)
				b.res.Placement.ParentID, b.res.Placement.GrandparentID = parentID, gatewayID
			case egBesideParent:
				// Another parent of the same gateway is a change of the
				// entity (a virtual cluster's destination), not a move.
				egMovedGateway(b, obj, gatewayID)
				ref.record(obj, parentID)
				b.res.Placement.ParentID = gatewayID
			}
			obj.EventGatewayRecords().RecordGatewayID(gatewayID)
			b.res.Placement.Auth = refs.authOf(b, egReferrer(KindEventGateway, gw), gw.GetName(), &gw.Spec.KonnectConfiguration)
		}},
		dependencies: []controller.Dependency[T]{{Name: dependencyOf(ref.kind), Source: parents, Keys: ref.keys}},
		namespaces:   []func(T) []string{ref.namespaces},
		managed:      func(T) bool { return true },
	}
}

// egMovedGateway clears the entity's ID when it was created in another
// gateway (the gateway was created again): the ID means nothing there.
// When deleting, such an entity went with the old gateway.
func egMovedGateway[T egEntity](b *resolver, obj T, gatewayID string) {
	recorded := obj.EventGatewayRecords().RecordedGatewayID()
	if recorded == "" || recorded == gatewayID {
		return
	}
	status := obj.KonnectStatus(true)
	if b.forDelete() && status.ID != "" {
		b.gone()
	}
	status.ID = ""
}

// orMissing explains a parent that records no gateway.
func orMissing(err error) error {
	if err == nil {
		return fmt.Errorf("it records no gateway ID")
	}
	return err
}

// gatewayOf follows obj's references to its KonnectEventGateway object.
func gatewayOf[P egEntity](o EventGatewayObjects, obj P) (eventGateway, error) {
	namespace, name, ok := obj.EventGatewayParentRef().Named(obj.GetNamespace())
	if !ok {
		return nil, fmt.Errorf("%s/%s names its parent by Konnect ID", obj.GetNamespace(), obj.GetName())
	}
	if _, isVirtualCluster := any(obj).(egVirtualCluster); isVirtualCluster {
		backend, err := o.BackendClusters.Get(namespace, name)
		if err != nil {
			return nil, err
		}
		return gatewayOf(o, backend)
	}
	return o.Gateways.Get(namespace, name)
}
