package localcluster

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	// adminUser is the name of the static-token user in system:masters.
	adminUser = "admin"
	// controllerManagerUser is the controller manager's own user, whom the
	// API server's default roles give what it needs.
	controllerManagerUser = "system:kube-controller-manager"
	// serviceAccountIssuer is the iss claim of ServiceAccount tokens.
	serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local"
	// Client rate limits for the configs handed out: high enough that tests
	// are never slowed down by client-side throttling.
	clientQPS   = 200
	clientBurst = 400
	// pollInterval is how often readiness is checked while starting.
	pollInterval = 50 * time.Millisecond
)

// controllers are the kube-controller-manager controllers that work without
// nodes and that users of an operator rely on: namespace deletion, ownerReference
// garbage collection, the default ServiceAccount and its token Secrets, the
// kube-root-ca.crt ConfigMap, and aggregated ClusterRoles (admin/edit/view
// picking up rules labelled for aggregation).
var controllers = []string{
	"namespace-controller",
	"garbage-collector-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"root-ca-certificate-publisher-controller",
	"clusterrole-aggregation-controller",
}

func newCommand(path string, args []string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = childProcessAttributes()
	return cmd
}

func etcdArgs(dir string, clientPort, peerPort int) []string {
	clientURL := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	return []string{
		"--name=localcluster",
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=localcluster=" + peerURL,
		// Throw-away data: durability is not worth the fsync latency.
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}
}

func apiServerArgs(dir string, keys *pki, tokenFile string, port, etcdPort int) []string {
	return []string{
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(etcdPort),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		// Nothing is generated with the serving pair given, but without a
		// cert dir of its own it would use /var/run/kubernetes.
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file=" + keys.servingCertPath,
		"--tls-private-key-file=" + keys.servingKeyPath,
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=" + serviceAccountIssuer,
		"--service-account-key-file=" + keys.saPublicKeyPath,
		"--service-account-signing-key-file=" + keys.saPrivateKeyPath,
		"--service-cluster-ip-range=10.0.0.0/24",
		// The "kubernetes" Service cannot point at a loopback address, and
		// there is no network to reach it through anyway.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	}
}

func controllerManagerArgs(kubeconfig string, keys *pki) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--controllers=" + strings.Join(controllers, ","),
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + keys.saPrivateKeyPath,
		"--root-ca-file=" + keys.caCertPath,
		"--leader-elect=false",
		// No serving port: readiness is judged by the controllers' effects.
		"--secure-port=0",
	}
}

// waitEtcd polls etcd's health endpoint until it answers healthy.
func waitEtcd(ctx context.Context, p *process, clientPort int) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/health", clientPort)
	return poll(ctx, p, "etcd to be healthy", func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// waitAPIServer polls /readyz, which turns OK once every post-start hook
// (RBAC bootstrap roles, CRD controllers, …) has finished.
func waitAPIServer(ctx context.Context, p *process, client kubernetes.Interface) error {
	return poll(ctx, p, "kube-apiserver /readyz", func(ctx context.Context) (bool, error) {
		body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && strings.TrimSpace(string(body)) == "ok", nil
	})
}

// waitControllerManager waits until the ServiceAccount controller has made
// the default ServiceAccount of the default namespace, which shows that the
// controller manager reached the API server and started its controllers.
func waitControllerManager(ctx context.Context, p *process, client kubernetes.Interface) error {
	return poll(ctx, p, "kube-controller-manager to create the default ServiceAccount", func(ctx context.Context) (bool, error) {
		// Any error (NotFound until the controller runs) means: not yet.
		_, err := client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}

// poll calls check until it reports done, fails, ctx ends or the component
// exits.
func poll(ctx context.Context, p *process, what string, check func(context.Context) (bool, error)) error {
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		done, err := check(ctx)
		if err != nil {
			return fmt.Errorf("wait for %s: %w", what, err)
		}
		if done {
			return nil
		}
		select {
		case <-p.exited:
			return p.exitError()
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w; last output of %s:\n%s", what, ctx.Err(), p.name, p.tail.String())
		case <-ticker.C:
		}
	}
}
