package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
)

// access is one question to the API server's authoriser about the
// operator's ServiceAccount.
type access struct {
	verb, group, resource, subresource, namespace string
	allowed                                       bool
}

// accessTable is what the shipped RBAC must allow and deny (least privilege):
// the operator reads what it watches, writes finalizers and status of the
// kinds it reconciles, creates and deletes only the objects it manages, and
// never writes Secrets or user objects it only reads.
func accessTable(watched, unwatched string) []access {
	const cfg, knt = "configuration.konghq.com", "konnect.konghq.com"
	return []access{
		{"list", cfg, "kongservices", "", watched, true},
		{"watch", knt, "konnectgatewaycontrolplanes", "", watched, true},
		{"update", cfg, "kongroutes", "", watched, true},
		{"update", cfg, "kongconsumers", "status", watched, true},
		{"update", knt, "konnectapiauthconfigurations", "status", watched, true},
		{"watch", knt, "konnectcloudgatewaynetworks", "", watched, true},
		{"update", knt, "konnectcloudgatewaytransitgateways", "", watched, true},
		{"update", knt, "konnectcloudgatewaydataplanegroupconfigurations", "status", watched, true},
		{"create", knt, "konnectcloudgatewaynetworks", "", watched, false},
		{"create", cfg, "kongpluginbindings", "", watched, true},
		{"delete", cfg, "kongcredentialbasicauths", "", watched, true},
		{"create", cfg, "kongcredentialhmacs", "", watched, true},
		{"update", cfg, "kongplugins", "", watched, true},
		{"update", cfg, "kongplugins", "status", watched, false},
		{"create", cfg, "kongplugins", "", watched, false},
		{"list", "", "secrets", "", watched, true},
		{"get", "", "secrets", "", watched, true},
		{"create", "", "events", "", watched, true},
		{"patch", "", "events", "", watched, true},
		{"list", cfg, "kongvaults", "", "", true},
		{"update", cfg, "kongvaults", "status", "", true},
		{"list", cfg, "kongclusterplugins", "", "", true},
		{"update", "coordination.k8s.io", "leases", "", operatorNamespace, true},
		{"create", "coordination.k8s.io", "leases", "", operatorNamespace, true},

		{"create", cfg, "kongservices", "", watched, false},
		{"delete", cfg, "kongservices", "", watched, false},
		{"patch", cfg, "kongroutes", "", watched, false},
		{"get", cfg, "kongservices", "", watched, false},
		{"delete", cfg, "kongreferencegrants", "", watched, false},
		{"update", "", "secrets", "", watched, false},
		{"create", "", "secrets", "", watched, false},
		{"delete", "", "secrets", "", watched, false},
		{"create", cfg, "kongvaults", "", "", false},
		{"delete", cfg, "kongclusterplugins", "", "", false},
		{"update", "coordination.k8s.io", "leases", "", unwatched, false},
		{"list", "", "configmaps", "", watched, false},
		{"list", "", "pods", "", watched, false},
		{"create", "authentication.k8s.io", "tokenreviews", "", "", false},
		{"update", "apiextensions.k8s.io", "customresourcedefinitions", "", "", false},
	}
}

// checkAccess asks the API server whether the operator's ServiceAccount may
// do each thing of table.
func checkAccess(ctx context.Context, t *testing.T, c *clusterEnv, table []access) {
	t.Helper()
	user := "system:serviceaccount:" + operatorNamespace + ":" + operatorServiceAccount
	for _, a := range table {
		review, err := c.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{
				User:   user,
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + operatorNamespace, "system:authenticated"},
				ResourceAttributes: &authorizationv1.ResourceAttributes{
					Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace,
				},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.Allowed != a.allowed {
			where := a.namespace
			if where == "" {
				where = "cluster scope"
			}
			t.Errorf("%s %s/%s %s in %s: allowed=%v, want %v", a.verb, a.group, a.resource, a.subresource, where, review.Status.Allowed, a.allowed)
		}
	}
}

// readObjects decodes every document of a YAML file into T, skipping
// documents of other kinds.
func readRoles(path string) ([][]rbacv1.PolicyRule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var rules [][]rbacv1.PolicyRule
	for {
		var doc struct {
			Kind  string              `json:"kind"`
			Rules []rbacv1.PolicyRule `json:"rules"`
		}
		if err := decoder.Decode(&doc); errors.Is(err, io.EOF) {
			return rules, nil
		} else if err != nil {
			return nil, err
		}
		if doc.Kind == "Role" || doc.Kind == "ClusterRole" {
			rules = append(rules, doc.Rules)
		}
	}
}

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
	namespace, err := readRoles(filepath.Join(manifests, "rbac", "namespace", "role.yaml"))
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
	t.Run("the per-namespace Role grants what the ClusterRole grants", func(t *testing.T) {
		if !slices.EqualFunc(cluster[0], namespace[0], func(a, b rbacv1.PolicyRule) bool {
			return slices.Equal(a.Verbs, b.Verbs) && slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources)
		}) {
			t.Error("rbac/cluster/role.yaml and rbac/namespace/role.yaml have different rules")
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

// readOnlyKinds are the kinds whose status the operator never writes;
// finalizerOnlyKinds are those of them it writes a finalizer on.
var (
	readOnlyKinds      = map[string]bool{"KongPlugin": true, "KongClusterPlugin": true, "KongReferenceGrant": true}
	finalizerOnlyKinds = map[string]bool{"KongPlugin": true}
)

func grants(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}
