package integration

import (
	dto "github.com/prometheus/client_model/go"
)

// metricValue sums the samples of a counter or gauge of the running
// operator whose labels include the given ones.
func (e *env) metricValue(name string, labels map[string]string) float64 {
	e.t.Helper()
	families, err := e.running.Registry().Gather()
	if err != nil {
		e.t.Fatal(err)
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !hasLabels(m, labels) {
				continue
			}
			switch {
			case m.Counter != nil:
				total += m.Counter.GetValue()
			case m.Gauge != nil:
				total += m.Gauge.GetValue()
			case m.Histogram != nil:
				total += float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return total
}

// hasMetric reports whether the running operator serves a series of name
// whose labels include the given ones, whatever its value.
func (e *env) hasMetric(name string, labels map[string]string) bool {
	e.t.Helper()
	families, err := e.running.Registry().Gather()
	if err != nil {
		e.t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabels(m, labels) {
				return true
			}
		}
	}
	return false
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == k && l.GetValue() == v {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// histogram returns the sample count and sum of a histogram of the running
// operator, over all its label values.
func (e *env) histogram(name string) (count uint64, sum float64) {
	e.t.Helper()
	families, err := e.running.Registry().Gather()
	if err != nil {
		e.t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if h := m.GetHistogram(); h != nil {
				count += h.GetSampleCount()
				sum += h.GetSampleSum()
			}
		}
	}
	return count, sum
}
