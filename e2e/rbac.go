package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
)

// access is one question to the API server's authoriser about the
// operator's ServiceAccount.
type access struct {
	verb, group, resource, subresource, namespace string
	allowed                                       bool
}

// accessTable is what the shipped RBAC must allow and deny (least privilege):
// the operator reads what it watches, patches the finalizers and writes the
// status of the kinds it reconciles, reads the kube-system namespace (the
// cluster's identity) and no other, creates and deletes only the objects it manages,
// patches Secrets (their finalizers alone, which the admission policy
// enforces; see checkSecretWrites), never updates, creates or deletes them,
// and asks the API server about the callers of /metrics.
func accessTable(watched, unwatched string) []access {
	const cfg, knt = "configuration.konghq.com", "konnect.konghq.com"
	return []access{
		{"list", cfg, "kongservices", "", watched, true},
		{"watch", knt, "konnectgatewaycontrolplanes", "", watched, true},
		{"update", cfg, "kongroutes", "", watched, true},
		{"patch", cfg, "kongroutes", "", watched, true},
		{"patch", knt, "konnectgatewaycontrolplanes", "", watched, true},
		{"patch", cfg, "kongplugins", "", watched, true},
		{"patch", cfg, "kongvaults", "", "", true},
		{"get", "", "namespaces", "", "", false},
		{"update", cfg, "kongconsumers", "status", watched, true},
		{"update", knt, "konnectapiauthconfigurations", "status", watched, true},
		{"watch", knt, "konnectcloudgatewaynetworks", "", watched, true},
		{"update", knt, "konnectcloudgatewaytransitgateways", "", watched, true},
		{"update", knt, "konnectcloudgatewaydataplanegroupconfigurations", "status", watched, true},
		{"create", knt, "konnectcloudgatewaynetworks", "", watched, false},
		{"watch", knt, "konnectconfigstores", "", watched, true},
		{"update", knt, "konnectconfigstores", "status", watched, true},
		{"watch", knt, "portals", "", watched, true},
		{"patch", knt, "portalpages", "", watched, true},
		{"update", knt, "portalteams", "status", watched, true},
		{"update", knt, "portalcustomizations", "status", watched, true},
		{"list", knt, "portalcustomdomains", "", watched, true},
		{"update", knt, "portalemailconfigs", "status", watched, true},
		{"watch", knt, "portalidentityproviderrequests", "", watched, true},
		{"update", knt, "portalipallowlists", "status", watched, true},
		{"watch", knt, "konnecteventgateways", "", watched, true},
		{"update", knt, "konnecteventgateways", "status", watched, true},
		{"patch", cfg, "eventgatewaylisteners", "", watched, true},
		{"update", cfg, "eventgatewayvirtualclusterconsumepolicies", "status", watched, true},
		{"list", cfg, "eventgatewayschemaregistries", "", watched, true},
		{"create", cfg, "eventgatewaybackendclusters", "", watched, false},
		{"create", knt, "portalpages", "", watched, false},
		{"delete", knt, "portals", "", watched, false},
		{"create", cfg, "kongpluginbindings", "", watched, true},
		{"delete", cfg, "kongcredentialbasicauths", "", watched, true},
		{"create", cfg, "kongcredentialhmacs", "", watched, true},
		{"update", cfg, "kongplugins", "", watched, true},
		{"update", cfg, "kongplugins", "status", watched, false},
		{"create", cfg, "kongplugins", "", watched, false},
		{"list", "", "secrets", "", watched, true},
		{"get", "", "secrets", "", watched, true},
		{"patch", "", "secrets", "", watched, true},
		{"create", "", "events", "", watched, true},
		{"patch", "", "events", "", watched, true},
		{"list", cfg, "kongvaults", "", "", true},
		{"update", cfg, "kongvaults", "status", "", true},
		{"list", cfg, "kongclusterplugins", "", "", true},
		{"update", "coordination.k8s.io", "leases", "", operatorNamespace, true},
		{"create", "coordination.k8s.io", "leases", "", operatorNamespace, true},

		{"create", cfg, "kongservices", "", watched, false},
		{"delete", cfg, "kongservices", "", watched, false},
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
		{"create", "authentication.k8s.io", "tokenreviews", "", "", true},
		{"create", "authorization.k8s.io", "subjectaccessreviews", "", "", true},
		{"patch", "", "configmaps", "", watched, false},
		{"update", "apiextensions.k8s.io", "customresourcedefinitions", "", "", false},
	}
}

