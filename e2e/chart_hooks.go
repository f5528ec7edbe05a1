package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// probeField is the field that the chart's "next version" adds to
// KongService's spec, to show a helm upgrade upgrading a CRD. The real
// CRDs never have it.
const probeField = "e2eUpgradeProbe"

// chartWithNewField copies the chart to a folder of the test and adds
// probeField to the KongService CRD it renders (files/crds), as the next
// version of the operator would add a field: the same chart, one field more.
func chartWithNewField(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "chart")
	src := filepath.Join(suite.root, chartDir)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "files", "crds", "configuration.konghq.com_kongservices.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd unstructured.Unstructured
	if err := yaml.Unmarshal(data, &crd.Object); err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for i, v := range versions {
		version := v.(map[string]any)
		err := unstructured.SetNestedField(version, map[string]any{"type": "string", "description": "Added by the e2e suite's copy of the chart."},
			"schema", "openAPIV3Schema", "properties", "spec", "properties", probeField)
		if err != nil {
			t.Fatal(err)
		}
		versions[i] = version
	}
	if err := unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(crd.Object)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// probeService is a KongService of team-a that sets probeField; the test
// only ever dry-runs it.
const probeService = `
apiVersion: configuration.konghq.com/v1alpha1
kind: KongService
metadata:
  name: probe
  namespace: team-a
spec:
  ` + probeField + `: "set"
  host: probe.team-a.svc.cluster.local
  controlPlaneRef:
    type: konnectNamespacedRef
    konnectNamespacedRef:
      name: helm-cp
`

// applyProbeService dry-runs a server-side apply of probeService with
// kubectl's strict field validation, and returns the object the API
// server would store.
func applyProbeService(ctx context.Context, c *clusterEnv) (string, error) {
	return c.kubectl(ctx, probeService, "apply", "--server-side", "--dry-run=server", "--validate=strict", "-o", "yaml", "-f", "-")
}

// playKubelet stands in for the kubelet that this control plane lacks,
// for the pod of `helm test`: it waits for the pod, checks that it asks the
// release's health Service for /readyz, runs the pod's arguments with the
// image's entrypoint (the operator binary the suite built), the Service's
// address replaced by a running replica's health address, and reports how
// that ended in the pod's status, as a kubelet would. It returns the
// command's output.
func playKubelet(ctx context.Context, c *clusterEnv, podName, healthURL string) (string, error) {
	var pod *corev1.Pod
	err := eventually(ctx, patience, func(ctx context.Context) error {
		var err error
		pod, err = c.kube.CoreV1().Pods(operatorNamespace).Get(ctx, podName, metav1.GetOptions{})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("helm test made no pod %s: %w", podName, err)
	}
	if len(pod.Spec.Containers) != 1 {
		return "", fmt.Errorf("the test pod has %d containers, want 1", len(pod.Spec.Containers))
	}
	container := pod.Spec.Containers[0]
	args, err := localCheckArgs(ctx, c, container.Args, healthURL)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(suite.binDir, "konnect-operator"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	exitCode := 0
	var exit *exec.ExitError
	switch {
	case errors.As(runErr, &exit):
		exitCode = exit.ExitCode()
	case runErr != nil:
		return out.String(), runErr
	}
	phase := corev1.PodSucceeded
	if exitCode != 0 {
		phase = corev1.PodFailed
	}
	now := metav1.Now()
	pod.Status.Phase = phase
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: container.Name, Image: container.Image, ImageID: container.Image,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: int32(exitCode), StartedAt: now, FinishedAt: now}},
	}}
	if _, err := c.kube.CoreV1().Pods(operatorNamespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		return out.String(), fmt.Errorf("reporting the test pod %s: %w", phase, err)
	}
	return out.String(), nil
}

// localCheckArgs checks the test pod's arguments (--check-ready of the
// release's health Service, on the port that Service serves, which sends it
// to the pods' health port) and returns them with the Service's address
// replaced by healthURL's.
func localCheckArgs(ctx context.Context, c *clusterEnv, args []string, healthURL string) ([]string, error) {
	svc, err := c.kube.CoreV1().Services(operatorNamespace).Get(ctx, "konnect-operator-health", metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("the health Service the test asks: %w", err)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.String() != "health" {
		return nil, fmt.Errorf("the health Service does not send to the pods' health port: %+v", svc.Spec.Ports)
	}
	wantHost := fmt.Sprintf("%s.%s.svc:%d", svc.Name, svc.Namespace, svc.Spec.Ports[0].Port)
	local, err := url.Parse(healthURL)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(args))
	checks := 0
	for _, arg := range args {
		value, ok := strings.CutPrefix(arg, "--check-ready=")
		if !ok {
			out = append(out, arg)
			continue
		}
		checks++
		u, err := url.Parse(value)
		if err != nil {
			return nil, err
		}
		if u.Host != wantHost || u.Path != "/readyz" {
			return nil, fmt.Errorf("the test pod asks %s, want http://%s/readyz", value, wantHost)
		}
		u.Host = local.Host
		out = append(out, "--check-ready="+u.String())
	}
	if checks != 1 {
		return nil, fmt.Errorf("the test pod's arguments %v hold %d --check-ready, want 1", args, checks)
	}
	return out, nil
}
