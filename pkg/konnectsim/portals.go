package konnectsim

import (
	"strings"
)

// The Dev Portal (v3): portals, and what each holds: pages, teams, one
// customization (always there, created with the portal), at most one
// custom domain and one email configuration, identity providers (at most
// one of each type, one enabled at a time) and IP allow lists. Deleting a
// portal deletes what it holds.

// Collections of the Dev Portal.
var (
	portalKind = &apiKind{
		collection: "portals", singular: "portal", unique: []string{"name"},
		create: createPortal, check: checkPortal,
	}
	portalCustomizationKind = &apiKind{
		collection: "portal-customizations", singular: "customization", parent: "portals", singleton: true, noID: true, noTimes: true,
	}
	portalCustomDomainKind = &apiKind{
		collection: "portal-custom-domains", singular: "custom domain", parent: "portals", singleton: true, noID: true,
		create: createCustomDomain, render: renderCustomDomain,
	}
	portalEmailConfigKind = &apiKind{
		collection: "portal-email-configs", singular: "email config", parent: "portals", singleton: true,
		render: renderEmailConfig,
	}
	portalIdentityProviderKind = &apiKind{
		collection: "portal-identity-providers", singular: "identity provider", parent: "portals", unique: []string{"type"},
		create: createIdentityProvider, render: renderIdentityProvider,
	}
	portalIPAllowListKind = &apiKind{
		collection: "portal-ip-allow-lists", singular: "IP allow list", parent: "portals", noTimes: true,
	}
	portalPageKind = &apiKind{
		collection: "portal-pages", singular: "page", parent: "portals", unique: []string{"slug"}, scope: "parent_page_id",
		create: createPage,
	}
	portalTeamKind = &apiKind{
		collection: "portal-teams", singular: "team", parent: "portals", unique: []string{"name"},
		create: createTeam,
	}
)

// createPortal fills in a portal's defaults: its display name is its name,
// its domains Konnect's own.
func createPortal(_ *Server, _, p entity) []invalidParam {
	setDefaults(p, map[string]any{
		"display_name": p["name"], "description": nil, "authentication_enabled": true, "rbac_enabled": false,
		"sipr_enabled": false, "default_api_visibility": "private", "default_page_visibility": "private",
		"default_application_auth_strategy_id": nil, "auto_approve_developers": false, "auto_approve_applications": false,
		"notifications_developer_pii_visibility_enabled": false, "labels": map[string]any{},
	})
	p["labels"] = mergeLabels(nil, p["labels"])
	domain := strings.ReplaceAll(p["id"].(string), "-", "")[:12] + ".us.kongportals.com"
	p["default_domain"], p["canonical_domain"] = domain, domain
	return nil
}

// checkPortal refuses RBAC without authentication, and labels Konnect
// does not allow.
func checkPortal(p entity) []invalidParam {
	out := checkLabels(p["labels"])
	if p["rbac_enabled"] == true && p["authentication_enabled"] == false {
		out = append(out, invalidParam{Field: "rbac_enabled", Rule: "invalid", Reason: "role-based access control needs authentication_enabled"})
	}
	return out
}

// defaultCustomization is a new portal's customization.
func defaultCustomization() entity {
	return entity{
		"theme":  map[string]any{"name": "mint_rocket", "mode": "light", "colors": map[string]any{"primary": "#1155cb"}},
		"layout": "Top navigation", "css": nil, "robots": nil,
		"menu": map[string]any{"main": []any{}, "footer_sections": []any{}, "footer_bottom": []any{}},
		"spec_renderer": map[string]any{
			"try_it_ui": true, "try_it_insomnia": true, "infinite_scroll": true, "show_schemas": true,
			"hide_internal": false, "hide_deprecated": false, "allow_custom_server_urls": true,
		},
	}
}

// customizationOver is a customization as a replacement writes it: what
// the body leaves out keeps Konnect's default, nested objects field by
// field.
func customizationOver(body entity) entity {
	out := defaultCustomization()
	for field, value := range body {
		nested, isObject := value.(map[string]any)
		defaults, hasDefaults := out[field].(map[string]any)
		if isObject && hasDefaults {
			merged := cloneEntity(defaults)
			for k, v := range nested {
				merged[k] = cloneValue(v)
			}
			out[field] = merged
			continue
		}
		out[field] = cloneValue(value)
	}
	return out
}

// createCustomDomain records how the domain's certificate comes: Konnect
// verifies a custom certificate at once, an HTTP-verified domain once its
// CNAME points at the portal.
func createCustomDomain(_ *Server, _, d entity) []invalidParam {
	ssl, _ := d["ssl"].(map[string]any)
	method := str(ssl["domain_verification_method"])
	status := "pending"
	if method == "custom_certificate" {
		status = "verified"
		setDefaults(ssl, map[string]any{"skip_ca_check": false})
	}
	ssl["verification_status"] = status
	d["cname_status"] = "pending"
	return nil
}

// renderCustomDomain leaves the certificate and its key out of answers.
func renderCustomDomain(d entity) entity {
	if ssl, ok := d["ssl"].(map[string]any); ok {
		delete(ssl, "custom_certificate")
		delete(ssl, "custom_private_key")
	}
	return d
}

// renderEmailConfig answers the unset addresses as null.
func renderEmailConfig(c entity) entity {
	setDefaults(c, map[string]any{"from_name": nil, "from_email": nil, "reply_to_email": nil})
	return c
}

// createIdentityProvider fills in a provider's defaults: disabled, and an
// OIDC provider's claims named as Konnect names them.
func createIdentityProvider(_ *Server, _, p entity) []invalidParam {
	setDefaults(p, map[string]any{"enabled": false})
	if p["type"] == nil {
		return []invalidParam{{Field: "type", Rule: "required", Reason: "must be oidc or saml"}}
	}
	return nil
}

// renderIdentityProvider answers a provider's configuration as Konnect
// does: an OIDC provider without its client secret and with its claim
// mappings, a SAML one with the service provider's own endpoints.
func renderIdentityProvider(p entity) entity {
	config, _ := p["config"].(map[string]any)
	if config == nil {
		return p
	}
	switch p["type"] {
	case "oidc":
		delete(config, "client_secret")
		mappings, _ := config["claim_mappings"].(map[string]any)
		if mappings == nil {
			mappings = map[string]any{}
		}
		setDefaults(mappings, map[string]any{"name": "name", "email": "email", "groups": "groups"})
		config["claim_mappings"] = mappings
	case "saml":
		base := "https://portal.example.konghq.com/api/v2/developer/authenticate/saml/" + str(p["id"])
		config["sp_metadata_url"], config["sp_entity_id"], config["callback_url"] = base+"/metadata", base, base+"/acs"
	}
	return p
}

// createPage fills in a page's defaults: unpublished, visible as the
// portal's default page visibility says, titled by its slug.
func createPage(_ *Server, portal, p entity) []invalidParam {
	setDefaults(p, map[string]any{
		"title": p["slug"], "status": "unpublished", "visibility": portal["default_page_visibility"], "parent_page_id": nil,
	})
	return nil
}

// createTeam fills in a team's defaults. Konnect's document requires a
// description of at least one character in every answer but not in a
// create: the simulator answers the team's name for one created without.
func createTeam(_ *Server, _, t entity) []invalidParam {
	setDefaults(t, map[string]any{"description": t["name"], "can_own_applications": false})
	return nil
}

// setDefaults sets the fields of defaults that e does not have.
func setDefaults(e entity, defaults map[string]any) {
	for field, value := range defaults {
		if _, ok := e[field]; !ok {
			e[field] = cloneValue(value)
		}
	}
}
