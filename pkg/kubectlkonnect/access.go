package kubectlkonnect

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// clusterFlags reach the cluster the way kubectl does: KUBECONFIG or
// --kubeconfig, --context, and -n/--namespace over the context's namespace.
type clusterFlags struct {
	kubeconfig, context, namespace string
}

func (f *clusterFlags) add(fs *pflag.FlagSet) {
	fs.StringVarP(&f.namespace, "namespace", "n", "", "Namespace of the objects (default: the kubeconfig context's namespace, else default).")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).")
	fs.StringVar(&f.context, "context", "", "The kubeconfig context to use.")
}

// config is the kubeconfig as kubectl would load it with these flags; it
// reads the files only when asked for a client or the namespace.
func (f *clusterFlags) config() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: f.context}
	overrides.Context.Namespace = f.namespace
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
}

// resolvedNamespace is -n, else the context's namespace, else default.
func (f *clusterFlags) resolvedNamespace() (string, error) {
	if f.namespace != "" {
		return f.namespace, nil
	}
	ns, _, err := f.config().Namespace()
	if err != nil {
		return "", fmt.Errorf("kubeconfig: %w", err)
	}
	return ns, nil
}

// clients are the cluster's clients.
func (f *clusterFlags) clients() (versioned.Interface, kubernetes.Interface, error) {
	restConfig, err := f.config().ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("kubeconfig: %w", err)
	}
	restConfig.UserAgent = "kubectl-konnect"
	cs, err := versioned.NewForConfig(restConfig)
	if err != nil {
		return nil, nil, err
	}
	kube, err := kubernetes.NewForConfig(restConfig)
	return cs, kube, err
}

// konnectFlags reach Konnect. The token is never a flag's value: it comes
// from KONNECT_TOKEN or a file, so that it stays out of shell histories
// and process lists.
type konnectFlags struct {
	serverURL, caFile, tokenFile, allowedHosts string
}

func (f *konnectFlags) add(fs *pflag.FlagSet, serverURLHelp string) {
	if serverURLHelp != "" {
		fs.StringVar(&f.serverURL, "server-url", "", serverURLHelp)
	}
	fs.StringVar(&f.caFile, "konnect-ca-file", "", "PEM file of extra certificate authorities to trust for Konnect (a proxy's, or the Konnect simulator's).")
	fs.StringVar(&f.tokenFile, "token-file", "", "File holding the Konnect token (default: $"+EnvToken+").")
	fs.StringVar(&f.allowedHosts, "konnect-allowed-hosts", strings.Join(konnect.DefaultAllowedHosts, ","),
		"Comma-separated Konnect API hosts (host, or host:port) a token may be sent to, as the operator's flag of that name: an auth configuration naming another server is refused. A --server-url you give is allowed too.")
}

// token is the token of the file or the environment, "" when neither
// gives one.
func (f *konnectFlags) token(env Env) (string, error) {
	if f.tokenFile != "" {
		data, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		token := strings.TrimSpace(string(data))
		if token == "" {
			return "", fmt.Errorf("--token-file %s is empty", f.tokenFile)
		}
		return token, nil
	}
	return strings.TrimSpace(env(EnvToken)), nil
}

// factory is the operator's Konnect client factory (rate limiter, error
// classes, CA trust) as this command uses it.
func (f *konnectFlags) factory() (*konnect.ClientFactory, error) {
	hosts := strings.Split(f.allowedHosts, ",")
	if f.serverURL != "" {
		hosts = append(hosts, f.serverURL)
	}
	allowed, err := konnect.ParseAllowedHosts(hosts)
	if err != nil {
		return nil, fmt.Errorf("--konnect-allowed-hosts: %w", err)
	}
	opts := konnect.Options{UserAgent: "kubectl-konnect", AllowedHosts: allowed}
	if f.caFile != "" {
		pool, err := konnect.LoadCAFile(f.caFile)
		if err != nil {
			return nil, fmt.Errorf("--konnect-ca-file: %w", err)
		}
		opts.RootCAs = pool
	}
	return konnect.NewClientFactory(opts), nil
}

// authConfigAccess reads the server URL and, when asked, the token of a
// KonnectAPIAuthConfiguration from the cluster: its inline token or its
// Secret's. Neither is ever printed. A Secret is used as the operator would
// use it: one of another namespace only under a KongReferenceGrant there,
// and only with the token label; whoever runs the plugin may read more
// Secrets than the configuration's author may.
func authConfigAccess(ctx context.Context, cluster *clusterFlags, namespace, name string, needToken bool) (serverURL, token string, err error) {
	cs, kube, err := cluster.clients()
	if err != nil {
		return "", "", err
	}
	auth, err := cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", "", fmt.Errorf("read KonnectAPIAuthConfiguration %s/%s: %w", namespace, name, err)
	}
	serverURL = auth.Spec.ServerURL
	if !needToken {
		return serverURL, "", nil
	}
	switch {
	case auth.Spec.Type == konnectv1alpha1.KonnectAPIAuthTypeToken:
		token = auth.Spec.Token
	case auth.Spec.SecretRef != nil:
		secretNamespace := auth.Spec.SecretRef.Namespace
		if secretNamespace == "" {
			secretNamespace = namespace
		}
		var grants []*configurationv1alpha1.KongReferenceGrant
		if secretNamespace != namespace {
			list, err := cs.ConfigurationV1alpha1().KongReferenceGrants(secretNamespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				return "", "", fmt.Errorf("read the KongReferenceGrants of namespace %s, which decide whether KonnectAPIAuthConfiguration %s/%s may use a Secret there: %w", secretNamespace, namespace, name, err)
			}
			for i := range list.Items {
				grants = append(grants, &list.Items[i])
			}
		}
		secret, err := kube.CoreV1().Secrets(secretNamespace).Get(ctx, auth.Spec.SecretRef.Name, metav1.GetOptions{})
		if err != nil {
			return "", "", fmt.Errorf("read the token Secret of KonnectAPIAuthConfiguration %s/%s: %w", namespace, name, err)
		}
		if err := entities.TokenSecretReadable(auth, secret, grants); err != nil {
			return "", "", fmt.Errorf("KonnectAPIAuthConfiguration %s/%s: %w", namespace, name, err)
		}
		token = strings.TrimSpace(string(secret.Data["token"]))
	}
	if token == "" {
		return "", "", fmt.Errorf("KonnectAPIAuthConfiguration %s/%s gives no token; set %s or --token-file", namespace, name, EnvToken)
	}
	return serverURL, token, nil
}
