package localcluster_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
)

var cluster *localcluster.Cluster

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(runHelper())
	}
	os.Exit(localcluster.RunTests(m, localcluster.Options{CRDDir: "../../manifests/crd"}, &cluster))
}

var kongServices = schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1alpha1", Resource: "kongservices"}

// controllerWait bounds waits for kube-controller-manager's work.
const controllerWait = 60 * time.Second

func clients(t *testing.T) (kubernetes.Interface, dynamic.Interface) {
	t.Helper()
	client, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	return client, dyn
}

func createNamespace(t *testing.T, client kubernetes.Interface) string {
	t.Helper()
	ns, err := client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "lc-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

func kongService(name string, owner *metav1.OwnerReference) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1alpha1",
		"kind":       "KongService",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"host": "example.com",
			"controlPlaneRef": map[string]any{
				"type":                 "konnectNamespacedRef",
				"konnectNamespacedRef": map[string]any{"name": "cp"},
			},
		},
	}}
	if owner != nil {
		obj.SetOwnerReferences([]metav1.OwnerReference{*owner})
	}
	return obj
}

// waitGone waits until get reports NotFound.
func waitGone(t *testing.T, what string, get func(context.Context) error) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, controllerWait, true, func(ctx context.Context) (bool, error) {
		err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		t.Fatalf("%s still exists: %v", what, err)
	}
}

func TestDeletingANamespaceDeletesItsContents(t *testing.T) {
	client, dyn := clients(t)
	ns := createNamespace(t, client)
	if _, err := client.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "data"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(kongServices).Namespace(ns).Create(t.Context(), kongService("svc", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Namespaces().Delete(t.Context(), ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The namespace only disappears once the namespace controller has
	// emptied it, custom resources included.
	waitGone(t, "namespace "+ns, func(ctx context.Context) error {
		_, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return err
	})
	waitGone(t, "KongService svc", func(ctx context.Context) error {
		_, err := dyn.Resource(kongServices).Namespace(ns).Get(ctx, "svc", metav1.GetOptions{})
		return err
	})
}

func TestGarbageCollectorDeletesDependentsOfADeletedOwner(t *testing.T) {
	client, dyn := clients(t)
	ns := createNamespace(t, client)
	owner, err := client.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "owner"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "dependent", OwnerReferences: []metav1.OwnerReference{ref}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(kongServices).Namespace(ns).Create(t.Context(), kongService("dependent", &ref), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().ConfigMaps(ns).Delete(t.Context(), owner.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, "dependent ConfigMap", func(ctx context.Context) error {
		_, err := client.CoreV1().ConfigMaps(ns).Get(ctx, "dependent", metav1.GetOptions{})
		return err
	})
	waitGone(t, "dependent KongService", func(ctx context.Context) error {
		_, err := dyn.Resource(kongServices).Namespace(ns).Get(ctx, "dependent", metav1.GetOptions{})
		return err
	})
}

func TestServiceAccountConfigIsAuthorizedByRBAC(t *testing.T) {
	client, _ := clients(t)
	ns := createNamespace(t, client)
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(t.Context(), &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "operator"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg, err := cluster.ServiceAccountConfig(t.Context(), ns, "operator")
	if err != nil {
		t.Fatal(err)
	}
	saClient, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	review, err := saClient.AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "system:serviceaccount:" + ns + ":operator"; review.Status.UserInfo.Username != want {
		t.Fatalf("authenticated as %q, want %q", review.Status.UserInfo.Username, want)
	}

	_, err = saClient.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("listing ConfigMaps without a Role: got %v, want Forbidden", err)
	}
	if _, err := client.RbacV1().Roles(ns).Create(t.Context(), &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "read-configmaps"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.RbacV1().RoleBindings(ns).Create(t.Context(), &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "read-configmaps"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "read-configmaps"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "operator"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The RBAC authorizer reads bindings through an informer: allow it a moment.
	err = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := saClient.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("listing ConfigMaps with a RoleBinding still fails: %v", err)
	}
}

func TestServiceAccountConfigFailsForAMissingServiceAccount(t *testing.T) {
	_, err := cluster.ServiceAccountConfig(t.Context(), metav1.NamespaceDefault, "no-such-account")
	if !apierrors.IsNotFound(err) {
		t.Fatalf("got %v, want NotFound", err)
	}
}

func TestKubectl(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantStdout string
		// wantStderr, when set, is a substring of the error's Stderr and
		// means kubectl must fail.
		wantStderr string
	}{
		{
			name:       "authenticates as the admin user",
			args:       []string{"auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"},
			wantStdout: "admin",
		},
		{
			name:       "lists custom resources of installed CRDs",
			args:       []string{"get", "kongservices", "-A", "-o", "name"},
			wantStdout: "",
		},
		{
			name:       "returns stderr in the error when it fails",
			args:       []string{"get", "nosuchkinds"},
			wantStderr: `the server doesn't have a resource type "nosuchkinds"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, err := cluster.Kubectl(t.Context(), tt.args...)
			if tt.wantStderr != "" {
				var kubectlErr *localcluster.KubectlError
				if !errors.As(err, &kubectlErr) {
					t.Fatalf("got %v, want a *KubectlError", err)
				}
				if !strings.Contains(kubectlErr.Stderr, tt.wantStderr) {
					t.Fatalf("stderr %q does not contain %q", kubectlErr.Stderr, tt.wantStderr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if stdout != tt.wantStdout {
				t.Fatalf("stdout %q, want %q", stdout, tt.wantStdout)
			}
		})
	}
}

func TestInstallCRDsAgainUpdatesThemInPlace(t *testing.T) {
	if err := cluster.InstallCRDs(t.Context(), "../../manifests/crd"); err != nil {
		t.Fatal(err)
	}
	_, dyn := clients(t)
	if _, err := dyn.Resource(kongServices).Namespace(metav1.NamespaceDefault).List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatalf("KongServices not served after reinstalling: %v", err)
	}
}

func TestAdminKubeconfigIsUsableByClients(t *testing.T) {
	data, err := os.ReadFile(cluster.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(cluster.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("kubeconfig mode %o, want 600: it holds the admin token", perm)
	}
	if !strings.Contains(string(data), cluster.Server) {
		t.Fatalf("kubeconfig does not name the server %s", cluster.Server)
	}
}
