package konnectsim

import (
	"fmt"
	"net/http"
)

// eventGateways is the prefix of the Event Gateway API.
const eventGateways = "/v1/event-gateways"

// eventGatewayRoutes are the operations on event gateways and what they
// hold, as the document names them. A nested collection's path names the
// gateway and the parent: the parent must belong to the gateway.
func (s *Server) eventGatewayRoutes() []*route {
	gw := eventGateways + "/{gatewayId}"
	op := func(method, template, id string, handler func(*reqCtx)) *route {
		return &route{method: method, template: template, operationID: id, family: famNewer, handler: handler}
	}
	routes := []*route{
		op("GET", eventGateways, "list-event-gateways", func(rc *reqCtx) { s.apiCursorList(rc, eventGatewayKind, "", true) }),
		op("POST", eventGateways, "create-event-gateway", s.apiCreateHandler(eventGatewayKind, "")),
		op("GET", gw, "get-event-gateway", s.apiGetHandler(eventGatewayKind, "", "gatewayId")),
		op("PUT", gw, "update-event-gateway", s.egReplaceHandler(eventGatewayKind, nil, "gatewayId")),
		op("PATCH", gw, "patch-event-gateway", s.apiPatchHandler(eventGatewayKind, "", "gatewayId")),
		op("DELETE", gw, "delete-event-gateway", s.apiDeleteHandler(eventGatewayKind, "", "gatewayId")),
	}
	// The collections directly under a gateway.
	for _, c := range []struct {
		kind             *apiKind
		path, idParam    string
		operation, items string
	}{
		{egBackendClusterKind, "/backend-clusters", "backendClusterId", "event-gateway-backend-cluster", "event-gateway-backend-clusters"},
		{egListenerKind, "/listeners", "eventGatewayListenerId", "event-gateway-listener", "event-gateway-listeners"},
		{egSchemaRegistryKind, "/schema-registries", "schemaRegistryId", "event-gateway-schema-registry", "event-gateway-schema-registries"},
		{egDataPlaneCertificateKind, "/data-plane-certificates", "certificateId", "event-gateway-data-plane-certificate", "event-gateway-data-plane-certificates"},
	} {
		base, item := gw+c.path, gw+c.path+"/{"+c.idParam+"}"
		remove := s.apiDeleteHandler(c.kind, "gatewayId", c.idParam)
		if c.kind == egBackendClusterKind {
			remove = s.deleteBackendCluster
		}
		routes = append(routes,
			op("GET", base, "list-"+c.items, func(rc *reqCtx) { s.apiCursorList(rc, c.kind, "gatewayId", true) }),
			op("POST", base, "create-"+c.operation, s.apiCreateHandler(c.kind, "gatewayId")),
			op("GET", item, "get-"+c.operation, s.apiGetHandler(c.kind, "gatewayId", c.idParam)),
			op("PUT", item, "update-"+c.operation, s.egReplaceHandler(c.kind, nil, c.idParam)),
			op("DELETE", item, "delete-"+c.operation, remove))
	}
	vc := gw + "/virtual-clusters"
	routes = append(routes,
		op("GET", vc, "list-event-gateway-virtual-clusters", func(rc *reqCtx) { s.apiCursorList(rc, egVirtualClusterKind, "gatewayId", true) }),
		op("POST", vc, "create-event-gateway-virtual-cluster", s.createVirtualCluster),
		op("GET", vc+"/{virtualClusterId}", "get-event-gateway-virtual-cluster", s.apiGetHandler(egVirtualClusterKind, "gatewayId", "virtualClusterId")),
		op("PUT", vc+"/{virtualClusterId}", "update-event-gateway-virtual-cluster", s.egReplaceHandler(egVirtualClusterKind, nil, "virtualClusterId")),
		op("DELETE", vc+"/{virtualClusterId}", "delete-event-gateway-virtual-cluster", s.deleteVirtualCluster))
	// Policies, under a listener or a virtual cluster of the gateway.
	listener := &egParent{kind: egListenerKind, param: "eventGatewayListenerId"}
	cluster := &egParent{kind: egVirtualClusterKind, param: "virtualClusterId"}
	for _, p := range []struct {
		kind      *apiKind
		parent    *egParent
		path      string
		operation string
		items     string
	}{
		{egListenerPolicyKind, listener, gw + "/listeners/{eventGatewayListenerId}/policies", "event-gateway-listener-policy", "event-gateway-listener-policies"},
		{egClusterPolicyKind, cluster, vc + "/{virtualClusterId}/cluster-policies", "event-gateway-virtual-cluster-cluster-level-policy", "event-gateway-virtual-cluster-cluster-level-policies"},
		{egConsumePolicyKind, cluster, vc + "/{virtualClusterId}/consume-policies", "event-gateway-virtual-cluster-consume-policy", "event-gateway-virtual-cluster-consume-policies"},
		{egProducePolicyKind, cluster, vc + "/{virtualClusterId}/produce-policies", "event-gateway-virtual-cluster-produce-policy", "event-gateway-virtual-cluster-produce-policies"},
	} {
		item := p.path + "/{policyId}"
		routes = append(routes,
			op("GET", p.path, "list-"+p.items, s.inGateway(p.parent, func(rc *reqCtx) { s.listPolicies(rc, p.kind, p.parent.param) })),
			op("POST", p.path, "create-"+p.operation, s.inGateway(p.parent, s.apiCreateHandler(p.kind, p.parent.param))),
			op("GET", item, "get-"+p.operation, s.inGateway(p.parent, s.apiGetHandler(p.kind, p.parent.param, "policyId"))),
			op("PUT", item, "update-"+p.operation, s.inGateway(p.parent, s.egReplaceHandler(p.kind, p.parent, "policyId"))),
			op("PATCH", item, "patch-"+p.operation, s.inGateway(p.parent, s.apiPatchHandler(p.kind, p.parent.param, "policyId"))),
			op("DELETE", item, "delete-"+p.operation, s.inGateway(p.parent, s.apiDeleteHandler(p.kind, p.parent.param, "policyId"))))
	}
	return routes
}

