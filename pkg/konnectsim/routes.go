package konnectsim

import (
	"net/http"
	"slices"
)

// route is one operation of the API. Templates are the OpenAPI document's
// paths, so call counters and validation speak the same names; routing
// itself does not need the document.
type route struct {
	method, template, operationID string
	family                        family
	// problemAuth marks core-entity operations whose 401 the document
	// declares as a problem body (the flat /targets list).
	problemAuth bool
	handler     func(*reqCtx)
}

// key is the operation's name in call counters: "METHOD /path/template".
func (rt *route) key() string { return rt.method + " " + rt.template }

// core is the prefix of every core-entity path.
const core = "/v2/control-planes/{controlPlaneId}/core-entities"

// registerRoutes builds the route table and the mux that dispatches it.
func (s *Server) registerRoutes() {
	s.routes = slices.Concat(
		[]*route{
			{method: "GET", template: "/v2/control-planes", operationID: "list-control-planes", family: famProblem, handler: s.listControlPlanes},
			{method: "POST", template: "/v2/control-planes", operationID: "create-control-plane", family: famProblem, handler: s.createControlPlane},
			{method: "GET", template: "/v2/control-planes/{controlPlaneId}", operationID: "get-control-plane", family: famProblem, handler: s.getControlPlane},
			{method: "PATCH", template: "/v2/control-planes/{controlPlaneId}", operationID: "update-control-plane", family: famProblem, handler: s.updateControlPlane},
			{method: "DELETE", template: "/v2/control-planes/{controlPlaneId}", operationID: "delete-control-plane", family: famProblem, handler: s.deleteControlPlane},
		},
		s.entityRoutes("services", "ServiceId", "service"),
		s.childRoutes("services", "ServiceId", "service", "routes", "RouteId", "route"),
		s.childRoutes("services", "ServiceId", "service", "plugins", "PluginId", "plugin"),
		s.entityRoutes("routes", "RouteId", "route"),
		s.childRoutes("routes", "RouteId", "route", "plugins", "PluginId", "plugin"),
		s.entityRoutes("plugins", "PluginId", "plugin"),
		s.entityRoutes("consumers", "ConsumerId", "consumer"),
		[]*route{
			{method: "DELETE", template: core + "/consumers/{ConsumerId}/consumer_groups", operationID: "remove-consumer-from-all-consumer-groups", family: famCore, handler: s.removeConsumerFromAllGroups},
			{method: "GET", template: core + "/consumers/{ConsumerId}/consumer_groups", operationID: "list-consumer-groups-for-consumer", family: famCore, handler: s.listGroupsOfConsumer},
			{method: "POST", template: core + "/consumers/{ConsumerId}/consumer_groups", operationID: "add-consumer-to-specific-consumer-group", family: famCore, handler: s.addConsumerToSpecificGroup},
			{method: "DELETE", template: core + "/consumers/{ConsumerId}/consumer_groups/{ConsumerGroupId}", operationID: "remove-consumer-from-consumer-group", family: famCore, handler: s.removeConsumerFromGroup},
		},
		s.childRoutes("consumers", "ConsumerIdForNestedEntities", "consumer", "plugins", "PluginId", "plugin"),
		s.entityRoutes("consumer_groups", "ConsumerGroupId", "consumer_group"),
		[]*route{
			{method: "DELETE", template: core + "/consumer_groups/{ConsumerGroupId}/consumers", operationID: "remove-all-consumers-from-consumer-group", family: famCore, handler: s.removeAllConsumersFromGroup},
			{method: "GET", template: core + "/consumer_groups/{ConsumerGroupId}/consumers", operationID: "list-consumers-for-consumer-group", family: famCore, handler: s.listConsumersOfGroup},
			{method: "POST", template: core + "/consumer_groups/{ConsumerGroupId}/consumers", operationID: "add-consumer-to-group", family: famCore, handler: s.addConsumerToGroup},
			{method: "DELETE", template: core + "/consumer_groups/{ConsumerGroupId}/consumers/{ConsumerId}", operationID: "remove-consumer-from-group", family: famCore, handler: s.removeConsumerFromGroup},
		},
		s.childRoutes("consumer_groups", "ConsumerGroupId", "consumer_group", "plugins", "PluginId", "plugin"),
		s.childRoutes("consumers", "ConsumerIdForNestedEntities", "consumer", "key-auth", "KeyAuthId", "key-auth"),
		s.childRoutes("consumers", "ConsumerIdForNestedEntities", "consumer", "basic-auth", "BasicAuthId", "basic-auth"),
		s.childRoutes("consumers", "ConsumerIdForNestedEntities", "consumer", "acls", "ACLId", "acl"),
		s.childRoutes("consumers", "ConsumerIdForNestedEntities", "consumer", "jwt", "JWTId", "jwt"),
		s.childRoutes("consumers", "ConsumerIdForNestedEntities", "consumer", "hmac-auth", "HMACAuthId", "hmac-auth"),
		s.readRoutes("key-auths", "KeyAuthId", "key-auth"),
		s.readRoutes("basic-auths", "BasicAuthId", "basic-auth"),
		s.readRoutes("acls", "ACLId", "acl"),
		s.readRoutes("jwts", "JWTId", "jwt"),
		s.readRoutes("hmac-auths", "HMACAuthId", "hmac-auth"),
		s.entityRoutes("upstreams", "UpstreamId", "upstream"),
		s.childRoutes("upstreams", "UpstreamIdForTarget", "upstream", "targets", "TargetId", "target"),
		[]*route{
			{method: "GET", template: core + "/targets", operationID: "list-targets", family: famCore, handler: s.listEntities("targets"), problemAuth: true},
		},
		s.entityRoutes("certificates", "CertificateId", "certificate"),
		s.childRoutes("certificates", "CertificateId", "certificate", "snis", "SNIId", "sni"),
		s.entityRoutes("ca_certificates", "CACertificateId", "ca_certificate"),
		s.entityRoutes("snis", "SNIId", "sni"),
		s.entityRoutes("keys", "KeyId", "key"),
		s.entityRoutes("key-sets", "KeySetId", "key-set"),
		s.childRoutes("key-sets", "KeySetId", "key-set", "keys", "KeyId", "key"),
		s.entityRoutes("vaults", "VaultId", "vault"),
		[]*route{
			{method: "GET", template: "/v2/control-planes/{controlPlaneId}/dp-client-certificates", operationID: "list-dp-client-certificates", family: famLegacy, handler: s.listDPCerts},
			{method: "POST", template: "/v2/control-planes/{controlPlaneId}/dp-client-certificates", operationID: "create-dataplane-certificate", family: famLegacy, handler: s.createDPCert},
			{method: "GET", template: "/v2/control-planes/{controlPlaneId}/dp-client-certificates/{certificateId}", operationID: "get-dataplane-certificate", family: famLegacy, handler: s.getDPCert},
			{method: "PUT", template: "/v2/control-planes/{controlPlaneId}/dp-client-certificates/{certificateId}", operationID: "update-dataplane-certificate", family: famLegacy, handler: s.updateDPCert},
			{method: "DELETE", template: "/v2/control-planes/{controlPlaneId}/dp-client-certificates/{certificateId}", operationID: "delete-dataplane-certificate", family: famLegacy, handler: s.deleteDPCert},
			{method: "GET", template: "/v2/control-planes/{controlPlaneId}/group-memberships", operationID: "get-control-planes-id-group-memberships", family: famProblem, handler: s.listGroupMembers},
			{method: "PUT", template: "/v2/control-planes/{controlPlaneId}/group-memberships", operationID: "put-control-planes-id-group-memberships", family: famProblem, handler: s.putGroupMembers},
			{method: "POST", template: "/v2/control-planes/{controlPlaneId}/group-memberships/add", operationID: "post-control-planes-id-group-memberships-add", family: famProblem, handler: s.addGroupMembers},
			{method: "POST", template: "/v2/control-planes/{controlPlaneId}/group-memberships/remove", operationID: "post-control-planes-id-group-memberships-remove", family: famProblem, handler: s.removeGroupMembers},
			{method: "GET", template: "/v2/control-planes/{controlPlaneId}/group-status", operationID: "get-control-planes-id-group-status", family: famProblem, handler: s.getGroupStatus},
			{method: "GET", template: "/v3/organizations/me", operationID: "get-organizations-me", family: famProblem, handler: s.getOrganizationMe},
		},
		s.cloudGatewayRoutes(),
		s.configStoreRoutes(),
		s.portalRoutes(),
		s.eventGatewayRoutes(),
	)
	for _, rt := range s.routes {
		s.mux.HandleFunc(rt.method+" "+rt.template, func(w http.ResponseWriter, r *http.Request) {
			s.serveRoute(rt, w, r)
		})
	}
	s.mux.HandleFunc("/", s.serveUnknown)
}

