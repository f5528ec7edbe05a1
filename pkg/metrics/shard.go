package metrics

import (
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// LabelShard names, on every series a sharded operator serves, the shard
// it runs (see --shard), so that Prometheus tells shards apart whatever
// scrapes them. The default shard's series carry no such label: an
// installation without shards serves what it always did.
const LabelShard = "shard"

// WithShard returns what g gathers, every series labelled shard=<shard>;
// g itself for the default shard (""). The label is added as the series
// are served rather than to each metric, so that the metrics of client-go,
// the Go runtime and the process carry it too.
func WithShard(g prometheus.Gatherer, shard string) prometheus.Gatherer {
	if shard == "" {
		return g
	}
	return shardGatherer{inner: g, shard: shard}
}

type shardGatherer struct {
	inner prometheus.Gatherer
	shard string
}

// Gather implements prometheus.Gatherer.
func (s shardGatherer) Gather() ([]*dto.MetricFamily, error) {
	families, err := s.inner.Gather()
	for _, family := range families {
		for _, m := range family.Metric {
			if slices.ContainsFunc(m.Label, func(l *dto.LabelPair) bool { return l.GetName() == LabelShard }) {
				continue
			}
			m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(LabelShard), Value: proto.String(s.shard)})
			slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
		}
	}
	return families, err
}