// egParent is the parent of a collection below a gateway's collection: a
// listener or a virtual cluster, named by a path parameter.
type egParent struct {
	kind  *apiKind
	param string
}

// inGateway answers 404 unless the gateway of the path exists and holds
// the parent the path names, then runs next.
func (s *Server) inGateway(parent *egParent, next func(*reqCtx)) func(*reqCtx) {
	return func(rc *reqCtx) {
		s.store.mu.Lock()
		gatewayID, parentID := rc.r.PathValue("gatewayId"), rc.r.PathValue(parent.param)
		a := rc.org.api()
		found := a.find(eventGatewayKind, "", gatewayID) != nil && a.find(parent.kind, gatewayID, parentID) != nil
		s.store.mu.Unlock()
		if !found {
			rc.problem(http.StatusNotFound, fmt.Sprintf("The %s %s of event gateway %s was not found", parent.kind.singular, parentID, gatewayID))
			return
		}
		next(rc)
	}
}

// egReplaceHandler writes the body over the whole entity (PUT), with the
// defaults of what it leaves out, as a create would fill them in. A
// nested entity's parent is parent's path parameter; the others' is the
// gateway.
func (s *Server) egReplaceHandler(k *apiKind, parent *egParent, idParam string) func(*reqCtx) {
	return func(rc *reqCtx) {
		body, ok := rc.decodeBody()
		if !ok {
			return
		}
		s.store.mu.Lock()
		defer s.store.mu.Unlock()
		parentParam := "gatewayId"
		switch {
		case parent != nil:
			parentParam = parent.param
		case k == eventGatewayKind:
			parentParam = ""
		}
		e, ok := rc.apiTarget(k, parentParam, idParam)
		if !ok {
			return
		}
		if k == egVirtualClusterKind && !rc.resolveDestination(e.parentID, body) {
			return
		}
		whole := cloneEntity(body)
		if k.create != nil {
			var parentEntity entity
			if p := rc.org.api().entities[k.parent][e.parentID]; p != nil {
				parentEntity = p.obj
			}
			if params := k.create(s, parentEntity, whole); len(params) > 0 {
				rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid", params...)
				return
			}
		}
		for _, computed := range []string{"nodes_total", "virtual_clusters_total", "version"} {
			if v, ok := e.obj[computed]; ok {
				whole[computed] = v
			}
		}
		if rc.apiUpdate(e, whole, true) {
			rc.writeJSON(http.StatusOK, contentJSON, e.answer())
		}
	}
}

