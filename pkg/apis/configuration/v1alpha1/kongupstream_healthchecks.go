package v1alpha1

// The health-check objects below mirror Konnect's upstream health-check
// body field for field. Konnect's schema gives most of their fields no
// omitempty, so once a parent object is present those fields are required.
// Intervals, timeouts and the threshold are fractional JSON numbers, hence
// float64 (the CRD generator runs with allowDangerousTypes for them).

// Healthchecks configures how Kong decides whether an upstream's targets
// are healthy.
//
// +kubebuilder:validation:XValidation:rule="!has(self.threshold) || (self.threshold >= 0.0 && self.threshold <= 100.0)",message="spec.healthchecks.threshold must be between 0 and 100 (a percentage)"
type Healthchecks struct {
	// Active configures probing the targets.
	//
	// +optional
	Active *ActiveHealthcheck `json:"active,omitempty"`

	// Passive configures judging the targets by proxied traffic.
	//
	// +optional
	Passive *PassiveHealthcheck `json:"passive,omitempty"`

	// Threshold is the percentage (0 to 100) of healthy target weight below
	// which the upstream counts as unhealthy.
	//
	// +required
	Threshold float64 `json:"threshold"`
}

// ActiveHealthcheck configures active probing of targets.
type ActiveHealthcheck struct {
	// Type of probe: grpc, grpcs, http, https or tcp.
	//
	// +required
	Type string `json:"type"`

	// Concurrency is the number of targets probed at once.
	//
	// +required
	Concurrency int64 `json:"concurrency"`

	// HTTPPath is the path requested by HTTP probes.
	//
	// +required
	HTTPPath string `json:"http_path"`

	// HTTPSSni is the TLS server name sent by HTTPS probes.
	//
	// +optional
	HTTPSSni *string `json:"https_sni,omitempty"`

	// HTTPSVerifyCertificate says whether HTTPS probes verify the target's
	// certificate.
	//
	// +required
	HTTPSVerifyCertificate bool `json:"https_verify_certificate"`

	// Timeout of a probe, in seconds.
	//
	// +required
	Timeout float64 `json:"timeout"`

	// Headers are extra headers sent by HTTP probes.
	//
	// +optional
	Headers map[string][]string `json:"headers,omitempty"`

	// Healthy says when a probed target counts as healthy.
	//
	// +optional
	Healthy *ActiveHealthy `json:"healthy,omitempty"`

	// Unhealthy says when a probed target counts as unhealthy.
	//
	// +optional
	Unhealthy *ActiveUnhealthy `json:"unhealthy,omitempty"`
}

// ActiveHealthy says when a probed target counts as healthy.
type ActiveHealthy struct {
	// HTTPStatuses are the probe response codes that count as successes.
	//
	// +optional
	HTTPStatuses []int64 `json:"http_statuses,omitempty"`

	// Interval between probes of healthy targets, in seconds; 0 disables
	// them.
	//
	// +required
	Interval float64 `json:"interval"`

	// Successes is the number of successful probes that make a target
	// healthy.
	//
	// +required
	Successes int64 `json:"successes"`
}

// ActiveUnhealthy says when a probed target counts as unhealthy.
type ActiveUnhealthy struct {
	// HTTPFailures is the number of failed HTTP probes that make a target
	// unhealthy.
	//
	// +required
	HTTPFailures int64 `json:"http_failures"`

	// HTTPStatuses are the probe response codes that count as failures.
	//
	// +optional
	HTTPStatuses []int64 `json:"http_statuses,omitempty"`

	// Interval between probes of unhealthy targets, in seconds; 0 disables
	// them.
	//
	// +required
	Interval float64 `json:"interval"`

	// TCPFailures is the number of TCP failures that make a target
	// unhealthy.
	//
	// +required
	TCPFailures int64 `json:"tcp_failures"`

	// Timeouts is the number of probe timeouts that make a target
	// unhealthy.
	//
	// +required
	Timeouts int64 `json:"timeouts"`
}

// PassiveHealthcheck configures judging targets by proxied traffic.
type PassiveHealthcheck struct {
	// Type of traffic judged: grpc, grpcs, http, https or tcp.
	//
	// +required
	Type string `json:"type"`

	// Healthy says when a target counts as healthy again.
	//
	// +optional
	Healthy *PassiveHealthy `json:"healthy,omitempty"`

	// Unhealthy says when a target counts as unhealthy.
	//
	// +optional
	Unhealthy *PassiveUnhealthy `json:"unhealthy,omitempty"`
}

// PassiveHealthy says when a target counts as healthy by its traffic.
type PassiveHealthy struct {
	// HTTPStatuses are the response codes that count as successes.
	//
	// +optional
	HTTPStatuses []int64 `json:"http_statuses,omitempty"`

	// Successes is the number of successful responses that make a target
	// healthy.
	//
	// +required
	Successes int64 `json:"successes"`
}

// PassiveUnhealthy says when a target counts as unhealthy by its traffic.
type PassiveUnhealthy struct {
	// HTTPFailures is the number of failed responses that make a target
	// unhealthy.
	//
	// +required
	HTTPFailures int64 `json:"http_failures"`

	// HTTPStatuses are the response codes that count as failures.
	//
	// +optional
	HTTPStatuses []int64 `json:"http_statuses,omitempty"`

	// TCPFailures is the number of TCP failures that make a target
	// unhealthy.
	//
	// +required
	TCPFailures int64 `json:"tcp_failures"`

	// Timeouts is the number of timeouts that make a target unhealthy.
	//
	// +required
	Timeouts int64 `json:"timeouts"`
}
