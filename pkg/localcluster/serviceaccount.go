package localcluster

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// serviceAccountTokenLifetime outlasts any test run or working day.
const serviceAccountTokenLifetime = 24 * time.Hour

// ServiceAccountConfig returns a configuration that authenticates as the
// existing ServiceAccount namespace/name with a token minted by the
// TokenRequest API, so that RBAC judges it exactly as it would judge the
// operator running in a pod under that ServiceAccount.
func (c *Cluster) ServiceAccountConfig(ctx context.Context, namespace, name string) (*rest.Config, error) {
	client, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	expiration := int64(serviceAccountTokenLifetime / time.Second)
	token, err := client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiration},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("request a token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return &rest.Config{
		Host:            c.Server,
		BearerToken:     token.Status.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.pki.caPEM},
		QPS:             clientQPS,
		Burst:           clientBurst,
	}, nil
}
