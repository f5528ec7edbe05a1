package integration

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// BenchmarkRebuildTakesEntitiesBack creates 1,000 services, 1,000 routes
// and 1,000 consumers on one control plane, loses the cluster's objects
// (finalizers taken off, so that Konnect keeps every entity), applies them
// again and reports what taking the entities back cost: the time until
// every object is Programmed with its old ID, and Konnect's requests by
// method (writes must be 0). Run it with
//
//	go test ./e2e/integration -run '^$' -bench RebuildTakesEntitiesBack -benchtime 1x
func BenchmarkRebuildTakesEntitiesBack(b *testing.B) {
	const perKind = 1000
	for range b.N {
		e := newEnv(b, envOptions{konnectRate: 1000, clusterIdentity: "bench"})
		e.ready()
		var mu sync.Mutex
		createAll(e, perKind, &mu, map[string]time.Time{})
		err := wait.PollUntilContextTimeout(e.ctx, time.Second, 30*time.Minute, true, func(context.Context) (bool, error) {
			return e.allProgrammed(3*perKind) == nil, nil
		})
		if err != nil {
			b.Fatalf("the objects were not Programmed: %v", err)
		}
		ids, err := e.worldIDs()
		if err != nil {
			b.Fatal(err)
		}
		entities := e.sim.Count(e.orgID)

		manifests := e.loseWorld()
		e.sim.ResetCalls()
		e.restoreWorld(manifests)
		start := time.Now()
		e.startOperator()
		err = wait.PollUntilContextTimeout(e.ctx, time.Second, 30*time.Minute, true, func(context.Context) (bool, error) {
			return e.sameIDs(ids) == nil, nil
		})
		if err != nil {
			b.Fatalf("not taken back: %v (last: %v)", err, e.sameIDs(ids))
		}
		took := time.Since(start)

		calls := map[string]int{}
		for op, n := range e.sim.Calls() {
			calls[strings.SplitN(op, " ", 2)[0]] += n
		}
		if n := e.writes(); n != 0 {
			b.Fatalf("%d writes to Konnect while taking the entities back: %v", n, e.sim.Calls())
		}
		if n := e.sim.Count(e.orgID); n != entities {
			b.Fatalf("Konnect holds %d entities, it held %d", n, entities)
		}
		b.ReportMetric(float64(len(ids))/took.Seconds(), "objects/s")
		b.ReportMetric(float64(calls["GET"])/float64(len(ids)), "GET/object")
		b.Logf("%d objects took their entities back in %s, Konnect requests: %s", len(ids), took.Round(time.Millisecond), perEntity(calls, len(ids)))
	}
}
