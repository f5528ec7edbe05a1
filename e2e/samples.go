package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

var bindingKind = schema.GroupVersionKind{Group: configurationGroup, Version: "v1alpha1", Kind: "KongPluginBinding"}

// expectation is what a sample must lead to beyond every object being
// Programmed (APIAuthValid for auth configurations).
type expectation struct {
	// managed counts the objects the operator must create itself in the
	// sample's namespace, by kind; each must become Programmed too.
	managed map[schema.GroupVersionKind]int
	// conditions lists more condition types that must be True, by object name.
	conditions map[string][]string
}

var expectations = map[string]expectation{
	"kongservice-plugin-annotation.yaml": {managed: map[schema.GroupVersionKind]int{bindingKind: 2}},
	"kongconsumer-credential-secrets.yaml": {managed: map[schema.GroupVersionKind]int{
		{Group: configurationGroup, Version: "v1alpha1", Kind: "KongCredentialBasicAuth"}: 1,
		{Group: configurationGroup, Version: "v1alpha1", Kind: "KongCredentialAPIKey"}:    1,
		{Group: configurationGroup, Version: "v1alpha1", Kind: "KongCredentialACL"}:       1,
		{Group: configurationGroup, Version: "v1alpha1", Kind: "KongCredentialJWT"}:       1,
		{Group: configurationGroup, Version: "v1alpha1", Kind: "KongCredentialHMAC"}:      1,
	}},
	"konnect-gateway-control-plane-group.yaml":  {conditions: map[string][]string{"group": {"MembersReferenceResolved"}}},
	"konnect-gateway-control-plane-mirror.yaml": {conditions: map[string][]string{"mirrored-cp": {"Mirrored"}}},
	"kongservice-adopt.yaml":                    {conditions: map[string][]string{"adopted-cp": {"Mirrored"}, "legacy-orders": {"Adopted"}}},
}

// notReconciled are the kinds no Konnect controller writes a status for.
var notReconciled = map[string]bool{
	"Secret": true, "Namespace": true, "KongPlugin": true, "KongClusterPlugin": true, "KongReferenceGrant": true,
}

// sample is one file of manifests/samples as the suite applied it.
type sample struct {
	file string
	// namespace is where the suite applied it; "" when the file names its
	// own namespaces.
	namespace string
	text      string
	objects   []*unstructured.Unstructured
	// waitErr says why the sample was not ready when waiting ended.
	waitErr error
}

// reconciled lists the sample's objects that the operator must bring to
// Ready, plus the managed objects of its expectation.
func (s *sample) reconciled() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range s.objects {
		if !notReconciled[o.GetKind()] {
			out = append(out, o)
		}
	}
	return out
}

// readySample reads every reconciled object and managed object of s and
// says which are not ready yet.
func readySample(ctx context.Context, c *clusterEnv, s *sample) error {
	var problems []string
	for _, o := range s.reconciled() {
		if err := ready(ctx, c, o.GroupVersionKind(), o.GetNamespace(), o.GetName(), expectations[s.file].conditions[o.GetName()]); err != nil {
			problems = append(problems, err.Error())
		}
	}
	for gvk, want := range expectations[s.file].managed {
		items, err := c.list(ctx, gvk, s.namespace)
		if err != nil {
			return err
		}
		if len(items) < want {
			problems = append(problems, fmt.Sprintf("%d managed %s, want %d", len(items), gvk.Kind, want))
		}
		for _, item := range items {
			if err := ready(ctx, c, gvk, item.GetNamespace(), item.GetName(), nil); err != nil {
				problems = append(problems, "managed "+err.Error())
			}
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// ready checks one object's conditions: Programmed=True (APIAuthValid=True
// for an auth configuration) and every type of more.
func ready(ctx context.Context, c *clusterEnv, gvk schema.GroupVersionKind, namespace, name string, more []string) error {
	obj, err := c.get(ctx, gvk, namespace, name)
	if err != nil {
		return err
	}
	want := append([]string{readyCondition(gvk.Kind)}, more...)
	conditions := conditionsOf(obj)
	for _, typ := range want {
		cond, ok := conditions[typ]
		if !ok {
			return fmt.Errorf("%s %s/%s has no %s condition (conditions: %s)", gvk.Kind, namespace, name, typ, describeConditions(conditions))
		}
		if cond["status"] != "True" {
			return fmt.Errorf("%s %s/%s: %s=%s %s: %s", gvk.Kind, namespace, name, typ, cond["status"], cond["reason"], cond["message"])
		}
	}
	return nil
}

func describeConditions(conditions map[string]map[string]string) string {
	var parts []string
	for typ, c := range conditions {
		parts = append(parts, fmt.Sprintf("%s=%s/%s", typ, c["status"], c["reason"]))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// sampleFiles lists manifests/samples: every sample is exercised.
func sampleFiles() ([]string, error) {
	files, err := filepath.Glob(filepath.Join(suite.root, "manifests", "samples", "*.yaml"))
	if err != nil {
		return nil, err
	}
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	return files, nil
}

// prepareSample reads a sample and puts the suite's simulator in place of
// the placeholders a user edits; every sample must carry them.
func prepareSample(file string, extra map[string]string) (*sample, error) {
	data, err := os.ReadFile(filepath.Join(suite.root, "manifests", "samples", file))
	if err != nil {
		return nil, err
	}
	text := string(data)
	for placeholder, value := range map[string]string{sampleServerURL: suite.sim.url, sampleToken: suite.sim.token} {
		if !strings.Contains(text, placeholder) {
			return nil, fmt.Errorf("%s does not contain the placeholder %q a user edits", file, placeholder)
		}
		text = strings.ReplaceAll(text, placeholder, value)
	}
	for placeholder, value := range extra {
		text = strings.ReplaceAll(text, placeholder, value)
	}
	s := &sample{file: file, text: text}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(text)), 4096)
	explicit := false
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		explicit = explicit || obj.GetNamespace() != ""
		s.objects = append(s.objects, obj)
	}
	if !explicit {
		s.namespace = "e2e-" + strings.TrimSuffix(file, ".yaml")
	}
	return s, nil
}

// applySample applies a sample as a user would: kubectl apply --server-side,
// into a namespace of its own unless the file names its namespaces.
func applySample(ctx context.Context, c *clusterEnv, s *sample) error {
	args := []string{"apply", "--server-side", "-f", "-"}
	if s.namespace != "" {
		_, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.namespace}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		args = append(args, "--namespace", s.namespace)
		for _, o := range s.objects {
			if o.GetKind() != "Namespace" {
				if mapping, err := c.resource(o.GroupVersionKind()); err == nil && mapping.Scope.Name() != meta.RESTScopeNameRoot {
					o.SetNamespace(s.namespace)
				}
			}
		}
	}
	if _, err := c.kubectl(ctx, s.text, args...); err != nil {
		return err
	}
	return nil
}

// waitSamples polls every sample until each is ready or the deadline
// passes.
func waitSamples(ctx context.Context, c *clusterEnv, samples []*sample, deadline time.Duration) {
	begin := time.Now()
	for {
		allGreen := true
		for _, s := range samples {
			if s.waitErr = readySample(ctx, c, s); s.waitErr != nil {
				allGreen = false
			}
		}
		if allGreen || time.Since(begin) > deadline || ctx.Err() != nil {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}
