package integration

import (
	"strings"
	"testing"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/diff"
	"github.com/konnect-operator/konnect-operator/pkg/inventory"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// buildPortalWorld creates a portal with one object of each kind it holds,
// a config store of the control plane cp and a konnect vault that names
// it, and waits until all of them are Programmed.
func (e *env) buildPortalWorld() {
	e.t.Helper()
	e.ready()
	e.createPortal("portal")
	for _, create := range []func(){
		func() { portalPages.create(e, withPortal(portalPages.object(e, "page"), "portal")) },
		func() { portalTeams.create(e, withPortal(portalTeams.object(e, "team"), "portal")) },
		func() { portalIPAllowLists.create(e, withPortal(portalIPAllowLists.object(e, "allow"), "portal")) },
		func() {
			portalIdentityProviders.create(e, withPortal(portalIdentityProviders.object(e, "idp"), "portal"))
		},
		func() { portalCustomizations.create(e, withPortal(portalCustomizations.object(e, "look"), "portal")) },
		func() { portalCustomDomains.create(e, withPortal(portalCustomDomains.object(e, "domain"), "portal")) },
		func() { portalEmailConfigs.create(e, withPortal(portalEmailConfigs.object(e, "email"), "portal")) },
		func() { configStores.create(e, configStoreObject("store")) },
	} {
		create()
	}
	e.grantVaults(e.ns)
	e.grant(e.ns, "vaults-to-stores", "konnect.konghq.com", "KonnectConfigStore", grantFrom{"configuration.konghq.com", "KongVault", ""})
	v := vaultObject(e.worldVault(), e.ns, "cp")
	v.Spec.Backend, v.Spec.Config = "konnect", nil
	v.Spec.ConfigStoreRef = &configurationv1alpha1.KonnectConfigStoreRef{Name: "store", Namespace: e.ns}
	vaults.create(e, v)
	e.eventually("the portal world Programmed", func() error {
		_, err := e.worldIDs()
		return err
	})
}

// withPortal points a portal entity's object at the named portal.
func withPortal[T interface {
	PortalReference() *commonv1alpha1.ObjectRef
}](obj T, portal string) T {
	*obj.PortalReference() = portalRefTo(portal)
	return obj
}

// TestPortalEntitiesAreFoundAgainAfterTheirStatusIsLost: objects restored
// without their status (new UIDs, no IDs) find their entities again, the
// tagless ones (pages, teams, IP allow lists, identity providers, the
// singletons of the portal, config stores) by what Konnect keys them on,
// the portal by its identity labels: within two sync periods every object
// is Programmed with its old ID, nothing is created twice, nothing is
// written, and kubectl konnect diff finds nothing.
func TestPortalEntitiesAreFoundAgainAfterTheirStatusIsLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{syncPeriod: rebuildPeriod})
	e.buildPortalWorld()
	ids, err := e.worldIDs()
	if err != nil {
		t.Fatal(err)
	}
	entities := e.sim.Count(e.orgID)
	manifests := e.loseWorld()
	e.sim.ResetCalls()
	e.restoreWorld(manifests)
	e.startOperator()

	e.within(2, rebuildPeriod, "every object Programmed with its old ID", func() error { return e.sameIDs(ids) })
	e.step(rebuildPeriod) // a whole period's listings find nothing to write either
	if n := e.writes(); n != 0 {
		t.Fatalf("%d writes to Konnect while finding the entities again: %v", n, e.sim.Calls())
	}
	if n := e.sim.Count(e.orgID); n != entities {
		t.Fatalf("Konnect holds %d entities, it held %d: duplicates", n, entities)
	}
	if e.calls("GET", "/v3/portals/{portalId}/pages") == 0 || e.calls("GET", "/config-stores") == 0 {
		t.Fatalf("the pages or the config stores were never listed: %v", e.sim.Calls())
	}
	var stdout, stderr strings.Builder
	status := diff.Run(e.ctx, diff.Options{
		Cluster: inventory.Cluster{Clientset: e.cs, Kube: e.kube}, Namespace: e.ns,
		Konnect: konnect.NewClientFactory(konnect.Options{RootCAs: e.sim.CAPool}), Token: testToken,
	}, &stdout, &stderr)
	if status != diff.ExitSame {
		t.Fatalf("kubectl konnect diff exits %d:\n%s%s", status, stdout.String(), stderr.String())
	}
}
