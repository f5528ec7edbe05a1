package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// konnectHoldsTheDeclaredSpec checks that Konnect holds exactly one
// entity per service and route, found by its object's UID tag, at the
// declared version, and nothing else: no duplicate, no orphan.
func (w *outageWorld) konnectHoldsTheDeclaredSpec(ctx context.Context) error {
	cpID, err := w.controlPlaneID(ctx)
	if err != nil {
		return err
	}
	checks := []struct {
		gvk        schema.GroupVersionKind
		collection string
		prefix     string
		declared   func(i int, e konnectEntity) bool
	}{
		{serviceKind, "services", "svc-", func(i int, e konnectEntity) bool { return e.Host == serviceHostOf(i, w.versions[i]) }},
		{routeKind, "routes", "route-", func(i int, e konnectEntity) bool {
			return slices.Equal(e.Paths, []string{routePathOf(i, w.versions[i])})
		}},
	}
	for _, check := range checks {
		listed, byUID, err := w.sim.entitiesByUID(ctx, cpID, check.collection)
		if err != nil {
			return err
		}
		items, err := w.c.list(ctx, check.gvk, w.ns)
		if err != nil {
			return err
		}
		if len(listed) != len(w.versions) || len(items) != len(w.versions) {
			return fmt.Errorf("%d %s in Konnect and %d objects, want %d", len(listed), check.collection, len(items), len(w.versions))
		}
		for j := range items {
			found := byUID[string(items[j].GetUID())]
			if len(found) != 1 {
				return fmt.Errorf("%s %s: %d Konnect entities carry its UID tag, want 1", check.gvk.Kind, items[j].GetName(), len(found))
			}
			var i int
			if _, err := fmt.Sscanf(strings.TrimPrefix(items[j].GetName(), check.prefix), "%d", &i); err != nil {
				return err
			}
			if _, declared := w.versions[i]; !declared {
				return fmt.Errorf("%s %s is not declared", check.gvk.Kind, items[j].GetName())
			}
			if !check.declared(i, found[0]) {
				return fmt.Errorf("%s %s: Konnect holds %+v, not version %d", check.gvk.Kind, items[j].GetName(), found[0], w.versions[i])
			}
		}
	}
	return nil
}

// controlPlaneID is the Konnect ID of the world's control plane: the one
// labelled with its object's UID, which must be the only one.
func (w *outageWorld) controlPlaneID(ctx context.Context) (string, error) {
	var cps struct {
		Data []struct {
			ID     string            `json:"id"`
			Labels map[string]string `json:"labels"`
		} `json:"data"`
	}
	if err := w.sim.get(ctx, "/v2/control-planes", true, &cps); err != nil {
		return "", err
	}
	cp, err := w.c.get(ctx, controlPlaneKind, w.ns, "cp")
	if err != nil {
		return "", err
	}
	if len(cps.Data) != 1 || cps.Data[0].Labels[controller.TagKeyUID] != string(cp.GetUID()) {
		return "", fmt.Errorf("%d control planes in Konnect, want exactly the one labelled with the control plane's UID", len(cps.Data))
	}
	return cps.Data[0].ID, nil
}
