package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// TestPortalPageInAnotherNamespaceNeedsAGrant: a page that names a portal
// of another namespace is refused until a KongReferenceGrant there allows
// PortalPages from its namespace; a portalRef of type konnectID is refused
// with a message that says to name the Portal.
func TestPortalPageInAnotherNamespaceNeedsAGrant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{otherNamespace: true})
	e.createAuthConfig("auth")
	e.createPortal("portal")
	page := portalPages.object(e, "page")
	page.Namespace = e.other
	page.Spec.PortalRef.NamespacedRef.Namespace = e.ns
	if _, err := e.cs.KonnectV1alpha1().PortalPages(e.other).Create(e.ctx, page, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	get := func() (konnectObject, error) {
		return e.cs.KonnectV1alpha1().PortalPages(e.other).Get(e.ctx, "page", metav1.GetOptions{})
	}
	e.eventually("the page refused without a grant", func() error {
		obj, err := get()
		if err != nil {
			return err
		}
		return conditionIs(obj, commonv1alpha1.ConditionResolvedRefs, metav1.ConditionFalse, commonv1alpha1.ReasonRefNotPermitted)
	})
	e.grant(e.ns, "pages-to-portal", "konnect.konghq.com", "Portal", grantFrom{"konnect.konghq.com", "PortalPage", e.other})
	e.programmedIn(e.other, "PortalPage", get)

	byID := portalPages.object(e, "by-id")
	id := "5f0d6a8e-2c1b-4e3a-9d7f-6b5a4c3d2e1f"
	byID.Spec.PortalRef = commonv1alpha1.ObjectRef{Type: commonv1alpha1.ObjectRefKonnectID, KonnectID: &id}
	portalPages.create(e, byID)
	refused := portalPages.refused(e, "by-id", commonv1alpha1.ConditionPortalRefValid, commonv1alpha1.ReasonInvalid)
	if msg := meta.FindStatusCondition(refused.Status.Conditions, commonv1alpha1.ConditionPortalRefValid).Message; !strings.Contains(msg, "namespacedRef") {
		t.Fatalf("the message does not say how to name the portal: %q", msg)
	}
}

// TestPortalEntitiesAreDeletedBeforeThePortal: a portal deleted together
// with what it holds waits until the objects of its entities have deleted
// them; the simulator's request log shows every entity's delete before the
// portal's.
func TestPortalEntitiesAreDeletedBeforeThePortal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.createAuthConfig("auth")
	e.createPortal("portal")
	portalPages.create(e, portalPages.object(e, "page"))
	portalTeams.create(e, portalTeams.object(e, "team"))
	portalPages.programmed(e, "page")
	portalTeams.programmed(e, "team")
	portalID := portalIDOfEntity(e, "portal")

	// The portal first, as a namespace deleted at once may.
	if err := e.cs.KonnectV1alpha1().Portals(e.ns).Delete(e.ctx, "portal", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.stays("the portal is kept while its entities' objects remain", func() error {
		p, err := e.cs.KonnectV1alpha1().Portals(e.ns).Get(e.ctx, "portal", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if _, ok := e.sim.APIEntity(e.orgID, "portals", "", portalID); !ok {
			return fmt.Errorf("the portal is gone from Konnect before its pages and teams")
		}
		if c := meta.FindStatusCondition(p.Status.Conditions, commonv1alpha1.ConditionProgrammed); c == nil {
			return fmt.Errorf("no Programmed condition")
		}
		return nil
	})
	portalPages.deleteAndWait(e, "page")
	portalTeams.deleteAndWait(e, "team")
	e.eventually("the portal deleted", func() error {
		if _, ok := e.sim.APIEntity(e.orgID, "portals", "", portalID); ok {
			return fmt.Errorf("the portal is still in Konnect")
		}
		return nil
	})
	var order []string
	for _, r := range e.sim.Requests() {
		if r.Method == "DELETE" && strings.HasPrefix(r.Path, "/v3/portals/"+portalID) {
			order = append(order, r.Operation)
		}
	}
	last := slices.Index(order, "DELETE /v3/portals/{portalId}")
	if last != len(order)-1 || !slices.Contains(order, "DELETE /v3/portals/{portalId}/pages/{pageId}") ||
		!slices.Contains(order, "DELETE /v3/portals/{portalId}/teams/{teamId}") {
		t.Fatalf("deletes in the order %v: the page and the team before the portal", order)
	}
}

// TestVaultSendsItsConfigStoresID: a konnect vault that names a
// KonnectConfigStore is refused until a grant in the store's namespace
// lets KongVaults use it, then carries the store's Konnect ID as
// config.config_store_id; a change of stores reaches the vault.
func TestVaultSendsItsConfigStoresID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.grantVaults(e.ns)
	configStores.create(e, configStoreObject("store"))
	configStores.create(e, configStoreObject("other"))
	store, other := configStores.programmed(e, "store"), configStores.programmed(e, "other")
	name := e.ns + "-vault"
	v := vaultObject(name, e.ns, "cp")
	v.Spec.Backend, v.Spec.Config = "konnect", nil
	v.Spec.ConfigStoreRef = &configurationv1alpha1.KonnectConfigStoreRef{Name: "store", Namespace: e.ns}
	vaults.create(e, v)
	vaults.refused(e, name, commonv1alpha1.ConditionConfigStoreRefValid, commonv1alpha1.ReasonRefNotPermitted)

	e.grant(e.ns, "vaults-to-stores", "konnect.konghq.com", "KonnectConfigStore", grantFrom{"configuration.konghq.com", "KongVault", ""})
	storeOf := func(want *konnectv1alpha1.KonnectConfigStore) func() error {
		return func() error {
			v := vaults.get(e, name)
			if err := programmed(v); err != nil {
				return err
			}
			ent, err := vaults.entity(e, cpID, v)
			if err != nil {
				return err
			}
			config, _ := ent["config"].(map[string]any)
			if config["config_store_id"] != want.Status.ID {
				return fmt.Errorf("config %v, want config_store_id %s", config, want.Status.ID)
			}
			return nil
		}
	}
	e.eventually("the vault names the store", storeOf(store))
	vaults.update(e, name, func(v kongVault) { v.Spec.ConfigStoreRef.Name = "other" })
	e.eventually("the vault names the other store", storeOf(other))
}
