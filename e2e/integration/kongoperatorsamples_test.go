package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// Kong Operator's own cloud-gateway samples, copied unchanged into
// testdata/kong-operator from github.com/Kong/kong-operator
// (config/samples/konnect_cloudgateway_network.yaml at 887cc89d,
// config/samples/konnect_control_plane_cloudgateway_network_namespacedRef.yaml
// at 542ba08a). They name the namespace default, Konnect's own hosts
// (us.api.konghq.com, eu.api.konghq.com), placeholder tokens and provider
// accounts; the simulator stands in for those.
var kongOperatorSamples = []string{
	"konnect_cloudgateway_network.yaml",
	"konnect_control_plane_cloudgateway_network_namespacedRef.yaml",
}

// TestKongOperatorCloudGatewaySamplesApplyUnchanged applies Kong Operator's
// cloud-gateway samples as they are published, waits until every object is
// Programmed (the auth configurations Valid), then deletes them and waits
// until they are gone from the cluster and from Konnect.
func TestKongOperatorCloudGatewaySamplesApplyUnchanged(t *testing.T) {
	t.Parallel()
	o := cloudOptions(time.Second, time.Second)
	o.cloud.ProviderAccounts = []konnectsim.ProviderAccount{
		{ID: "1234", Provider: "aws"},
		{ID: "11111111-1111-1111-1111-111111111111", Provider: "aws"},
	}
	// The regional hosts the samples name, and the global one Konnect's
	// organization lookup is served from.
	o.konnectHosts = []string{"us.api.konghq.com", "eu.api.konghq.com", "global.api.konghq.com"}
	o.tokens = []string{"kpat_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "kpat_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
	o.watchAlso = []string{metav1.NamespaceDefault}
	e := newEnv(t, o)

	objects, resource := e.applyKongOperatorSamples(kongOperatorSamples...)

	for _, obj := range objects {
		want := "Programmed"
		if obj.GetKind() == "KonnectAPIAuthConfiguration" {
			want = "APIAuthValid"
		}
		e.eventually(fmt.Sprintf("%s %s %s", obj.GetKind(), obj.GetName(), want), func() error {
			got, err := resource(obj).Get(e.ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				return err
			}
			return conditionTrue(got, want)
		})
	}
	networks := e.sim.Networks(e.orgID)
	if len(networks) != 2 {
		t.Fatalf("Konnect holds %d networks, want the samples' 2", len(networks))
	}
	var cpID string
	for _, obj := range objects {
		if obj.GetKind() == "KonnectGatewayControlPlane" {
			got, err := resource(obj).Get(e.ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cpID, _, _ = unstructured.NestedString(got.Object, "status", "id")
		}
	}
	cfg := e.sim.Configuration(e.orgID, cpID)
	if cfg == nil || cfg["control_plane_geo"] != "eu" || len(cfg["dataplane_groups"].([]any)) != 1 {
		t.Fatalf("the control plane %s has the configuration %v; want one group, in geo eu (the sample's server URL)", cpID, cfg)
	}

	for _, obj := range objects {
		if err := resource(obj).Delete(e.ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, obj := range objects {
		e.eventually(fmt.Sprintf("%s %s deleted", obj.GetKind(), obj.GetName()), func() error {
			_, err := resource(obj).Get(e.ctx, obj.GetName(), metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there (%w)", err)
		})
	}
	if n := e.sim.Count(e.orgID); n != 0 {
		t.Fatalf("%d entities left in Konnect after the samples were deleted: networks %v", n, e.sim.Networks(e.orgID))
	}
}

// applyKongOperatorSamples applies Kong Operator's samples from
// testdata/kong-operator as they are published, with server-side apply as
// kubectl apply --server-side sends it, and deletes what they hold at the
// end of the test (whatever happened, leaving nothing in shared namespaces
// such as default). It returns the objects in the order the files hold
// them, and their clients.
func (e *env) applyKongOperatorSamples(files ...string) ([]*unstructured.Unstructured, func(*unstructured.Unstructured) dynamic.ResourceInterface) {
	t := e.t
	t.Helper()
	dyn, err := dynamic.NewForConfig(e.restConfig())
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(e.restConfig())
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	resource := func(obj *unstructured.Unstructured) dynamic.ResourceInterface {
		t.Helper()
		gvk := obj.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatal(err)
		}
		if mapping.Scope.Name() == meta.RESTScopeNameRoot {
			return dyn.Resource(mapping.Resource)
		}
		return dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
	}

	var objects []*unstructured.Unstructured
	for _, file := range files {
		docs := readManifests(t, filepath.Join("testdata", "kong-operator", file))
		objects = append(objects, docs...)
		for _, obj := range docs {
			data, err := obj.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			force := true
			if _, err := resource(obj).Patch(e.ctx, obj.GetName(), types.ApplyPatchType, data,
				metav1.PatchOptions{FieldManager: "kubectl", Force: &force}); err != nil {
				t.Fatalf("%s: applying %s %s: %v", file, obj.GetKind(), obj.GetName(), err)
			}
		}
	}
	t.Cleanup(func() {
		// Namespaces last, once what is in them has gone from Konnect.
		ctx := context.WithoutCancel(e.ctx)
		for _, obj := range slices.Backward(objects) {
			_ = resource(obj).Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
		}
		// A namespace goes once the namespace controller has emptied it:
		// the next test applying the same samples must not find it
		// terminating.
		for _, obj := range objects {
			if obj.GetKind() != "Namespace" {
				continue
			}
			_ = wait.PollUntilContextTimeout(ctx, pollPeriod, waitLimit, true, func(ctx context.Context) (bool, error) {
				_, err := resource(obj).Get(ctx, obj.GetName(), metav1.GetOptions{})
				return apierrors.IsNotFound(err), nil
			})
		}
	})
	return objects, resource
}

// readManifests decodes the YAML documents of a file.
func readManifests(t testing.TB, path string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}

// conditionTrue checks that an unstructured object's condition is True for
// its current generation.
func conditionTrue(obj *unstructured.Unstructured, conditionType string) error {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, raw := range conditions {
		c, _ := raw.(map[string]any)
		if c["type"] != conditionType {
			continue
		}
		if c["status"] != "True" {
			return fmt.Errorf("%s %s: %s is %v (%v)", obj.GetKind(), obj.GetName(), conditionType, c["status"], c["message"])
		}
		if observed, _ := c["observedGeneration"].(int64); observed != obj.GetGeneration() {
			return fmt.Errorf("%s %s: %s observed generation %d of %d", obj.GetKind(), obj.GetName(), conditionType, observed, obj.GetGeneration())
		}
		return nil
	}
	return fmt.Errorf("%s %s has no %s condition", obj.GetKind(), obj.GetName(), conditionType)
}
