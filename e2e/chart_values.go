package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// platformValues are what platform teams set on every chart they install:
// labels and annotations, a priority class, pull Secrets in both shapes
// (Kong's names, and the pod spec's objects), and the CA of a
// TLS-inspecting proxy mounted from a ConfigMap for --konnect-ca-file.
const platformValues = `
commonLabels: {team: platform}
podLabels: {e2e-pod: chart}
podAnnotations: {e2e.example.com/note: values}
priorityClassName: e2e-operators
image:
  pullSecrets: [registry-a]
imagePullSecrets: [{name: registry-b}]
extraVolumes:
- name: konnect-ca
  configMap: {name: konnect-ca}
extraVolumeMounts:
- name: konnect-ca
  mountPath: /etc/konnect-operator/konnect-ca
  readOnly: true
extraArgs: [--konnect-ca-file=/etc/konnect-operator/konnect-ca/ca.crt]
`

// createPlatformObjects makes what platformValues name: the priority class
// (which admission resolves for the pods) and the CA's ConfigMap.
func createPlatformObjects(ctx context.Context, t *testing.T, c *clusterEnv) {
	t.Helper()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "e2e-operators"}, Value: 1000000}
	if _, err := c.kube.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(suite.sim.caFile)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNamespace, Name: "konnect-ca"}, Data: map[string]string{"ca.crt": string(ca)}}
	if _, err := c.kube.CoreV1().ConfigMaps(operatorNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// checkPlatformValues checks that the installed Deployment carries
// platformValues, and every object of the release the common label.
// (checkDeployment has had the API server admit its pod: the priority
// class resolved, the restricted profile satisfied.) Nothing mounts the
// volume here: the operators run out of cluster.
func checkPlatformValues(ctx context.Context, t *testing.T, c *clusterEnv) {
	t.Helper()
	d, err := c.kube.AppsV1().Deployments(operatorNamespace).Get(ctx, operatorDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template
	container, err := operatorContainer(d)
	if err != nil {
		t.Fatal(err)
	}
	var pullSecrets []string
	for _, s := range pod.Spec.ImagePullSecrets {
		pullSecrets = append(pullSecrets, s.Name)
	}
	mounted := slices.ContainsFunc(container.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.Name == "konnect-ca" && m.MountPath == "/etc/konnect-operator/konnect-ca" && m.ReadOnly
	})
	volume := slices.ContainsFunc(pod.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Name == "konnect-ca" && v.ConfigMap != nil && v.ConfigMap.Name == "konnect-ca"
	})
	for _, check := range []struct {
		what string
		ok   bool
	}{
		{"the Deployment's common label", d.Labels["team"] == "platform"},
		{"the pods' common label", pod.Labels["team"] == "platform"},
		{"the pods' own label", pod.Labels["e2e-pod"] == "chart"},
		{"the pods' annotation", pod.Annotations["e2e.example.com/note"] == "values"},
		{"the priority class", pod.Spec.PriorityClassName == "e2e-operators"},
		{"both shapes of pull Secrets", slices.Equal(pullSecrets, []string{"registry-a", "registry-b"})},
		{"the CA's volume", volume},
		{"the CA's mount", mounted},
		{"the CA file's flag", slices.Contains(container.Args, "--konnect-ca-file=/etc/konnect-operator/konnect-ca/ca.crt")},
	} {
		if !check.ok {
			t.Errorf("the installed Deployment lacks %s", check.what)
		}
	}
	if _, ok := d.Spec.Selector.MatchLabels["team"]; ok {
		t.Error("the common label is in the Deployment's selector, which cannot change on a later upgrade")
	}
	out, err := c.kubectl(ctx, "", "get", "serviceaccounts,services,clusterroles,clusterrolebindings,roles,rolebindings,customresourcedefinitions,konnectapiauthconfigurations",
		"--all-namespaces", "-l", releaseSelector+",team!=platform", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != "" {
		t.Errorf("objects of the release without the common label:\n%s", out)
	}
}

// checkHelmTest runs `helm test` and plays the kubelet for its pod against
// op: the test passes and its pod is deleted.
func checkHelmTest(ctx context.Context, t *testing.T, c *clusterEnv, h *helm, op *operatorProcess) {
	t.Helper()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := h.run(ctx, "test", "konnect-operator", "--namespace", operatorNamespace, "--timeout", "90s")
		done <- result{out, err}
	}()
	out, err := playKubelet(ctx, c, "konnect-operator-test-readyz", op.healthURL)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("the test pod's command said: %s", strings.TrimSpace(out))
	if !strings.Contains(out, "/readyz: 200 ok") {
		t.Errorf("the test pod's command did not see /readyz answer 200: %s", out)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("helm test: %v", r.err)
	}
	if !strings.Contains(r.out, "Succeeded") {
		t.Errorf("helm test does not report the test Succeeded:\n%s", r.out)
	}
	err = eventually(ctx, patience, func(ctx context.Context) error {
		_, err := c.kube.CoreV1().Pods(operatorNamespace).Get(ctx, "konnect-operator-test-readyz", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("the test pod is still there, which hook-succeeded deletes (%w)", err)
	})
	if err != nil {
		t.Error(err)
	}
}
