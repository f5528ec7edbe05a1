package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// authBootstrap is the KonnectAPIAuthConfiguration the operator creates at
// start when it does not exist (--create-auth-configuration): what the
// chart's konnectAuth.create asks for. Helm cannot create it itself on a
// first install, whose CRDs come with the same release: it looks the kind
// up before they exist.
type authBootstrap struct {
	namespace, name string
	secret          string
	serverURL       string
	// shard is the operator's shard: the configuration is created in it,
	// so that the process that creates it is the one that uses it.
	shard string
}

// parseAuthBootstrap reads the --create-auth-configuration flags; nil
// when the first is empty.
func parseAuthBootstrap(ref, secret, serverURL string) (*authBootstrap, error) {
	if ref == "" {
		if secret != "" || serverURL != "" {
			return nil, fmt.Errorf("--create-auth-configuration-secret and --create-auth-configuration-server-url need --create-auth-configuration")
		}
		return nil, nil
	}
	namespace, name, ok := strings.Cut(ref, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("--create-auth-configuration must be NAMESPACE/NAME, not %q", ref)
	}
	if secret == "" || serverURL == "" {
		return nil, fmt.Errorf("--create-auth-configuration needs --create-auth-configuration-secret and --create-auth-configuration-server-url")
	}
	return &authBootstrap{namespace: namespace, name: name, secret: secret, serverURL: serverURL}, nil
}

// ensure creates the auth configuration unless it exists; one that exists
// is left as it is, whoever made it. Until the kind is served (its CRD is
// being installed alongside) it tries again every interval.
func (b *authBootstrap) ensure(ctx context.Context, cs versioned.Interface, interval time.Duration) error {
	logger := klog.FromContext(ctx).WithValues("authConfiguration", klog.KRef(b.namespace, b.name))
	labels := map[string]string{"app.kubernetes.io/created-by": "konnect-operator"}
	if b.shard != "" {
		labels[commonv1alpha1.LabelShard] = b.shard
	}
	auth := &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: b.namespace,
			Name:      b.name,
			Labels:    labels,
		},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type:      konnectv1alpha1.KonnectAPIAuthTypeSecretRef,
			SecretRef: &corev1.SecretReference{Name: b.secret},
			ServerURL: b.serverURL,
		},
	}
	reported := false
	return wait.PollUntilContextCancel(ctx, interval, true, func(ctx context.Context) (bool, error) {
		_, err := cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(b.namespace).Create(ctx, auth, metav1.CreateOptions{})
		switch {
		case err == nil:
			logger.Info("Created the auth configuration", "secret", b.secret)
			return true, nil
		case apierrors.IsAlreadyExists(err):
			logger.V(2).Info("The auth configuration exists: left as it is")
			return true, nil
		case !reported:
			reported = true
			logger.Info("Cannot create the auth configuration yet; trying again", "err", err)
		}
		return false, nil
	})
}
