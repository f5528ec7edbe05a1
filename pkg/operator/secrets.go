package operator

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// secretClient is the operator's only access to Secrets past its
// label-filtered caches: one read of a named Secret's metadata (never its
// data), and writes of finalizers. It never writes anything else of a
// Secret.
type secretClient struct {
	kube     kubernetes.Interface
	metadata metadata.Interface
}

// Metadata implements entities.SecretClient.
func (c secretClient) Metadata(ctx context.Context, namespace, name string) (*metav1.ObjectMeta, error) {
	obj, err := c.metadata.Resource(corev1.SchemeGroupVersion.WithResource("secrets")).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return &obj.ObjectMeta, nil
}

// SetFinalizers implements entities.SecretClient with a JSON merge patch of
// metadata.finalizers alone, conditional on the resource version read (a
// conflict when the Secret changed meanwhile, as an update would give), so
// that the operator needs patch on Secrets, never update, and sends no data.
func (c secretClient) SetFinalizers(ctx context.Context, secret *metav1.ObjectMeta, finalizers []string) error {
	if finalizers == nil {
		finalizers = []string{}
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{
			"resourceVersion": secret.ResourceVersion,
			"finalizers":      finalizers,
		},
	})
	if err != nil {
		return err
	}
	_, err = c.kube.CoreV1().Secrets(secret.Namespace).Patch(ctx, secret.Name, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: controller.FieldManager})
	return err
}
