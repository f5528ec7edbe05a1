package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// The kinds of what an event gateway holds directly: backend clusters,
// listeners, schema registries, data-plane certificates, and virtual
// clusters (each mapped to a backend cluster of the same gateway). Each
// waits, while being deleted, for the objects below it: Konnect would
// delete their entities with it, or refuse (a backend cluster a virtual
// cluster maps to).

// Kinds of the Event Gateway that nothing else refers to.
const (
	KindEventGatewayDataPlaneCertificate = "EventGatewayDataPlaneCertificate"
	KindEventGatewayListenerPolicy       = "EventGatewayListenerPolicy"
	KindEventGatewayClusterPolicy        = "EventGatewayVirtualClusterPolicy"
	KindEventGatewayConsumePolicy        = "EventGatewayVirtualClusterConsumePolicy"
	KindEventGatewayProducePolicy        = "EventGatewayVirtualClusterProducePolicy"
)

func egGVK(kind string) schemaGVK { return gvk(configurationv1alpha1.GroupVersion, kind) }

// EventGatewayBackendClusterKind describes EventGatewayBackendClusters:
// the Kafka clusters a gateway proxies. Konnect never answers their
// password.
func EventGatewayBackendClusterKind(refs *Refs, objects EventGatewayObjects) controller.Kind[egBackendCluster, egBody] {
	kind := KindEventGatewayBackendCluster
	return egKind[egBackendCluster]{
		gvk: egGVK(kind),
		placed: readingSensitiveData(underEventGateway[egBackendCluster](refs, kind, objects), refs, kind, func(c egBackendCluster) []egSensitiveData {
			return egIdentitySources(c.Spec.APISpec.TLS.ClientIdentity)
		}),
		calls:   backendClusterSDK.calls(),
		spec:    func(c egBackendCluster) any { return c.Spec.APISpec },
		secrets: egSecretPaths{"authentication.password", "tls.client_identity.key"},
		usedBy:  []string{dependencyOf(KindEventGatewayBackendCluster)},
	}.kind(refs)
}

// egIdentitySources are the sensitive values of a TLS identity.
func egIdentitySources(c *configurationv1alpha1.EventGatewayTLSCertificate) []egSensitiveData {
	if c == nil {
		return nil
	}
	return []egSensitiveData{c.Certificate, c.Key}
}

