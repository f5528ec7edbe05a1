// Package metrics holds the operator's own Prometheus registry and the
// metrics that the controllers and the work queues report.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric the operator defines.
const Namespace = "konnect_operator"

// NewRegistry returns a registry of the operator's own, with the Go runtime
// and process collectors. The global default registry is never used, so
// that tests can run several operators in one process.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return reg
}

// Handler serves the registry in the Prometheus text format.
func Handler(reg *prometheus.Registry) http.Handler {
	return HandlerFor(reg, reg)
}

// HandlerFor serves what g gathers (the registry, or a view of it such as
// WithShard's), counting its own errors in reg.
func HandlerFor(g prometheus.Gatherer, reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{Registry: reg})
}