// createVirtualCluster creates a virtual cluster of the backend cluster its
// destination names, by ID or by name, and counts it in its gateway.
func (s *Server) createVirtualCluster(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	gatewayID, ok := rc.apiParent(egVirtualClusterKind, "gatewayId")
	if !ok || !rc.resolveDestination(gatewayID, body) {
		return
	}
	if e, ok := rc.apiCreate(egVirtualClusterKind, gatewayID, body); ok {
		rc.countVirtualClusters(gatewayID)
		rc.writeJSON(http.StatusCreated, contentJSON, e.answer())
	}
}

// resolveDestination writes the backend cluster a virtual cluster's
// destination names as Konnect answers it (its ID and name), or answers
// 400 when the gateway has no such backend cluster.
func (rc *reqCtx) resolveDestination(gatewayID string, body entity) bool {
	want := asMap(body["destination"])
	for _, c := range rc.org.api().children(egBackendClusterKind, gatewayID) {
		if (want["id"] != nil && want["id"] == c.id) || (want["id"] == nil && want["name"] != nil && want["name"] == c.obj["name"]) {
			body["destination"] = map[string]any{"id": c.id, "name": c.obj["name"]}
			return true
		}
	}
	rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid",
		invalidParam{Field: "destination", Rule: "invalid", Reason: "names no backend cluster of the event gateway"})
	return false
}

// deleteVirtualCluster deletes a virtual cluster and its policies.
func (s *Server) deleteVirtualCluster(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	if e, ok := rc.apiTarget(egVirtualClusterKind, "gatewayId", "virtualClusterId"); ok {
		rc.org.api().apiDelete(e)
		rc.countVirtualClusters(e.parentID)
		rc.noContent()
	}
}

// deleteBackendCluster deletes a backend cluster that no virtual cluster
// maps to.
func (s *Server) deleteBackendCluster(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	e, ok := rc.apiTarget(egBackendClusterKind, "gatewayId", "backendClusterId")
	if !ok {
		return
	}
	for _, v := range rc.org.api().children(egVirtualClusterKind, e.parentID) {
		if asMap(v.obj["destination"])["id"] == e.id {
			rc.problem(http.StatusConflict, fmt.Sprintf("The backend cluster is the destination of virtual cluster %s: delete the virtual cluster first", v.id))
			return
		}
	}
	rc.org.api().apiDelete(e)
	rc.noContent()
}

// countVirtualClusters records a gateway's number of virtual clusters.
func (rc *reqCtx) countVirtualClusters(gatewayID string) {
	a := rc.org.api()
	if g := a.find(eventGatewayKind, "", gatewayID); g != nil {
		g.obj["virtual_clusters_total"] = len(a.children(egVirtualClusterKind, gatewayID))
	}
}

// listPolicies answers the policies of a listener or a virtual cluster, in
// their order, all at once.
func (s *Server) listPolicies(rc *reqCtx, k *apiKind, parentParam string) {
	filters, _, _, ok := rc.parseCloudList(map[string][]string{"parent_policy_id": {"eq"}, "name": {"eq", "contains"}})
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	items := []any{}
	for _, p := range rc.org.api().children(k, rc.r.PathValue(parentParam)) {
		if matchAll(filters, func(field string) string { return str(p.obj[field]) }) {
			items = append(items, p.answer())
		}
	}
	rc.writeJSON(http.StatusOK, contentJSON, items)
}
