package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The ServiceAccount that manifests/rbac/metrics lets scrape /metrics:
// the Prometheus of kube-prometheus and the prometheus-operator.
const (
	prometheusNamespace      = "monitoring"
	prometheusServiceAccount = "prometheus-k8s"
)

// scrapeClient trusts any certificate: the operator's is self-signed, as
// Prometheus is told with insecure_skip_verify. The bearer token is what
// the endpoint checks.
var scrapeClient = &http.Client{
	Timeout: 10 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true,
		MinVersion:         tls.VersionTLS12,
	}},
}

// scrapeAs GETs url with token ("" for none), as Prometheus would.
func scrapeAs(ctx context.Context, url, token string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return scrapeClient.Do(req)
}

// prometheus holds the token minted for Prometheus's ServiceAccount, per
// control plane: the chart's journey runs one of its own, where the suite's
// token means nothing.
var prometheus struct {
	sync.Mutex
	tokens map[*clusterEnv]string
}

// prometheusToken creates the ServiceAccount a Prometheus install would
// have in c (once) and mints a token for it with the TokenRequest API.
func prometheusToken(ctx context.Context, c *clusterEnv) (string, error) {
	prometheus.Lock()
	defer prometheus.Unlock()
	if token, ok := prometheus.tokens[c]; ok {
		return token, nil
	}
	token, err := serviceAccountToken(ctx, c, prometheusNamespace, prometheusServiceAccount)
	if err != nil {
		return "", err
	}
	if prometheus.tokens == nil {
		prometheus.tokens = map[*clusterEnv]string{}
	}
	prometheus.tokens[c] = token
	return token, nil
}

// serviceAccountToken creates namespace and ServiceAccount if need be and
// returns a token for it; the token is never printed.
func serviceAccountToken(ctx context.Context, c *clusterEnv, namespace, name string) (string, error) {
	_, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	_, err = c.kube.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	expiration := int64(time.Hour / time.Second)
	tr, err := c.kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiration},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("request a token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return tr.Status.Token, nil
}

// checkMetricsAccess scrapes an operator's /metrics with no token, with a
// ServiceAccount's token that no role lets read it, and with Prometheus's:
// 401, 403, 200.
func checkMetricsAccess(ctx context.Context, t *testing.T, c *clusterEnv, op *operatorProcess) {
	t.Helper()
	stranger, err := serviceAccountToken(ctx, c, "default", "no-metrics-for-me")
	if err != nil {
		t.Fatal(err)
	}
	allowed, err := prometheusToken(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		who   string
		token string
		want  int
	}{
		{"anonymous", "", http.StatusUnauthorized},
		{"a forged token", "not-a-token", http.StatusUnauthorized},
		{"a ServiceAccount without the metrics-reader role", stranger, http.StatusForbidden},
		{"Prometheus's ServiceAccount", allowed, http.StatusOK},
	} {
		resp, err := scrapeAs(ctx, op.metricsURL, tc.token)
		if err != nil {
			t.Fatalf("%s: %v", tc.who, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: /metrics answered %d, want %d", tc.who, resp.StatusCode, tc.want)
		}
	}
	// Plain HTTP is not served.
	plain, err := http.NewRequestWithContext(ctx, http.MethodGet, "http"+op.metricsURL[len("https"):], nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.DefaultClient.Do(plain); err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("/metrics answered 200 over plain HTTP")
		}
	}
}
