package e2e

import (
	"path/filepath"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
)

// TestRBACCoversEveryKind checks the RBAC files against the CRDs, without a
// cluster: a new kind must get its rules in the same change.
func TestRBACCoversEveryKind(t *testing.T) {
	manifests := filepath.Join(suite.root, "manifests")
	crds, err := localcluster.ReadCRDs(filepath.Join(manifests, "crd"))
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := readRoles(filepath.Join(manifests, "rbac", "cluster", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	namespace, err := readRoles(filepath.Join(manifests, "rbac", "namespaced", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	clusterScoped, err := readRoles(filepath.Join(manifests, "rbac", "cluster-scoped", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cluster) != 1 || len(namespace) != 1 || len(clusterScoped) != 1 {
		t.Fatalf("want one role per file, got %d, %d and %d", len(cluster), len(namespace), len(clusterScoped))
	}
	t.Run("the rules bound per namespace grant what the ClusterRole grants, and the operator's own RoleBinding", func(t *testing.T) {
		// The namespaced install adds one rule: its RoleBinding, by name.
		perNamespace := namespace[0]
		last := perNamespace[len(perNamespace)-1]
		if !slices.Equal(last.APIGroups, []string{"rbac.authorization.k8s.io"}) || !slices.Equal(last.Resources, []string{"rolebindings"}) ||
			!slices.Equal(last.ResourceNames, []string{"konnect-operator-namespaced"}) || !slices.Equal(last.Verbs, []string{"get", "list", "watch", "patch"}) {
			t.Errorf("the last rule of rbac/namespaced/role.yaml is %+v, want get, list, watch and patch of the RoleBinding konnect-operator-namespaced alone", last)
		}
		if !slices.EqualFunc(cluster[0], perNamespace[:len(perNamespace)-1], func(a, b rbacv1.PolicyRule) bool {
			return slices.Equal(a.Verbs, b.Verbs) && slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources)
		}) {
			t.Error("rbac/cluster/role.yaml and rbac/namespaced/role.yaml have different rules")
		}
	})
	for _, crd := range crds {
		rules := cluster[0]
		if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
			rules = clusterScoped[0]
		}
		t.Run(crd.Spec.Names.Kind+" is listed and watched", func(t *testing.T) {
			for _, verb := range []string{"list", "watch"} {
				if !grants(rules, crd.Spec.Group, crd.Spec.Names.Plural, verb) {
					t.Errorf("no rule grants %s on %s.%s", verb, crd.Spec.Names.Plural, crd.Spec.Group)
				}
			}
			// Every kind with a status the operator writes also gets its
			// finalizers; the only kinds without are read, never written,
			// but for KongPlugin, which only gets a finalizer.
			writes := grants(rules, crd.Spec.Group, crd.Spec.Names.Plural+"/status", "update")
			if writes != grants(rules, crd.Spec.Group, crd.Spec.Names.Plural, "update") && !finalizerOnlyKinds[crd.Spec.Names.Kind] {
				t.Errorf("%s: update on the kind and on its status must go together", crd.Spec.Names.Plural)
			}
			if !writes && !readOnlyKinds[crd.Spec.Names.Kind] {
				t.Errorf("%s is reconciled but the RBAC does not let the operator write its status", crd.Spec.Names.Kind)
			}
		})
	}
}