// entityRoutes are the operations on a collection of core entities: list,
// create, delete, get and upsert, named after entity as the document names
// them ("list-service", …).
func (s *Server) entityRoutes(collection, idParam, entity string) []*route {
	base := core + "/" + collection
	item := base + "/{" + idParam + "}"
	return []*route{
		{method: "GET", template: base, operationID: "list-" + entity, family: famCore, handler: s.listEntities(collection)},
		{method: "POST", template: base, operationID: "create-" + entity, family: famCore, handler: s.createEntity(collection)},
		{method: "DELETE", template: item, operationID: "delete-" + entity, family: famCore, handler: s.deleteEntity(collection, idParam)},
		{method: "GET", template: item, operationID: "get-" + entity, family: famCore, handler: s.getEntity(collection, idParam)},
		{method: "PUT", template: item, operationID: "upsert-" + entity, family: famCore, handler: s.upsertEntity(collection, idParam)},
	}
}

// readRoutes are the list and get operations of a collection that is only
// written through its parent (the credentials).
func (s *Server) readRoutes(collection, idParam, entity string) []*route {
	return []*route{
		{method: "GET", template: core + "/" + collection, operationID: "list-" + entity, family: famCore, handler: s.listEntities(collection)},
		{method: "GET", template: core + "/" + collection + "/{" + idParam + "}", operationID: "get-" + entity, family: famCore, handler: s.getEntity(collection, idParam)},
	}
}

