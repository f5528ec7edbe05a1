package konnectsim

import (
	"net/http"
	"strconv"
)

// portals is the prefix of the Dev Portal API.
const portals = "/v3/portals"

// portalRoutes are the operations on portals and what they hold, as the
// document names them.
func (s *Server) portalRoutes() []*route {
	portal := portals + "/{portalId}"
	op := func(method, template, id string, handler func(*reqCtx)) *route {
		return &route{method: method, template: template, operationID: id, family: famNewer, handler: handler}
	}
	return []*route{
		op("GET", portals, "list-portals", s.listPortals),
		op("POST", portals, "create-portal", s.createPortal),
		op("GET", portal, "get-portal", s.apiGetHandler(portalKind, "", "portalId")),
		op("PATCH", portal, "update-portal", s.apiPatchHandler(portalKind, "", "portalId")),
		op("DELETE", portal, "delete-portal", s.apiDeleteHandler(portalKind, "", "portalId")),

		op("GET", portal+"/customization", "get-portal-customization", s.apiGetHandler(portalCustomizationKind, "portalId", "")),
		op("PUT", portal+"/customization", "replace-portal-customization", s.apiReplaceHandler(portalCustomizationKind, "portalId", "", customizationOver)),
		op("PATCH", portal+"/customization", "update-portal-customization", s.apiPatchHandler(portalCustomizationKind, "portalId", "")),

		op("GET", portal+"/custom-domain", "get-portal-custom-domain", s.apiGetHandler(portalCustomDomainKind, "portalId", "")),
		op("POST", portal+"/custom-domain", "create-portal-custom-domain", s.apiCreateHandler(portalCustomDomainKind, "portalId")),
		op("PATCH", portal+"/custom-domain", "update-portal-custom-domain", s.updateCustomDomain),
		op("DELETE", portal+"/custom-domain", "delete-portal-custom-domain", s.apiDeleteHandler(portalCustomDomainKind, "portalId", "")),

		op("GET", portal+"/email-config", "get-email-config", s.apiGetHandler(portalEmailConfigKind, "portalId", "")),
		op("POST", portal+"/email-config", "create-portal-email-config", s.apiCreateHandler(portalEmailConfigKind, "portalId")),
		op("PATCH", portal+"/email-config", "update-portal-email-config", s.apiPatchHandler(portalEmailConfigKind, "portalId", "")),
		op("DELETE", portal+"/email-config", "delete-portal-email-config", s.apiDeleteHandler(portalEmailConfigKind, "portalId", "")),

		op("GET", portal+"/identity-providers", "get-portal-identity-providers", s.listIdentityProviders),
		op("POST", portal+"/identity-providers", "create-portal-identity-provider", s.apiCreateHandler(portalIdentityProviderKind, "portalId")),
		op("GET", portal+"/identity-providers/{id}", "get-portal-identity-provider", s.apiGetHandler(portalIdentityProviderKind, "portalId", "id")),
		op("PATCH", portal+"/identity-providers/{id}", "update-portal-identity-provider", s.apiPatchHandler(portalIdentityProviderKind, "portalId", "id")),
		op("DELETE", portal+"/identity-providers/{id}", "delete-portal-identity-provider", s.apiDeleteHandler(portalIdentityProviderKind, "portalId", "id")),

		op("GET", portal+"/ip-allow-list", "list-portal-ip-allow-list", s.listIPAllowLists),
		op("POST", portal+"/ip-allow-list", "create-portal-ip-allow-list", s.apiCreateHandler(portalIPAllowListKind, "portalId")),
		op("GET", portal+"/ip-allow-list/{id}", "get-portal-ip-allow-list", s.apiGetHandler(portalIPAllowListKind, "portalId", "id")),
		op("PUT", portal+"/ip-allow-list/{id}", "put-portal-ip-allow-list", s.apiReplaceHandler(portalIPAllowListKind, "portalId", "id", nil)),
		op("PATCH", portal+"/ip-allow-list/{id}", "update-portal-ip-allow-list", s.apiPatchHandler(portalIPAllowListKind, "portalId", "id")),
		op("DELETE", portal+"/ip-allow-list/{id}", "delete-portal-ip-allow-list", s.apiDeleteHandler(portalIPAllowListKind, "portalId", "id")),

		op("GET", portal+"/pages", "list-portal-pages", s.listPages),
		op("POST", portal+"/pages", "create-portal-page", s.apiCreateHandler(portalPageKind, "portalId")),
		op("GET", portal+"/pages/{pageId}", "get-portal-page", s.apiGetHandler(portalPageKind, "portalId", "pageId")),
		op("PATCH", portal+"/pages/{pageId}", "update-portal-page", s.apiPatchHandler(portalPageKind, "portalId", "pageId")),
		op("DELETE", portal+"/pages/{pageId}", "delete-portal-page", s.apiDeleteHandler(portalPageKind, "portalId", "pageId")),

		op("GET", portal+"/teams", "list-portal-teams", s.listTeams),
		op("POST", portal+"/teams", "create-portal-team", s.apiCreateHandler(portalTeamKind, "portalId")),
		op("GET", portal+"/teams/{teamId}", "get-portal-team", s.apiGetHandler(portalTeamKind, "portalId", "teamId")),
		op("PATCH", portal+"/teams/{teamId}", "update-portal-team", s.apiPatchHandler(portalTeamKind, "portalId", "teamId")),
		op("DELETE", portal+"/teams/{teamId}", "delete-portal-team", s.apiDeleteHandler(portalTeamKind, "portalId", "teamId")),
	}
}

