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
// simulator in process: the page's decoding, the snapshot of each entity
// and the consumer-group memberships.
func BenchmarkListConsumersForDrift(b *testing.B) {
	const n = 1000
	s := startSimulator(b)
	p := s.controlPlane(b, "bench")
	ctx := context.Background()
	for i := range n {
		body := consumerDesired{Consumer: components.Consumer{
			Username: ptr(fmt.Sprintf("user-%05d", i)),
			CustomID: ptr(fmt.Sprintf("custom-%05d", i)),
			Tags:     []string{controller.KindTag("KongConsumer"), "k8s-uid:" + fmt.Sprint(i), "k8s-namespace:bench", "k8s-name:user"},
		}}
		if _, err := consumerCalls.doCreate(ctx, s.api, p, body); err != nil {
			b.Fatal(err)
		}
	}
	kind := ConsumerKind(testRefs(), cacheOf[kongConsumerGroup]("kongconsumergroups"), nil)
	b.ResetTimer()
	for b.Loop() {
		listed, err := kind.List(ctx, s.api, p, false)
		if err != nil || len(listed) != n {
			b.Fatalf("listed %d, %v", len(listed), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entity")
}
