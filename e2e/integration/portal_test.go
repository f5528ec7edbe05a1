package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

// The Dev Portal kinds and config stores, through the shared per-kind
// harness (kindcase_test.go): their entities live in the simulator's store
// of Konnect's newer APIs, found by lookup. The singletons of a portal (its
// customization, custom domain, email configuration) and identity
// providers (one per type) put each object under a portal of its own.

type (
	portalObj             = *konnectv1alpha1.Portal
	portalPageObj         = *konnectv1alpha1.PortalPage
	portalTeamObj         = *konnectv1alpha1.PortalTeam
	portalCustomizationOb = *konnectv1alpha1.PortalCustomization
	portalCustomDomainObj = *konnectv1alpha1.PortalCustomDomain
	portalEmailConfigObj  = *konnectv1alpha1.PortalEmailConfig
	portalIDPObj          = *konnectv1alpha1.PortalIdentityProviderRequest
	portalIPAllowListObj  = *konnectv1alpha1.PortalIPAllowList
	configStoreObj        = *konnectv1alpha1.KonnectConfigStore
)

// portalObject is a portal named name that uses the auth configuration
// "auth".
func portalObject(name string) portalObj {
	return &konnectv1alpha1.Portal{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.PortalSpec{
			KonnectConfiguration: konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: "auth"}},
			APISpec:              konnectv1alpha1.PortalAPISpec{Name: name, AuthenticationEnabled: konnectv1alpha1.Enabled},
		},
	}
}

// createPortal creates a portal of the test's namespace, once.
func (e *env) createPortal(name string) {
	e.t.Helper()
	if _, err := e.cs.KonnectV1alpha1().Portals(e.ns).Get(e.ctx, name, metav1.GetOptions{}); err == nil {
		return
	}
	if _, err := e.cs.KonnectV1alpha1().Portals(e.ns).Create(e.ctx, portalObject(name), metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// portalFor is the portal of an object that its portal holds at most one
// of: one per object, created with it.
func (e *env) portalFor(name string) string {
	e.t.Helper()
	portal := "portal-of-" + name
	e.createPortal(portal)
	return portal
}

func portalRefTo(name string) commonv1alpha1.ObjectRef {
	return commonv1alpha1.ObjectRef{Type: commonv1alpha1.ObjectRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: name}}
}

// portalEntityOf finds an entity of a portal, by its object's status.
func portalEntityOf[T interface {
	konnectObject
	PortalEntity() *konnectv1alpha1.PortalEntityStatus
}](collection string, singleton bool) func(e *env, _ string, obj T) (map[string]any, bool) {
	return func(e *env, _ string, obj T) (map[string]any, bool) {
		portalID, id := obj.PortalEntity().RecordedPortalID(), obj.KonnectStatus(false).GetKonnectID()
		if singleton {
			id = portalID
		}
		return e.sim.APIEntity(e.orgID, collection, portalID, id)
	}
}

// reputAPI writes fields over an entity of the newer APIs behind the
// operator's back.
func (e *env) reputAPI(collection, parentID string, fields map[string]any) {
	e.t.Helper()
	if _, err := e.sim.PutAPIEntity(e.orgID, collection, parentID, fields); err != nil {
		e.t.Fatal(err)
	}
}

// fieldIs checks one field of an entity.
func fieldIs(ent map[string]any, field string, want any) error {
	if fmt.Sprint(ent[field]) != fmt.Sprint(want) {
		return fmt.Errorf("%s = %v, want %v", field, ent[field], want)
	}
	return nil
}

var portals = kindCase[portalObj]{
	kind: "Portal", collection: "portals", path: "/v3/portals", labelled: true,
	client: func(e *env) objectClient[portalObj] { return e.cs.KonnectV1alpha1().Portals(e.ns) },
	object: func(_ *env, name string) portalObj { return portalObject(name) },
	change: func(p portalObj) { p.Spec.APISpec.DisplayName = "changed" },
	changed: func(ent map[string]any) error {
		return fieldIs(ent, "display_name", "changed")
	},
	drift: func(e *env, _ string, ent map[string]any) {
		e.reputAPI("portals", "", map[string]any{"id": ent["id"], "display_name": "drifted"})
	},
	lookup: func(e *env, _ string, p portalObj) (map[string]any, bool) {
		return e.sim.APIEntity(e.orgID, "portals", "", p.Status.ID)
	},
}

func TestPortal(t *testing.T) { portals.test(t) }

var portalPages = kindCase[portalPageObj]{
	kind: "PortalPage", collection: "portal-pages", path: "/pages", untagged: true,
	client: func(e *env) objectClient[portalPageObj] { return e.cs.KonnectV1alpha1().PortalPages(e.ns) },
	setup:  func(e *env) { e.createPortal("portal") },
	object: func(_ *env, name string) portalPageObj {
		return &konnectv1alpha1.PortalPage{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: konnectv1alpha1.PortalPageSpec{
				PortalRef: portalRefTo("portal"),
				APISpec:   konnectv1alpha1.PortalPageAPISpec{Slug: name, Content: "# " + name, Status: "published"},
			},
		}
	},
	change:  func(p portalPageObj) { p.Spec.APISpec.Content = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "content", "changed") },
	drift: func(e *env, _ string, ent map[string]any) {
		e.reputAPI("portal-pages", portalIDOfEntity(e, "portal"), map[string]any{"id": ent["id"], "content": "drifted"})
	},
	lookup: portalEntityOf[portalPageObj]("portal-pages", false),
}

