package apis

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
)

// env reaches the test cluster for any kind a manifest names.
type env struct {
	client  kubernetes.Interface
	dynamic dynamic.Interface
	mapper  meta.RESTMapper
}

func newEnv(t *testing.T) *env {
	t.Helper()
	client, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
	return &env{client: client, dynamic: dyn, mapper: mapper}
}

// scope is where one test case puts its objects: a namespace of its own, and
// for cluster-scoped kinds a name prefix of its own, so that cases never see
// each other's objects.
type scope struct {
	namespace string
}

func (e *env) newScope(t *testing.T) scope {
	t.Helper()
	ns, err := e.client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "crd-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return scope{namespace: ns.Name}
}

// place returns a copy of doc that lives in s, and the client for its
// resource.
func (e *env) place(doc *unstructured.Unstructured, s scope) (*unstructured.Unstructured, dynamic.ResourceInterface, error) {
	gvk := doc.GroupVersionKind()
	mapping, err := e.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", gvk, err)
	}
	obj := doc.DeepCopy()
	resource := e.dynamic.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		obj.SetNamespace(s.namespace)
		return obj, resource.Namespace(s.namespace), nil
	}
	obj.SetName(s.namespace + "-" + doc.GetName())
	return obj, resource, nil
}

// strict makes the API server refuse unknown fields instead of dropping
// them, so that a misspelt field in testdata fails loudly.
const strict = metav1.FieldValidationStrict

// create creates doc in s and, when doc has a status, writes that status
// through the status subresource. Cluster-scoped objects are deleted when
// the test ends. It returns the object sent (placed in s) and as stored.
func (e *env) create(ctx context.Context, t *testing.T, doc *unstructured.Unstructured, s scope) (sent, stored *unstructured.Unstructured, err error) {
	obj, resource, err := e.place(doc, s)
	if err != nil {
		return nil, nil, err
	}
	created, err := resource.Create(ctx, obj, metav1.CreateOptions{FieldValidation: strict})
	if err != nil {
		return obj, nil, err
	}
	if obj.GetNamespace() == "" {
		t.Cleanup(func() {
			_ = resource.Delete(context.WithoutCancel(ctx), created.GetName(), metav1.DeleteOptions{})
		})
	}
	status, hasStatus := obj.Object["status"]
	if !hasStatus {
		return obj, created, nil
	}
	created.Object["status"] = status
	updated, err := resource.UpdateStatus(ctx, created, metav1.UpdateOptions{FieldValidation: strict})
	if err != nil {
		return obj, created, fmt.Errorf("write the status: %w", err)
	}
	return obj, updated, nil
}

// update sends doc, placed in s, as an update of current.
func (e *env) update(ctx context.Context, doc, current *unstructured.Unstructured, s scope) error {
	obj, resource, err := e.place(doc, s)
	if err != nil {
		return err
	}
	obj.SetResourceVersion(current.GetResourceVersion())
	_, err = resource.Update(ctx, obj, metav1.UpdateOptions{FieldValidation: strict})
	return err
}

// get reads obj back.
func (e *env) get(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	gvk := obj.GroupVersionKind()
	mapping, err := e.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	if obj.GetNamespace() != "" {
		return e.dynamic.Resource(mapping.Resource).Namespace(obj.GetNamespace()).Get(ctx, obj.GetName(), metav1.GetOptions{})
	}
	return e.dynamic.Resource(mapping.Resource).Get(ctx, obj.GetName(), metav1.GetOptions{})
}
