package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestWithShardLabelsEverySeriesOfANamedShard(t *testing.T) {
	reg := prometheus.NewRegistry()
	counter := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "things_total", Help: "Things."}, []string{"kind", "zone"})
	counter.WithLabelValues("a", "z").Inc()
	reg.MustRegister(counter, prometheus.NewGauge(prometheus.GaugeOpts{Name: "plain", Help: "Plain."}))

	for _, tc := range []struct {
		shard string
		want  map[string]string // metric name → its labels, joined
	}{
		{"", map[string]string{"things_total": "kind=a,zone=z", "plain": ""}},
		{"b", map[string]string{"things_total": "kind=a,shard=b,zone=z", "plain": "shard=b"}},
	} {
		families, err := WithShard(reg, tc.shard).Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range families {
			for _, m := range f.GetMetric() {
				labels := ""
				for i, l := range m.GetLabel() {
					if i > 0 {
						labels += ","
					}
					labels += l.GetName() + "=" + l.GetValue()
				}
				got[f.GetName()] = labels
			}
		}
		for name, want := range tc.want {
			if got[name] != want {
				t.Errorf("shard %q: %s has labels %q, want %q (sorted)", tc.shard, name, got[name], want)
			}
		}
	}
}