// checkAccess asks the API server whether the operator's ServiceAccount may
// do each thing of table.
func checkAccess(ctx context.Context, t *testing.T, c *clusterEnv, table []access) {
	t.Helper()
	checkAccessOf(ctx, t, c, operatorNamespace, operatorServiceAccount, table)
}

// checkAccessOf asks the API server whether the ServiceAccount
// namespace/name may do each thing of table.
func checkAccessOf(ctx context.Context, t *testing.T, c *clusterEnv, namespace, name string, table []access) {
	t.Helper()
	user := "system:serviceaccount:" + namespace + ":" + name
	for _, a := range table {
		review, err := c.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{
				User:   user,
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
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

// checkSecretWrites patches a token Secret as the operator's
// ServiceAccount: adding and removing the operator's finalizer goes
// through; any other change is refused by the shipped admission policy,
// although RBAC's patch would allow it.
func checkSecretWrites(ctx context.Context, t *testing.T, c *clusterEnv) {
	t.Helper()
	checkSecretWritesOf(ctx, t, c, operatorNamespace, operatorServiceAccount)
}

// checkSecretWritesOf is checkSecretWrites as the operator's ServiceAccount
// saNamespace/saName, in a namespace of its own.
func checkSecretWritesOf(ctx context.Context, t *testing.T, c *clusterEnv, saNamespace, saName string) {
	t.Helper()
	namespace := "e2e-secret-writes-" + saNamespace
	if _, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = c.kube.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), namespace, metav1.DeleteOptions{})
	}()
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "token", Labels: map[string]string{"konghq.com/credential": "konnect"}},
		StringData: map[string]string{"token": "kpat_not_a_real_one"},
	}
	if _, err := c.kube.CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg, err := c.ServiceAccountConfig(ctx, saNamespace, saName)
	if err != nil {
		t.Fatal(err)
	}
	asOperator := kubernetes.NewForConfigOrDie(cfg).CoreV1().Secrets(namespace)
	patch := func(body string) error {
		_, err := asOperator.Patch(ctx, "token", types.MergePatchType, []byte(body), metav1.PatchOptions{})
		return err
	}
	const ours = `{"metadata":{"finalizers":["gateway.konghq.com/secret-in-use-by-konnect-resource"]}}`
	refused := []struct{ what, patch string }{
		{"a new label", `{"metadata":{"labels":{"planted":"yes"}}}`},
		{"another finalizer", `{"metadata":{"finalizers":["gateway.konghq.com/secret-in-use-by-konnect-resource","example.com/other"]}}`},
	}
	// A new policy takes a moment to be enforced. Each attempt writes new
	// data: one that came before the policy was in force changed the data,
	// and writing the same again would change nothing, which the policy
	// rightly allows.
	attempt := 0
	err = eventually(ctx, patience, func(context.Context) error {
		attempt++
		planted := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "planted-%d", attempt))
		switch err := patch(`{"data":{"token":"` + planted + `"}}`); {
		case err == nil:
			return errors.New("the operator's ServiceAccount changed a Secret's data")
		case !apierrors.IsInvalid(err):
			return fmt.Errorf("changing a Secret's data as the operator's ServiceAccount: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refused {
		if err := patch(r.patch); !apierrors.IsInvalid(err) {
			t.Errorf("%s by the operator's ServiceAccount was not refused: %v", r.what, err)
		}
	}
	if err := patch(ours); err != nil {
		t.Errorf("adding the operator's finalizer was refused: %v", err)
	}
	if err := patch(`{"metadata":{"finalizers":[]}}`); err != nil {
		t.Errorf("removing the operator's finalizer was refused: %v", err)
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