// childRoutes are the five operations of entityRoutes on a collection
// nested under a parent entity, named "<verb>-<entity>-with-<parentEntity>".
func (s *Server) childRoutes(parent, parentParam, parentEntity, collection, idParam, entity string) []*route {
	base := core + "/" + parent + "/{" + parentParam + "}/" + collection
	item := base + "/{" + idParam + "}"
	suffix := entity + "-with-" + parentEntity
	return []*route{
		{method: "GET", template: base, operationID: "list-" + suffix, family: famCore, handler: s.listChildren(parent, parentParam, collection)},
		{method: "POST", template: base, operationID: "create-" + suffix, family: famCore, handler: s.createChild(parent, parentParam, collection)},
		{method: "DELETE", template: item, operationID: "delete-" + suffix, family: famCore, handler: s.deleteChild(parent, parentParam, collection, idParam)},
		{method: "GET", template: item, operationID: "get-" + suffix, family: famCore, handler: s.getChild(parent, parentParam, collection, idParam)},
		{method: "PUT", template: item, operationID: "upsert-" + suffix, family: famCore, handler: s.upsertChild(parent, parentParam, collection, idParam)},
	}
}

// cloudGateways is the prefix of the Dedicated Cloud Gateway API.
const cloudGateways = "/v2/cloud-gateways"

// cloudGatewayRoutes are the operations on provider accounts, networks,
// their transit gateways and data-plane group configurations.
func (s *Server) cloudGatewayRoutes() []*route {
	network := cloudGateways + "/networks/{networkId}"
	transit := network + "/transit-gateways"
	return []*route{
		{method: "GET", template: cloudGateways + "/provider-accounts", operationID: "list-provider-accounts", family: famProblem, handler: s.listProviderAccounts},
		{method: "GET", template: cloudGateways + "/provider-accounts/{providerAccountId}", operationID: "get-provider-account", family: famProblem, handler: s.getProviderAccount},
		{method: "GET", template: cloudGateways + "/networks", operationID: "list-networks", family: famProblem, handler: s.listNetworks},
		{method: "POST", template: cloudGateways + "/networks", operationID: "create-network", family: famProblem, handler: s.createNetwork},
		{method: "GET", template: network, operationID: "get-network", family: famProblem, handler: s.getNetwork},
		{method: "PATCH", template: network, operationID: "update-network", family: famProblem, handler: s.updateNetwork},
		{method: "DELETE", template: network, operationID: "delete-network", family: famProblem, handler: s.deleteNetwork},
		{method: "GET", template: transit, operationID: "list-transit-gateways", family: famProblem, handler: s.listTransitGateways},
		{method: "POST", template: transit, operationID: "create-transit-gateway", family: famProblem, handler: s.createTransitGateway},
		{method: "GET", template: transit + "/{transitGatewayId}", operationID: "get-transit-gateway", family: famProblem, handler: s.getTransitGateway},
		{method: "PATCH", template: transit + "/{transitGatewayId}", operationID: "update-transit-gateway", family: famProblem, handler: s.updateTransitGateway},
		{method: "DELETE", template: transit + "/{transitGatewayId}", operationID: "delete-transit-gateway", family: famProblem, handler: s.deleteTransitGateway},
		{method: "GET", template: cloudGateways + "/configurations", operationID: "list-configurations", family: famProblem, handler: s.listConfigurations},
		{method: "PUT", template: cloudGateways + "/configurations", operationID: "create-configuration", family: famProblem, handler: s.putConfiguration},
		{method: "GET", template: cloudGateways + "/configurations/{configurationId}", operationID: "get-configuration", family: famProblem, handler: s.getConfiguration},
	}
}
