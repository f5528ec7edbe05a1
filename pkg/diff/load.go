package diff

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// Cluster is where diff reads objects from.
type Cluster struct {
	Clientset versioned.Interface
	Kube      kubernetes.Interface
}

// secretSelectors select the Secrets the operator reads (tokens and
// credentials; certificates): diff reads no others.
var secretSelectors = []string{commonv1alpha1.LabelCredential, commonv1alpha1.LabelSecret + "=true"}

// loaded holds the objects read from the cluster, by kind name.
type loaded struct {
	byKind map[string][]runtime.Object
	// namespaces are those read so far.
	namespaces map[string]bool
}

// load reads every object of the operator's kinds in namespace, and in the
// namespaces their references point into, with the Secrets the operator
// reads there; cluster-scoped kinds once.
func load(ctx context.Context, cluster Cluster, namespace string, stderr *printer) (*loaded, error) {
	l := &loaded{byKind: map[string][]runtime.Object{}, namespaces: map[string]bool{}}
	for _, k := range kinds {
		if !k.cluster {
			continue
		}
		objs, err := k.list(ctx, cluster.Clientset, "")
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", k.plural, err)
		}
		l.byKind[k.name] = objs
	}
	pending := []string{namespace}
	warned := false
	for len(pending) > 0 {
		ns := pending[0]
		pending = pending[1:]
		if l.namespaces[ns] {
			continue
		}
		l.namespaces[ns] = true
		var read []runtime.Object
		for _, k := range kinds {
			if k.cluster {
				continue
			}
			objs, err := k.list(ctx, cluster.Clientset, ns)
			if err != nil {
				return nil, fmt.Errorf("list %s in namespace %s: %w", k.plural, ns, err)
			}
			l.byKind[k.name] = append(l.byKind[k.name], objs...)
			read = append(read, objs...)
		}
		for _, selector := range secretSelectors {
			secrets, err := cluster.Kube.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if apierrors.IsForbidden(err) {
				if !warned {
					stderr.printf("warning: cannot list Secrets (%v): tokens and Secret-sourced values cannot be read; set KONNECT_TOKEN or --token-file for the token\n", err)
					warned = true
				}
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("list Secrets in namespace %s: %w", ns, err)
			}
			l.byKind["Secret"] = append(l.byKind["Secret"], pointers(secrets.Items)...)
		}
		for _, obj := range append(read, l.byKind["KongVault"]...) {
			pending = append(pending, referencedNamespaces(obj)...)
		}
	}
	return l, nil
}

// referencedNamespaces returns the namespaces obj's spec names in its
// references (any field called namespace).
func referencedNamespaces(obj runtime.Object) []string {
	fields, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch value := v.(type) {
		case map[string]any:
			for k, inner := range value {
				if s, ok := inner.(string); ok && k == "namespace" && s != "" {
					out = append(out, s)
				}
				walk(inner)
			}
		case []any:
			for _, inner := range value {
				walk(inner)
			}
		}
	}
	walk(fields["spec"])
	return out
}

// useToken makes every auth configuration use token, in memory only.
func (l *loaded) useToken(token string) {
	for _, obj := range l.byKind["KonnectAPIAuthConfiguration"] {
		auth := obj.(*konnectv1alpha1.KonnectAPIAuthConfiguration)
		auth.Spec.Type, auth.Spec.Token, auth.Spec.SecretRef = konnectv1alpha1.KonnectAPIAuthTypeToken, token, nil
	}
}

// all returns every object read.
func (l *loaded) all() []runtime.Object {
	var out []runtime.Object
	for _, objs := range l.byKind {
		out = append(out, objs...)
	}
	return out
}

// selectedObject is an object to compare, with its kind.
type selectedObject struct {
	kind   kind
	object runtime.Object
}

// pick returns the objects asked for, or every object of the compared
// kinds in namespace (the KongVaults placed in its control planes
// included), by kind then name.
func (l *loaded) pick(namespace string, targets []target) ([]selectedObject, error) {
	var out []selectedObject
	inNamespace := func(k kind, obj runtime.Object) bool {
		if k.cluster {
			vault, ok := obj.(*configurationv1alpha1.KongVault)
			return !ok || vaultNamespace(vault) == namespace
		}
		return obj.(metav1.Object).GetNamespace() == namespace
	}
	if len(targets) > 0 {
		for _, t := range targets {
			i := slices.IndexFunc(l.byKind[t.kind.name], func(obj runtime.Object) bool {
				return obj.(metav1.Object).GetName() == t.name && (t.kind.cluster || inNamespace(t.kind, obj))
			})
			if i < 0 {
				where := " in namespace " + namespace
				if t.kind.cluster {
					where = ""
				}
				return nil, fmt.Errorf("%s %s not found%s", t.kind.name, t.name, where)
			}
			out = append(out, selectedObject{kind: t.kind, object: l.byKind[t.kind.name][i]})
		}
		return out, nil
	}
	for _, k := range kinds {
		if !k.compared {
			continue
		}
		var objs []runtime.Object
		for _, obj := range l.byKind[k.name] {
			if inNamespace(k, obj) {
				objs = append(objs, obj)
			}
		}
		slices.SortFunc(objs, func(a, b runtime.Object) int {
			return strings.Compare(a.(metav1.Object).GetName(), b.(metav1.Object).GetName())
		})
		for _, obj := range objs {
			out = append(out, selectedObject{kind: k, object: obj})
		}
	}
	return out, nil
}

func vaultNamespace(v *configurationv1alpha1.KongVault) string {
	if ref := v.Spec.ControlPlaneRef; ref.IsKonnect() {
		return ref.KonnectNamespacedRef.Namespace
	}
	return ""
}
