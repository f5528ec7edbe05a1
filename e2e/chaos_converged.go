package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// objects counts the world's Konnect objects.
func (w *chaosWorld) objects() int { return 3*w.n + 2 }

// converged reports why the world is not yet what version w.version
// declares, in the cluster and in Konnect; nil when it is.
func (w *chaosWorld) converged(ctx context.Context) error {
	programmed := 0
	var notReady []string
	for _, gvk := range []schema.GroupVersionKind{authKind, controlPlaneKind, serviceKind, routeKind, consumerKind} {
		items, err := w.c.list(ctx, gvk, w.ns)
		if err != nil {
			return err
		}
		for i := range items {
			cond := conditionsOf(&items[i])[readyCondition(gvk.Kind)]
			if cond["status"] == "True" && cond["observedGeneration"] == fmt.Sprint(items[i].GetGeneration()) {
				programmed++
			} else if len(notReady) < 5 {
				notReady = append(notReady, fmt.Sprintf("%s %s (generation %d): %s", gvk.Kind, items[i].GetName(), items[i].GetGeneration(), describeCondition(cond)))
			}
		}
	}
	if programmed != w.objects() {
		return fmt.Errorf("%d of %d objects ready at their generation; not: %s", programmed, w.objects(), strings.Join(notReady, "; "))
	}
	return w.konnectHoldsTheLatestSpec(ctx)
}

func describeCondition(c map[string]string) string {
	if c == nil {
		return "no condition yet"
	}
	return fmt.Sprintf("%s/%s at generation %s: %s", c["status"], c["reason"], c["observedGeneration"], c["message"])
}

// konnectEntity is what the checks read of an entity.
type konnectEntity struct {
	ID       string   `json:"id"`
	Tags     []string `json:"tags"`
	Host     string   `json:"host"`
	Paths    []string `json:"paths"`
	CustomID string   `json:"custom_id"`
}

// konnectHoldsTheLatestSpec checks that Konnect holds exactly one entity
// per object, found by the object's UID tag, each with the latest spec.
func (w *chaosWorld) konnectHoldsTheLatestSpec(ctx context.Context) error {
	var cps struct {
		Data []struct {
			ID     string            `json:"id"`
			Labels map[string]string `json:"labels"`
		} `json:"data"`
	}
	if err := w.sim.get(ctx, "/v2/control-planes", true, &cps); err != nil {
		return err
	}
	cp, err := w.c.get(ctx, controlPlaneKind, w.ns, "cp")
	if err != nil {
		return err
	}
	if len(cps.Data) != 1 || cps.Data[0].Labels[controller.TagKeyUID] != string(cp.GetUID()) {
		return fmt.Errorf("%d control planes in Konnect, want exactly the one labelled with the control plane's UID", len(cps.Data))
	}
	cpID := cps.Data[0].ID
	checks := []struct {
		gvk        schema.GroupVersionKind
		collection string
		prefix     string
		latest     func(i int, e konnectEntity) bool
	}{
		{serviceKind, "services", "svc-", func(i int, e konnectEntity) bool { return e.Host == serviceHost(i, w.version) }},
		{routeKind, "routes", "route-", func(i int, e konnectEntity) bool { return slices.Equal(e.Paths, []string{routePath(i, w.version)}) }},
		{consumerKind, "consumers", "consumer-", func(i int, e konnectEntity) bool { return e.CustomID == consumerID(i, w.version) }},
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
		if len(listed) != len(items) {
			return fmt.Errorf("%d %s in Konnect for %d objects", len(listed), check.collection, len(items))
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
			if !check.latest(i, found[0]) {
				return fmt.Errorf("%s %s: Konnect holds %+v, not spec version %d", check.gvk.Kind, items[j].GetName(), found[0], w.version)
			}
		}
	}
	return nil
}

// waitConverged waits until converged and returns how long it took.
func (w *chaosWorld) waitConverged(ctx context.Context, since time.Time, limit time.Duration) time.Duration {
	w.t.Helper()
	if err := waitFor(ctx, limit, w.converged); err != nil {
		w.t.Fatalf("chaos %s: not converged: %v", w.name, err)
	}
	return time.Since(since)
}

// entitiesByUID lists a collection of a control plane's core entities in
// Konnect, and indexes them by the k8s-uid tag they carry.
func (s *simulator) entitiesByUID(ctx context.Context, cpID, collection string) ([]konnectEntity, map[string][]konnectEntity, error) {
	var page struct {
		Data []konnectEntity `json:"data"`
	}
	if err := s.get(ctx, "/v2/control-planes/"+cpID+"/core-entities/"+collection+"?size=1000", true, &page); err != nil {
		return nil, nil, err
	}
	byUID := map[string][]konnectEntity{}
	for _, e := range page.Data {
		for _, tag := range e.Tags {
			if uid, ok := strings.CutPrefix(tag, controller.TagKeyUID+":"); ok {
				byUID[uid] = append(byUID[uid], e)
			}
		}
	}
	return page.Data, byUID, nil
}
