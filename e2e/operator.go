package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Leader election timings of the suite's operators: short, so that a
// failover takes seconds.
const (
	leaseDuration = 6 * time.Second
	renewDeadline = 4 * time.Second
	retryPeriod   = 1 * time.Second
)

// operatorProcess is the konnect-operator binary running out of cluster.
type operatorProcess struct {
	*process
	metricsURL, healthURL string
}

// deploymentArgs returns the container arguments and the POD_NAMESPACE
// source of the operator's Deployment as the cluster holds it.
func deploymentArgs(ctx context.Context, c *clusterEnv) ([]string, error) {
	d, err := c.kube.AppsV1().Deployments(operatorNamespace).Get(ctx, operatorDeployment, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	container, err := operatorContainer(d)
	if err != nil {
		return nil, err
	}
	return container.Args, nil
}

func operatorContainer(d *appsv1.Deployment) (*corev1.Container, error) {
	for i := range d.Spec.Template.Spec.Containers {
		if d.Spec.Template.Spec.Containers[i].Name == "operator" {
			return &d.Spec.Template.Spec.Containers[i], nil
		}
	}
	return nil, errors.New("the Deployment has no container called operator")
}

// startOperator runs the operator with the Deployment's arguments, plus what
// running outside the cluster needs: the ServiceAccount's kubeconfig (in
// place of the in-cluster configuration), the simulator's CA, loopback
// addresses and the suite's lease timings. Later flags win.
func startOperator(name, kubeconfig string, deploymentArgs []string, extra ...string) (*operatorProcess, error) {
	ports := make([]int, 2)
	for i := range ports {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	args := append(append([]string(nil), deploymentArgs...),
		"--kubeconfig="+kubeconfig,
		"--konnect-ca-file="+suite.sim.caFile,
		suite.sim.allowedHostsArg(),
		"--metrics-bind-address=127.0.0.1:"+strconv.Itoa(ports[0]),
		"--health-probe-bind-address=127.0.0.1:"+strconv.Itoa(ports[1]),
		"--leader-elect-lease-duration="+leaseDuration.String(),
		"--leader-elect-renew-deadline="+renewDeadline.String(),
		"--leader-elect-retry-period="+retryPeriod.String(),
	)
	args = append(args, extra...)
	p, err := startProcess(filepath.Join(suite.workDir, "operators"), name,
		[]string{"POD_NAMESPACE=" + operatorNamespace}, filepath.Join(suite.binDir, "konnect-operator"), args...)
	if err != nil {
		return nil, err
	}
	return &operatorProcess{
		process:    p,
		metricsURL: fmt.Sprintf("https://127.0.0.1:%d/metrics", ports[0]),
		healthURL:  fmt.Sprintf("http://127.0.0.1:%d", ports[1]),
	}, nil
}

// identity is the name the operator holds the Lease under (host_pid).
func (o *operatorProcess) identity() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s_%d", host, o.cmd.Process.Pid)
}

// probe GETs /healthz or /readyz and returns the status code.
func (o *operatorProcess) probe(ctx context.Context, path string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.healthURL+path, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// waitReady waits until /readyz answers 200 (caches synced).
func (o *operatorProcess) waitReady(ctx context.Context, timeout time.Duration) error {
	return eventually(ctx, timeout, func(ctx context.Context) error {
		if !o.running() {
			return fmt.Errorf("%s exited: %w\n%s", o.name, o.waitErr, o.tail(3000))
		}
		code, err := o.probe(ctx, "/readyz")
		if err != nil {
			return err
		}
		if code != http.StatusOK {
			return fmt.Errorf("/readyz answered %d", code)
		}
		return nil
	})
}

// metrics scrapes /metrics as Prometheus does (HTTPS, the token of the
// ServiceAccount the shipped metrics-reader binding names) and parses it
// with the Prometheus text parser.
func (o *operatorProcess) metrics(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	text, err := o.scrape(ctx)
	if err != nil {
		return nil, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(bytes.NewReader(text))
}

// scrape GETs /metrics in the Prometheus text format, with the token of the
// ServiceAccount allowed to read it.
func (o *operatorProcess) scrape(ctx context.Context) ([]byte, error) {
	token, err := prometheusToken(ctx, suite.cluster)
	if err != nil {
		return nil, err
	}
	resp, err := scrapeAs(ctx, o.metricsURL, token)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics answered %s: %s", resp.Status, body)
	}
	return body, nil
}

// sumMetric adds up the counters, gauges or histogram counts of family
// name whose labels include every pair of match.
func sumMetric(families map[string]*dto.MetricFamily, name string, match map[string]string) float64 {
	family, ok := families[name]
	if !ok {
		return 0
	}
	total := 0.0
next:
	for _, m := range family.GetMetric() {
		for k, v := range match {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total
}

// labelValues lists the values label takes in family name.
func labelValues(families map[string]*dto.MetricFamily, name, label string) []string {
	var out []string
	for _, m := range families[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out = append(out, l.GetValue())
			}
		}
	}
	return out
}

// leaseHolder returns who holds the operator's Lease and when it was last
// renewed.
func leaseHolder(ctx context.Context, c *clusterEnv) (string, time.Time, error) {
	lease, err := c.kube.CoordinationV1().Leases(operatorNamespace).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		return "", time.Time{}, err
	}
	holder := ""
	if lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	var renewed time.Time
	if lease.Spec.RenewTime != nil {
		renewed = lease.Spec.RenewTime.Time
	}
	return holder, renewed, nil
}

// writeServiceAccountKubeconfig mints a token for the operator's
// ServiceAccount with the TokenRequest API and writes a kubeconfig (mode
// 0600) that uses it; the token itself is never printed.
func writeServiceAccountKubeconfig(ctx context.Context, c *clusterEnv, path string) error {
	cfg, err := c.ServiceAccountConfig(ctx, operatorNamespace, operatorServiceAccount)
	if err != nil {
		return err
	}
	return c.WriteKubeconfig(path, cfg)
}

// hasFlag reports whether args set flag (as --flag=value or --flag value).
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}
