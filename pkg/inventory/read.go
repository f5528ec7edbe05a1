// Package inventory reads the objects of the operator's kinds from a
// cluster, as kubectl konnect's subcommands need them: every kind in a
// namespace and in the namespaces their references point into, and the
// Secrets the operator reads there. It only reads.
package inventory

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

// Cluster is where objects are read from.
type Cluster struct {
	Clientset versioned.Interface
	Kube      kubernetes.Interface
}

// secretSelectors select the Secrets the operator reads (tokens and
// credentials; certificates): no others are read.
var secretSelectors = []string{commonv1alpha1.LabelCredential, commonv1alpha1.LabelSecret + "=true"}

// Objects are the objects read from the cluster, by kind name.
type Objects struct {
	byKind map[string][]runtime.Object
	// namespaces are those read so far.
	namespaces map[string]bool
}

// Options say what Read reads besides the operator's kinds.
type Options struct {
	// Secrets: also the Secrets the operator reads (tokens, credentials,
	// certificates).
	Secrets bool
	// Warn, when set, hears once of Secrets the caller may not list: the
	// reading goes on without them.
	Warn func(err error)
}

// Read reads every object of the operator's kinds in namespace, and in the
// namespaces their references point into (with the Secrets the operator
// reads there, when asked); cluster-scoped kinds once.
func Read(ctx context.Context, cluster Cluster, namespace string, opts Options) (*Objects, error) {
	l := &Objects{byKind: map[string][]runtime.Object{}, namespaces: map[string]bool{}}
	for _, k := range kinds {
		if !k.Cluster {
			continue
		}
		objs, err := k.list(ctx, cluster.Clientset, "")
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", k.Plural, err)
		}
		l.byKind[k.Name] = objs
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
			if k.Cluster {
				continue
			}
			objs, err := k.list(ctx, cluster.Clientset, ns)
			if err != nil {
				return nil, fmt.Errorf("list %s in namespace %s: %w", k.Plural, ns, err)
			}
			l.byKind[k.Name] = append(l.byKind[k.Name], objs...)
			read = append(read, objs...)
		}
		for _, selector := range secretSelectors {
			if !opts.Secrets {
				break
			}
			secrets, err := cluster.Kube.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if apierrors.IsForbidden(err) {
				if !warned && opts.Warn != nil {
					opts.Warn(err)
				}
				warned = true
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

// UseToken makes every auth configuration use token, in memory only.
func (l *Objects) UseToken(token string) {
	for _, obj := range l.byKind["KonnectAPIAuthConfiguration"] {
		auth := obj.(*konnectv1alpha1.KonnectAPIAuthConfiguration)
		auth.Spec.Type, auth.Spec.Token, auth.Spec.SecretRef = konnectv1alpha1.KonnectAPIAuthTypeToken, token, nil
	}
}

// All returns every object read.
func (l *Objects) All() []runtime.Object {
	var out []runtime.Object
	for _, objs := range l.byKind {
		out = append(out, objs...)
	}
	return out
}

// Selected is an object asked for, with its kind.
type Selected struct {
	Kind   Kind
	Object runtime.Object
}

// Pick returns the objects asked for, or every object of the entity kinds
// in namespace (the KongVaults placed in its control planes included), by
// kind then name.
func (l *Objects) Pick(namespace string, targets []Target) ([]Selected, error) {
	var out []Selected
	inNamespace := func(k Kind, obj runtime.Object) bool {
		if k.Cluster {
			vault, ok := obj.(*configurationv1alpha1.KongVault)
			return !ok || vaultNamespace(vault) == namespace
		}
		return obj.(metav1.Object).GetNamespace() == namespace
	}
	if len(targets) > 0 {
		for _, t := range targets {
			i := slices.IndexFunc(l.byKind[t.Kind.Name], func(obj runtime.Object) bool {
				return obj.(metav1.Object).GetName() == t.Name && (t.Kind.Cluster || inNamespace(t.Kind, obj))
			})
			if i < 0 {
				where := " in namespace " + namespace
				if t.Kind.Cluster {
					where = ""
				}
				return nil, fmt.Errorf("%s %s not found%s", t.Kind.Name, t.Name, where)
			}
			out = append(out, Selected{Kind: t.Kind, Object: l.byKind[t.Kind.Name][i]})
		}
		return out, nil
	}
	for _, k := range kinds {
		if !k.Entity {
			continue
		}
		var objs []runtime.Object
		for _, obj := range l.byKind[k.Name] {
			if inNamespace(k, obj) {
				objs = append(objs, obj)
			}
		}
		slices.SortFunc(objs, func(a, b runtime.Object) int {
			return strings.Compare(a.(metav1.Object).GetName(), b.(metav1.Object).GetName())
		})
		for _, obj := range objs {
			out = append(out, Selected{Kind: k, Object: obj})
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

// KindOf returns the kind of an object read, by its type.
func (l *Objects) KindOf(obj runtime.Object) (Kind, bool) {
	for name, objs := range l.byKind {
		if slices.Contains(objs, obj) {
			k, ok := KindNamed(name)
			return k, ok
		}
	}
	return Kind{}, false
}

// KindNamed returns the kind of that name (KongService).
func KindNamed(name string) (Kind, bool) {
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Name == name })
	if i < 0 {
		return Kind{}, false
	}
	return kinds[i], true
}

// Target is an object asked for by KIND/NAME.
type Target struct {
	Kind Kind
	Name string
}

// ParseTargets reads KIND/NAME arguments, of kinds that stand for Konnect
// entities.
func ParseTargets(args []string) ([]Target, error) {
	var out []Target
	for _, arg := range args {
		kindName, name, ok := strings.Cut(arg, "/")
		if !ok || kindName == "" || name == "" {
			return nil, fmt.Errorf("%q is not KIND/NAME (for example kongservice/orders)", arg)
		}
		i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Entity && k.Matches(kindName) })
		if i < 0 {
			return nil, fmt.Errorf("%q: %s is not a kind the operator writes to Konnect", arg, kindName)
		}
		out = append(out, Target{Kind: kinds[i], Name: name})
	}
	return out, nil
}
