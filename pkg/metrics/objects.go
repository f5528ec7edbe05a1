package metrics

import (
	"sort"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MetricObjects is the name of the gauge of objects by kind and condition.
const MetricObjects = Namespace + "_objects"

// conditionStatuses are the label values of status, in the order emitted.
// Each is reported for every kind, zero included, so that a dashboard shows
// 0 rather than no data and `absent` alerts see the series.
var conditionStatuses = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}

// ObjectsCollector counts, whenever /metrics is scraped, the objects of
// each reconciled kind in the informer caches by the status of the condition
// that says whether the operator got them into Konnect (Programmed, or
// APIAuthValid for auth configurations). Counting from the caches at scrape
// time costs nothing between scrapes and cannot drift from what the cluster
// holds, as counts kept up to date on every reconcile could; and it works on
// a standby replica too, whose caches are as warm as the leader's.
type ObjectsCollector struct {
	desc *prometheus.Desc

	mu      sync.Mutex
	sources []objectSource
}

// objectSource is one kind: its condition and the statuses of that
// condition over the cached objects.
type objectSource struct {
	kind, condition string
	statuses        func() []metav1.ConditionStatus
}

var _ prometheus.Collector = (*ObjectsCollector)(nil)

// NewObjectsCollector returns a collector without kinds; add them with
// AddObjects and register it on the operator's registry.
func NewObjectsCollector() *ObjectsCollector {
	return &ObjectsCollector{
		desc: prometheus.NewDesc(MetricObjects,
			"Objects in the operator's caches, by kind and by the status (True, False, Unknown when not set yet) of the condition "+
				"that says whether they are in Konnect: Programmed, or APIAuthValid for KonnectAPIAuthConfiguration.",
			[]string{"kind", "condition", "status"}, nil),
	}
}

// Conditioned is an object with status conditions.
type Conditioned interface {
	GetConditions() []metav1.Condition
}

// AddObjects makes c report the objects list returns (read from an informer
// cache, never modified) by the status of their condition.
func AddObjects[T Conditioned](c *ObjectsCollector, kind, condition string, list func() []T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sources = append(c.sources, objectSource{kind: kind, condition: condition, statuses: func() []metav1.ConditionStatus {
		objects := list()
		out := make([]metav1.ConditionStatus, len(objects))
		for i, obj := range objects {
			out[i] = metav1.ConditionUnknown
			if cond := meta.FindStatusCondition(obj.GetConditions(), condition); cond != nil && cond.Status != "" {
				out[i] = cond.Status
			}
		}
		return out
	}})
	sort.Slice(c.sources, func(i, j int) bool { return c.sources[i].kind < c.sources[j].kind })
}

// Describe implements prometheus.Collector.
func (c *ObjectsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *ObjectsCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	sources := append([]objectSource(nil), c.sources...)
	c.mu.Unlock()
	for _, src := range sources {
		counts := map[metav1.ConditionStatus]int{}
		for _, status := range src.statuses() {
			counts[status]++
		}
		for _, status := range conditionStatuses {
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(counts[status]), src.kind, src.condition, string(status))
		}
	}
}