var backendClusterSDK = egSDK[components.CreateBackendClusterRequest, components.UpdateBackendClusterRequest, components.BackendCluster]{
	entity: "event_gateway_backend_cluster", parented: true, path: egPath("/backend-clusters"), paged: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body *components.CreateBackendClusterRequest) (*components.BackendCluster, error) {
		res, err := api.EventGatewayBackendClusters.CreateEventGatewayBackendCluster(ctx, p.ParentID, body)
		return res.GetBackendCluster(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *components.UpdateBackendClusterRequest) (*components.BackendCluster, error) {
		res, err := api.EventGatewayBackendClusters.UpdateEventGatewayBackendCluster(ctx, operations.UpdateEventGatewayBackendClusterRequest{
			GatewayID: p.ParentID, BackendClusterID: id, UpdateBackendClusterRequest: body,
		})
		return res.GetBackendCluster(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.EventGatewayBackendClusters.DeleteEventGatewayBackendCluster(ctx, p.ParentID, id)
		return err
	},
}

// EventGatewayListenerKind describes EventGatewayListeners: the addresses
// and ports a gateway listens on.
func EventGatewayListenerKind(refs *Refs, objects EventGatewayObjects) controller.Kind[egListener, egBody] {
	kind := KindEventGatewayListener
	return egKind[egListener]{
		gvk:    egGVK(kind),
		placed: underEventGateway[egListener](refs, kind, objects),
		calls:  listenerSDK.calls(),
		spec:   func(l egListener) any { return l.Spec.APISpec },
		usedBy: []string{dependencyOf(kind)},
	}.kind(refs)
}

var listenerSDK = egSDK[components.CreateEventGatewayListenerRequest, components.UpdateEventGatewayListenerRequest, components.EventGatewayListener]{
	entity: "event_gateway_listener", parented: true, path: egPath("/listeners"), paged: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body *components.CreateEventGatewayListenerRequest) (*components.EventGatewayListener, error) {
		res, err := api.EventGatewayListeners.CreateEventGatewayListener(ctx, p.ParentID, body)
		return res.GetEventGatewayListener(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *components.UpdateEventGatewayListenerRequest) (*components.EventGatewayListener, error) {
		res, err := api.EventGatewayListeners.UpdateEventGatewayListener(ctx, operations.UpdateEventGatewayListenerRequest{
			GatewayID: p.ParentID, EventGatewayListenerID: id, UpdateEventGatewayListenerRequest: body,
		})
		return res.GetEventGatewayListener(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.EventGatewayListeners.DeleteEventGatewayListener(ctx, p.ParentID, id)
		return err
	},
}

// EventGatewaySchemaRegistryKind describes EventGatewaySchemaRegistries:
// the schema registries that policies validate records with. Konnect
// never answers their password.
func EventGatewaySchemaRegistryKind(refs *Refs, objects EventGatewayObjects) controller.Kind[egSchemaRegistry, egBody] {
	kind := KindEventGatewaySchemaRegistry
	return egKind[egSchemaRegistry]{
		gvk: egGVK(kind),
		placed: readingSensitiveData(underEventGateway[egSchemaRegistry](refs, kind, objects), refs, kind, func(r egSchemaRegistry) []egSensitiveData {
			if c := r.Spec.APISpec.Confluent; c != nil && c.Config.Authentication != nil && c.Config.Authentication.Basic != nil {
				return []egSensitiveData{c.Config.Authentication.Basic.Password}
			}
			return nil
		}),
		calls:   schemaRegistrySDK.calls(),
		spec:    func(r egSchemaRegistry) any { return r.Spec.APISpec },
		secrets: egSecretPaths{"config.authentication.password"},
		usedBy:  []string{dependencyOf(kind)},
	}.kind(refs)
}

var schemaRegistrySDK = egSDK[components.SchemaRegistryCreate, components.SchemaRegistryUpdate, components.SchemaRegistry]{
	answerIncomplete: true,
	entity:           "event_gateway_schema_registry", parented: true, path: egPath("/schema-registries"), paged: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body *components.SchemaRegistryCreate) (*components.SchemaRegistry, error) {
		res, err := api.EventGatewaySchemaRegistries.CreateEventGatewaySchemaRegistry(ctx, p.ParentID, body)
		return res.GetSchemaRegistry(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *components.SchemaRegistryUpdate) (*components.SchemaRegistry, error) {
		res, err := api.EventGatewaySchemaRegistries.UpdateEventGatewaySchemaRegistry(ctx, operations.UpdateEventGatewaySchemaRegistryRequest{
			GatewayID: p.ParentID, SchemaRegistryID: id, SchemaRegistryUpdate: body,
		})
		return res.GetSchemaRegistry(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.EventGatewaySchemaRegistries.DeleteEventGatewaySchemaRegistry(ctx, p.ParentID, id)
		return err
	},
}

// EventGatewayDataPlaneCertificateKind describes
// EventGatewayDataPlaneCertificates: the certificates a gateway's data
// planes present. They carry no labels; Konnect keys them on the
// certificate within the gateway.
func EventGatewayDataPlaneCertificateKind(refs *Refs, objects EventGatewayObjects) controller.Kind[egDataPlaneCert, egBody] {
	kind := KindEventGatewayDataPlaneCertificate
	return egKind[egDataPlaneCert]{
		gvk: egGVK(kind),
		placed: readingSensitiveData(underEventGateway[egDataPlaneCert](refs, kind, objects), refs, kind, func(c egDataPlaneCert) []egSensitiveData {
			return []egSensitiveData{c.Spec.APISpec.Certificate}
		}),
		calls:      dataPlaneCertificateSDK.calls(),
		spec:       func(c egDataPlaneCert) any { return c.Spec.APISpec },
		unlabelled: true, key: "certificate",
	}.kind(refs)
}

var dataPlaneCertificateSDK = egSDK[components.CreateEventGatewayDataPlaneCertificateRequest, components.UpdateEventGatewayDataPlaneCertificateRequest, components.EventGatewayDataPlaneCertificate]{
	entity: "event_gateway_data_plane_certificate", parented: true, path: egPath("/data-plane-certificates"), paged: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body *components.CreateEventGatewayDataPlaneCertificateRequest) (*components.EventGatewayDataPlaneCertificate, error) {
		res, err := api.EventGatewayDataPlaneCerts.CreateEventGatewayDataPlaneCertificate(ctx, p.ParentID, body)
		return res.GetEventGatewayDataPlaneCertificate(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *components.UpdateEventGatewayDataPlaneCertificateRequest) (*components.EventGatewayDataPlaneCertificate, error) {
		res, err := api.EventGatewayDataPlaneCerts.UpdateEventGatewayDataPlaneCertificate(ctx, operations.UpdateEventGatewayDataPlaneCertificateRequest{
			GatewayID: p.ParentID, CertificateID: id, UpdateEventGatewayDataPlaneCertificateRequest: body,
		})
		return res.GetEventGatewayDataPlaneCertificate(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.EventGatewayDataPlaneCerts.DeleteEventGatewayDataPlaneCertificate(ctx, p.ParentID, id)
		return err
	},
}

// EventGatewayVirtualClusterKind describes EventGatewayVirtualClusters:
// what clients connect to, each mapped to the backend cluster its object
// names (its destination) in that cluster's gateway. Konnect never
// answers the principals' passwords.
func EventGatewayVirtualClusterKind(refs *Refs, objects EventGatewayObjects) controller.Kind[egVirtualCluster, egBody] {
	kind := KindEventGatewayVirtualCluster
	ref := egParent[egVirtualCluster](KindEventGatewayBackendCluster, commonv1alpha1.ConditionEventGatewayBackendClusterRefValid, "spec.eventGatewayBackendClusterRef")
	return egKind[egVirtualCluster]{
		gvk:     egGVK(kind),
		placed:  underEventGatewayEntity(refs, kind, objects, ref, objects.BackendClusters, egBesideParent),
		calls:   virtualClusterSDK.calls(),
		spec:    func(v egVirtualCluster) any { return v.Spec.APISpec },
		secrets: egSecretPaths{"authentication[].principals[].password"},
		complete: func(v egVirtualCluster, body egBody) error {
			body["destination"] = map[string]any{"id": v.Status.RecordedParentID()}
			return nil
		},
		usedBy: []string{dependencyOf(kind)},
	}.kind(refs)
}

var virtualClusterSDK = egSDK[components.CreateVirtualClusterRequest, components.UpdateVirtualClusterRequest, components.VirtualCluster]{
	entity: "event_gateway_virtual_cluster", parented: true, path: egPath("/virtual-clusters"), paged: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body *components.CreateVirtualClusterRequest) (*components.VirtualCluster, error) {
		res, err := api.EventGatewayVirtualClusters.CreateEventGatewayVirtualCluster(ctx, p.ParentID, body)
		return res.GetVirtualCluster(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *components.UpdateVirtualClusterRequest) (*components.VirtualCluster, error) {
		res, err := api.EventGatewayVirtualClusters.UpdateEventGatewayVirtualCluster(ctx, operations.UpdateEventGatewayVirtualClusterRequest{
			GatewayID: p.ParentID, VirtualClusterID: id, UpdateVirtualClusterRequest: body,
		})
		return res.GetVirtualCluster(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.EventGatewayVirtualClusters.DeleteEventGatewayVirtualCluster(ctx, p.ParentID, id)
		return err
	},
}
