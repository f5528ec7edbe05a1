// Package metrics holds the operator's own Prometheus registry and the
// metrics that the controllers, the work queues and the Kubernetes client
// report: its own series, and those controller-runtime and client-go
// programs serve under their usual names.
package metrics

import (
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric the operator defines.
const Namespace = "konnect_operator"

// Registry is the operator's registry. It also remembers every collector
// registered on it: a vector with no series yet is invisible to Gather, and
// the generated reference of the metrics (hack/docgen) describes them all.
type Registry struct {
	*prometheus.Registry

	mu         sync.Mutex
	collectors []prometheus.Collector
}

// NewRegistry returns a registry of the operator's own, with the Go runtime
// and process collectors. The global default registry is never used, so
// that tests can run several operators in one process.
func NewRegistry() *Registry {
	reg := &Registry{Registry: prometheus.NewRegistry()}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return reg
}

// Register registers c and remembers it.
func (r *Registry) Register(c prometheus.Collector) error {
	if err := r.Registry.Register(c); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collectors = append(r.collectors, c)
	return nil
}

// MustRegister registers every collector and panics on the first error, as
// prometheus.Registry.MustRegister does.
func (r *Registry) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

// Unregister unregisters c and forgets it.
func (r *Registry) Unregister(c prometheus.Collector) bool {
	if !r.Registry.Unregister(c) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, known := range r.collectors {
		if known == c {
			r.collectors = append(r.collectors[:i], r.collectors[i+1:]...)
			break
		}
	}
	return true
}

// Collectors returns the collectors registered, in the order they were.
func (r *Registry) Collectors() []prometheus.Collector {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]prometheus.Collector(nil), r.collectors...)
}

// Handler serves the registry in the Prometheus text format.
func Handler(reg *Registry) http.Handler {
	return HandlerFor(reg, reg)
}

// HandlerFor serves what g gathers (the registry, or a view of it such as
// WithShard's), counting its own errors in reg.
func HandlerFor(g prometheus.Gatherer, reg prometheus.Registerer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{Registry: reg})
}