func TestPortalPage(t *testing.T) { portalPages.test(t) }

// portalIDOfEntity is the Konnect ID of a portal of the test's namespace.
func portalIDOfEntity(e *env, name string) string {
	e.t.Helper()
	p, err := e.cs.KonnectV1alpha1().Portals(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return p.Status.ID
}

var portalTeams = kindCase[portalTeamObj]{
	kind: "PortalTeam", collection: "portal-teams", path: "/teams", untagged: true,
	client: func(e *env) objectClient[portalTeamObj] { return e.cs.KonnectV1alpha1().PortalTeams(e.ns) },
	setup:  func(e *env) { e.createPortal("portal") },
	object: func(_ *env, name string) portalTeamObj {
		return &konnectv1alpha1.PortalTeam{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: konnectv1alpha1.PortalTeamSpec{
				PortalRef: portalRefTo("portal"),
				APISpec:   konnectv1alpha1.PortalTeamAPISpec{Name: name, Description: "the " + name + " team"},
			},
		}
	},
	change:  func(t portalTeamObj) { t.Spec.APISpec.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift: func(e *env, _ string, ent map[string]any) {
		e.reputAPI("portal-teams", portalIDOfEntity(e, "portal"), map[string]any{"id": ent["id"], "description": "drifted"})
	},
	lookup: portalEntityOf[portalTeamObj]("portal-teams", false),
}

func TestPortalTeam(t *testing.T) { portalTeams.test(t) }

var portalIPAllowLists = kindCase[portalIPAllowListObj]{
	kind: "PortalIPAllowList", collection: "portal-ip-allow-lists", path: "/ip-allow-list", untagged: true,
	client: func(e *env) objectClient[portalIPAllowListObj] {
		return e.cs.KonnectV1alpha1().PortalIPAllowLists(e.ns)
	},
	setup: func(e *env) { e.createPortal("portal") },
	object: func(_ *env, name string) portalIPAllowListObj {
		return &konnectv1alpha1.PortalIPAllowList{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: konnectv1alpha1.PortalIPAllowListSpec{
				PortalRef: portalRefTo("portal"),
				// Each object its own addresses: Konnect keys a list on them.
				APISpec: konnectv1alpha1.PortalIPAllowListAPISpec{AllowedIps: []string{fmt.Sprintf("10.%d.0.0/24", len(name))}},
			},
		}
	},
	change: func(l portalIPAllowListObj) {
		l.Spec.APISpec.AllowedIps = append(l.Spec.APISpec.AllowedIps, "192.168.7.7")
	},
	changed: func(ent map[string]any) error {
		ips, _ := ent["allowed_ips"].([]any)
		if !slices.Contains(ips, any("192.168.7.7")) {
			return fmt.Errorf("allowed_ips = %v", ips)
		}
		return nil
	},
	drift: func(e *env, _ string, ent map[string]any) {
		e.reputAPI("portal-ip-allow-lists", portalIDOfEntity(e, "portal"), map[string]any{"id": ent["id"], "allowed_ips": []any{"172.16.0.1"}})
	},
	lookup: portalEntityOf[portalIPAllowListObj]("portal-ip-allow-lists", false),
}

func TestPortalIPAllowList(t *testing.T) { portalIPAllowLists.test(t) }

var portalIdentityProviders = kindCase[portalIDPObj]{
	kind: "PortalIdentityProviderRequest", collection: "portal-identity-providers", path: "/identity-providers", untagged: true,
	client: func(e *env) objectClient[portalIDPObj] {
		return e.cs.KonnectV1alpha1().PortalIdentityProviderRequests(e.ns)
	},
	object: func(e *env, name string) portalIDPObj {
		return &konnectv1alpha1.PortalIdentityProviderRequest{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: konnectv1alpha1.PortalIdentityProviderRequestSpec{
				PortalRef: portalRefTo(e.portalFor(name)),
				APISpec: konnectv1alpha1.PortalIdentityProviderRequestAPISpec{
					Type: "oidc", Enabled: konnectv1alpha1.Disabled,
					Config: &konnectv1alpha1.PortalIdentityProviderConfig{
						Type: konnectv1alpha1.PortalIdentityProviderConfigOIDC,
						OIDC: &konnectv1alpha1.PortalOIDCConfig{IssuerURL: "https://login.example.com/", ClientID: name, ClientSecret: "s3cr3t", Scopes: []string{"openid"}},
					},
				},
			},
		}
	},
	change:  func(p portalIDPObj) { p.Spec.APISpec.Enabled = konnectv1alpha1.Enabled },
	changed: func(ent map[string]any) error { return fieldIs(ent, "enabled", true) },
	drift: func(e *env, _ string, ent map[string]any) {
		for _, name := range []string{"obj", "drifting"} {
			portalID := portalIDOfEntity(e, "portal-of-"+name)
			if _, ok := e.sim.APIEntity(e.orgID, "portal-identity-providers", portalID, fmt.Sprint(ent["id"])); ok {
				e.reputAPI("portal-identity-providers", portalID, map[string]any{"id": ent["id"], "enabled": false})
			}
		}
	},
	lookup: portalEntityOf[portalIDPObj]("portal-identity-providers", false),
}

func TestPortalIdentityProviderRequest(t *testing.T) { portalIdentityProviders.test(t) }

var portalCustomizations = kindCase[portalCustomizationOb]{
	kind: "PortalCustomization", collection: "portal-customizations", path: "/customization", untagged: true, alwaysThere: true,
	client: func(e *env) objectClient[portalCustomizationOb] {
		return e.cs.KonnectV1alpha1().PortalCustomizations(e.ns)
	},
	object: func(e *env, name string) portalCustomizationOb {
		css := "body { background-color: #f0f0f0; }"
		return &konnectv1alpha1.PortalCustomization{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: konnectv1alpha1.PortalCustomizationSpec{
				PortalRef: portalRefTo(e.portalFor(name)),
				APISpec: konnectv1alpha1.PortalCustomizationAPISpec{
					CSS: &css, Theme: &konnectv1alpha1.PortalTheme{Mode: "dark"},
					SpecRenderer: &konnectv1alpha1.PortalSpecRenderer{TryItUI: konnectv1alpha1.Disabled},
				},
			},
		}
	},
	change: func(c portalCustomizationOb) {
		robots := "User-agent: *"
		c.Spec.APISpec.Robots = &robots
	},
	changed: func(ent map[string]any) error { return fieldIs(ent, "robots", "User-agent: *") },
	drift: func(e *env, _ string, _ map[string]any) {
		e.reputAPI("portal-customizations", portalIDOfEntity(e, "portal-of-drifting"), map[string]any{"robots": "drifted"})
	},
	lookup: portalEntityOf[portalCustomizationOb]("portal-customizations", true),
	resetOnDelete: func(ent map[string]any) error {
		if ent["robots"] != nil || ent["css"] != nil {
			return fmt.Errorf("robots %v, css %v: not Konnect's defaults", ent["robots"], ent["css"])
		}
		return nil
	},
}

func TestPortalCustomization(t *testing.T) { portalCustomizations.test(t) }

var portalCustomDomains = kindCase[portalCustomDomainObj]{
	kind: "PortalCustomDomain", collection: "portal-custom-domains", path: "/custom-domain", untagged: true,
	client: func(e *env) objectClient[portalCustomDomainObj] {
		return e.cs.KonnectV1alpha1().PortalCustomDomains(e.ns)
	},
	object: func(e *env, name string) portalCustomDomainObj {
		return &konnectv1alpha1.PortalCustomDomain{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: konnectv1alpha1.PortalCustomDomainSpec{
				PortalRef: portalRefTo(e.portalFor(name)),
				APISpec: konnectv1alpha1.PortalCustomDomainAPISpec{
					Hostname: name + ".developer.example.com", Enabled: konnectv1alpha1.Enabled,
					SSL: &konnectv1alpha1.PortalCustomDomainSSL{
						Type: konnectv1alpha1.SSLStandard, Standard: &konnectv1alpha1.PortalCustomDomainSSLStandard{DomainVerificationMethod: "http"},
					},
				},
			},
		}
	},
	change:  func(d portalCustomDomainObj) { d.Spec.APISpec.Enabled = konnectv1alpha1.Disabled },
	changed: func(ent map[string]any) error { return fieldIs(ent, "enabled", false) },
	drift: func(e *env, _ string, _ map[string]any) {
		e.reputAPI("portal-custom-domains", portalIDOfEntity(e, "portal-of-drifting"), map[string]any{"enabled": true})
	},
	lookup: portalEntityOf[portalCustomDomainObj]("portal-custom-domains", true),
}

func TestPortalCustomDomain(t *testing.T) { portalCustomDomains.test(t) }

var portalEmailConfigs = kindCase[portalEmailConfigObj]{
	kind: "PortalEmailConfig", collection: "portal-email-configs", path: "/email-config", untagged: true,
	client: func(e *env) objectClient[portalEmailConfigObj] {
		return e.cs.KonnectV1alpha1().PortalEmailConfigs(e.ns)
	},
	object: func(e *env, name string) portalEmailConfigObj {
		from, address := "Developer Portal", "noreply@example.com"
		return &konnectv1alpha1.PortalEmailConfig{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: konnectv1alpha1.PortalEmailConfigSpec{
				PortalRef: portalRefTo(e.portalFor(name)),
				APISpec:   konnectv1alpha1.PortalEmailConfigAPISpec{FromName: &from, FromEmail: &address},
			},
		}
	},
	change: func(c portalEmailConfigObj) {
		name := "changed"
		c.Spec.APISpec.FromName = &name
	},
	changed: func(ent map[string]any) error { return fieldIs(ent, "from_name", "changed") },
	drift: func(e *env, _ string, _ map[string]any) {
		e.reputAPI("portal-email-configs", portalIDOfEntity(e, "portal-of-drifting"), map[string]any{"from_name": "drifted"})
	},
	lookup: portalEntityOf[portalEmailConfigObj]("portal-email-configs", true),
}

func TestPortalEmailConfig(t *testing.T) { portalEmailConfigs.test(t) }

// configStoreObject is a config store named name of the control plane cp.
func configStoreObject(name string) configStoreObj {
	return &konnectv1alpha1.KonnectConfigStore{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectConfigStoreSpec{
			ControlPlaneRef: commonv1alpha1.ObjectRef{Type: commonv1alpha1.ObjectRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: "cp"}},
			APISpec:         konnectv1alpha1.KonnectConfigStoreAPISpec{Name: name},
		},
	}
}

var configStores = kindCase[configStoreObj]{
	kind: "KonnectConfigStore", collection: "config-stores", path: "/config-stores", untagged: true,
	client: func(e *env) objectClient[configStoreObj] { return e.cs.KonnectV1alpha1().KonnectConfigStores(e.ns) },
	object: func(_ *env, name string) configStoreObj { return configStoreObject(name) },
	change: func(s configStoreObj) { s.Spec.APISpec.Name += "-v2" },
	changed: func(ent map[string]any) error {
		if name := fmt.Sprint(ent["name"]); !strings.HasSuffix(name, "-v2") {
			return fmt.Errorf("name = %s", name)
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		e.reputAPI("config-stores", cpID, map[string]any{"id": ent["id"], "name": "drifted"})
	},
	lookup: func(e *env, cpID string, s configStoreObj) (map[string]any, bool) {
		return e.sim.APIEntity(e.orgID, "config-stores", cpID, s.Status.ID)
	},
}

func TestKonnectConfigStore(t *testing.T) { configStores.test(t) }
