package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
)

// clusterEnv is a running control plane with the clients the suite uses as
// the cluster's administrator (a user applying manifests).
type clusterEnv struct {
	*localcluster.Cluster
	kube    kubernetes.Interface
	dynamic dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
}

func newClusterEnv(c *localcluster.Cluster) (*clusterEnv, error) {
	kube, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	return &clusterEnv{
		Cluster: c, kube: kube, dynamic: dyn,
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco)),
	}, nil
}

// kubectl runs kubectl as the administrator with stdin as its input and
// returns standard output; an error carries standard error.
func (c *clusterEnv) kubectl(ctx context.Context, stdin string, args ...string) (string, error) {
	full := append([]string{
		"--kubeconfig=" + c.KubeconfigPath,
		"--cache-dir=" + filepath.Join(c.Dir, "kubectl-cache"),
	}, args...)
	cmd := exec.CommandContext(ctx, c.KubectlPath, full...)
	cmd.Env = append(os.Environ(), "KUBECONFIG=")
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// resource maps a kind to its resource, refreshing discovery once when the
// kind is new (CRDs installed after the mapper was made).
func (c *clusterEnv) resource(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	mapping, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		c.mapper.Reset()
		mapping, err = c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	return mapping, err
}

// get reads obj's current state; namespace "" for cluster-scoped objects.
func (c *clusterEnv) get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	mapping, err := c.resource(gvk)
	if err != nil {
		return nil, err
	}
	if mapping.Scope.Name() == meta.RESTScopeNameRoot {
		return c.dynamic.Resource(mapping.Resource).Get(ctx, name, metav1GetOptions)
	}
	return c.dynamic.Resource(mapping.Resource).Namespace(namespace).Get(ctx, name, metav1GetOptions)
}

// list lists a kind in namespace ("" = every namespace).
func (c *clusterEnv) list(ctx context.Context, gvk schema.GroupVersionKind, namespace string) ([]unstructured.Unstructured, error) {
	mapping, err := c.resource(gvk)
	if err != nil {
		return nil, err
	}
	var list *unstructured.UnstructuredList
	if mapping.Scope.Name() == meta.RESTScopeNameRoot || namespace == "" {
		list, err = c.dynamic.Resource(mapping.Resource).List(ctx, metav1ListOptions)
	} else {
		list, err = c.dynamic.Resource(mapping.Resource).Namespace(namespace).List(ctx, metav1ListOptions)
	}
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

var (
	metav1GetOptions  = metav1.GetOptions{}
	metav1ListOptions = metav1.ListOptions{}
)
