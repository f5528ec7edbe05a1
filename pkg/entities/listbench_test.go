package entities

import (
	"context"
	"fmt"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// BenchmarkListConsumersForDrift measures what the drift lister spends on
// each listed consumer, through the operator's client against the
// simulator in process: the page read and split into entities, the
// consumer-group memberships, and for changed consumers their decoding
// and snapshots.
func BenchmarkListConsumersForDrift(b *testing.B) {
	const n = 1000
	s := startSimulator(b)
	p := s.controlPlane(b, "bench")
	ctx := context.Background()
	for i := range n {
		body := ConsumerDesired{Consumer: components.Consumer{
			Username: ptr(fmt.Sprintf("user-%05d", i)),
			CustomID: ptr(fmt.Sprintf("custom-%05d", i)),
			Tags:     []string{controller.KindTag("KongConsumer"), "k8s-uid:" + fmt.Sprint(i), "k8s-namespace:bench", "k8s-name:user"},
		}}
		if _, err := consumerCalls.doCreate(ctx, s.api, p, body); err != nil {
			b.Fatal(err)
		}
	}
	kind := ConsumerKind(testRefs(), cacheOf[kongConsumerGroup]("kongconsumergroups"), nil)
	list := func(b *testing.B, decode bool) {
		for b.Loop() {
			listed, err := kind.List(ctx, s.api, p, false)
			if err != nil || len(listed) != n {
				b.Fatalf("listed %d, %v", len(listed), err)
			}
			for i := range listed {
				if decode {
					if _, err := listed[i].Decode(); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entity")
	}
	// What an idle period costs: every consumer as it was.
	b.Run("unchanged", func(b *testing.B) { list(b, false) })
	// Every consumer changed, decoded and its snapshot taken.
	b.Run("changed", func(b *testing.B) { list(b, true) })
}