// createPortal creates a portal with its default customization.
func (s *Server) createPortal(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	p, ok := rc.apiCreate(portalKind, "", body)
	if !ok {
		return
	}
	if _, ok := rc.apiCreate(portalCustomizationKind, p.id, defaultCustomization()); !ok {
		return
	}
	rc.writeJSON(http.StatusCreated, contentJSON, p.answer())
}

func (s *Server) listPortals(rc *reqCtx) {
	filters, number, size, ok := rc.parseCloudList(map[string][]string{
		"id": {"eq", "neq", "oeq"}, "name": {"eq", "neq", "contains", "oeq", "ocontains"},
	})
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	var items []any
	for _, p := range rc.org.api().children(portalKind, "") {
		if matchAll(filters, func(field string) string { return str(p.obj[field]) }) {
			items = append(items, p.answer())
		}
	}
	rc.writeNumberedPage(items, number, size)
}

// updateCustomDomain enables or disables a domain, or renews a custom
// certificate; an HTTP-verified domain has no certificate to change.
func (s *Server) updateCustomDomain(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	parentID, ok := rc.apiParent(portalCustomDomainKind, "portalId")
	if !ok {
		return
	}
	d, ok := rc.apiFound(portalCustomDomainKind, parentID, parentID)
	if !ok {
		return
	}
	change := entity{}
	if enabled, ok := body["enabled"]; ok {
		change["enabled"] = enabled
	}
	if update, ok := body["ssl"].(map[string]any); ok {
		ssl := cloneEntity(d.obj["ssl"].(map[string]any))
		if ssl["domain_verification_method"] != "custom_certificate" {
			rc.problem(http.StatusBadRequest, "The domain is verified over HTTP: it has no custom certificate to change",
				invalidParam{Field: "ssl", Rule: "invalid", Reason: "only a domain with a custom certificate takes one"})
			return
		}
		for k, v := range update {
			ssl[k] = cloneValue(v)
		}
		change["ssl"] = ssl
	}
	if rc.apiUpdate(d, change, false) {
		rc.writeJSON(http.StatusOK, contentJSON, d.answer())
	}
}

func (s *Server) listIdentityProviders(rc *reqCtx) {
	filters, _, _, ok := rc.parseCloudList(map[string][]string{"type": {"eq"}})
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	parentID, ok := rc.apiParent(portalIdentityProviderKind, "portalId")
	if !ok {
		return
	}
	items := []any{}
	for _, p := range rc.org.api().children(portalIdentityProviderKind, parentID) {
		if matchAll(filters, func(field string) string { return str(p.obj[field]) }) {
			items = append(items, p.answer())
		}
	}
	rc.writeJSON(http.StatusOK, contentJSON, items)
}

// listIPAllowLists answers a portal's IP allow lists, paged by cursor.
func (s *Server) listIPAllowLists(rc *reqCtx) {
	s.apiCursorList(rc, portalIPAllowListKind, "portalId", false)
}

// listPages answers a portal's pages as a tree, without their content.
func (s *Server) listPages(rc *reqCtx) {
	filters, _, _, ok := rc.parseCloudList(map[string][]string{
		"id": {"eq"}, "slug": {"eq", "neq", "contains"}, "title": {"eq", "neq", "contains"},
		"visibility": {"eq"}, "status": {"eq"},
	})
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	parentID, ok := rc.apiParent(portalPageKind, "portalId")
	if !ok {
		return
	}
	pages := rc.org.api().children(portalPageKind, parentID)
	var below func(parent any) []any
	below = func(parent any) []any {
		out := []any{}
		for _, p := range pages {
			if p.obj["parent_page_id"] != parent || !matchAll(filters, func(field string) string { return str(p.obj[field]) }) {
				continue
			}
			info := p.answer()
			delete(info, "content")
			info["children"] = below(p.id)
			out = append(out, info)
		}
		return out
	}
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{"data": below(nil)})
}

func (s *Server) listTeams(rc *reqCtx) {
	filters, number, size, ok := rc.parseCloudList(map[string][]string{"name": {"eq", "neq", "contains", "oeq", "ocontains"}})
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	parentID, ok := rc.apiParent(portalTeamKind, "portalId")
	if !ok {
		return
	}
	var items []any
	for _, t := range rc.org.api().children(portalTeamKind, parentID) {
		if matchAll(filters, func(field string) string { return str(t.obj[field]) }) {
			items = append(items, t.answer())
		}
	}
	rc.writeNumberedPage(items, number, size)
}

// cursorPage reads page[size] and page[after] (the position after which
// the page starts); it answers 400 itself.
func (rc *reqCtx) cursorPage() (size, after int, ok bool) {
	size = 100
	for key, values := range rc.r.URL.Query() {
		n, err := strconv.Atoi(values[0])
		switch {
		case key == "page[size]" && err == nil && n >= 1 && n <= 1000:
			size = n
		case key == "page[after]" && err == nil && n >= 0:
			after = n
		case key == "page[after]" && values[0] == "":
		default:
			rc.problem(http.StatusBadRequest, "Invalid query parameters", invalidParam{Field: key, Rule: "invalid", Reason: "unknown parameter or invalid value", Source: "query"})
			return 0, 0, false
		}
	}
	return size, after, true
}
