package konnectsim

import "net/http"

// Config stores of a control plane: named places for the secrets that the
// control plane's konnect vaults read. Konnect keeps nothing unique about
// them but their ID; they go with their control plane.

var configStoreKind = &apiKind{collection: "config-stores", singular: "config store", parent: parentControlPlane}

// configStoreRoutes are the operations on a control plane's config
// stores.
func (s *Server) configStoreRoutes() []*route {
	base := "/v2/control-planes/{controlPlaneId}/config-stores"
	item := base + "/{configStoreId}"
	op := func(method, template, id string, handler func(*reqCtx)) *route {
		return &route{method: method, template: template, operationID: id, family: famNewer, handler: handler}
	}
	return []*route{
		op("GET", base, "list-config-stores", func(rc *reqCtx) { s.apiCursorList(rc, configStoreKind, "controlPlaneId", true) }),
		op("POST", base, "create-config-store", s.apiCreateHandler(configStoreKind, "controlPlaneId")),
		op("GET", item, "get-config-store", s.apiGetHandler(configStoreKind, "controlPlaneId", "configStoreId")),
		op("PUT", item, "update-config-store", s.updateConfigStore),
		op("DELETE", item, "delete-config-store", s.apiDeleteHandler(configStoreKind, "controlPlaneId", "configStoreId")),
	}
}

// updateConfigStore renames a config store; a body without a name leaves
// it as it is.
func (s *Server) updateConfigStore(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	e, ok := rc.apiTarget(configStoreKind, "controlPlaneId", "configStoreId")
	if ok && rc.apiUpdate(e, body, false) {
		rc.writeJSON(http.StatusOK, contentJSON, e.answer())
	}
}
