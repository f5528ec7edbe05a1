package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/konnect-operator/konnect-operator/pkg/version"
)

// Names of the gauges about the operator process itself.
const (
	MetricLeader    = Namespace + "_leader"
	MetricBuildInfo = Namespace + "_build_info"
)

// RegisterLeader registers the gauge konnect_operator_leader, 1 while
// leading reports true (this process runs the controllers) and 0 otherwise,
// read at scrape time. Summed over the replicas it must be 1: 0 means
// nothing reconciles.
func RegisterLeader(reg prometheus.Registerer, leading func() bool) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: MetricLeader,
		Help: "1 while this replica holds the leader-election lease and runs the controllers (always, without leader election), else 0.",
	}, func() float64 {
		if leading() {
			return 1
		}
		return 0
	}))
}

// RegisterBuildInfo registers konnect_operator_build_info, always 1, whose
// labels say which build runs (what --version prints).
func RegisterBuildInfo(reg prometheus.Registerer) {
	info := version.Get()
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        MetricBuildInfo,
		Help:        "Always 1; the labels name the operator's version, commit and Go version.",
		ConstLabels: prometheus.Labels{"version": info.Version, "commit": info.Commit, "go_version": info.GoVersion},
	}, func() float64 { return 1 }))
}
