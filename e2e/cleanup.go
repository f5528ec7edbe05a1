package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var crdKind = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// deleteEverything deletes what every sample applied (kubectl delete -f,
// namespaces and all at once), waits until no object of the operator's
// kinds is left, and checks that Konnect is empty again: the operator
// deleted every entity it made, and the mirrored control plane (not the
// operator's) is still there.
func deleteEverything(ctx context.Context, t *testing.T, c *clusterEnv, samples []*sample) {
	// Several kubectl processes at once, as several people or pipelines
	// deleting what they applied would: the order is anyone's.
	var g errgroup.Group
	g.SetLimit(4)
	for _, s := range samples {
		g.Go(func() error {
			args := []string{"delete", "--wait=false", "--ignore-not-found", "-f", "-"}
			if s.namespace != "" {
				args = append(args, "--namespace", s.namespace)
			}
			if _, err := c.kubectl(ctx, s.text, args...); err != nil {
				t.Errorf("%s: %v", s.file, err)
			}
			if s.namespace != "" {
				if _, err := c.kubectl(ctx, "", "delete", "namespace", s.namespace, "--wait=false", "--ignore-not-found"); err != nil {
					t.Error(err)
				}
			}
			return nil
		})
	}
	_ = g.Wait()
	begin := time.Now()
	err := eventually(ctx, 3*time.Minute, func(ctx context.Context) error {
		left, err := leftovers(ctx, c)
		if err != nil {
			return err
		}
		if len(left) > 0 {
			return fmt.Errorf("still there: %s", strings.Join(left, ", "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("everything deleted in %s", time.Since(begin).Round(time.Millisecond))

	if suite.mirrorSource != "" {
		var cp map[string]any
		if err := suite.sim.get(ctx, "/v2/control-planes/"+suite.mirrorSource, true, &cp); err != nil {
			t.Errorf("the mirrored control plane is gone from Konnect: %v", err)
		} else if err := suite.sim.do(ctx, "DELETE", "/v2/control-planes/"+suite.mirrorSource, true, nil, nil); err != nil {
			t.Error(err)
		}
	}
	err = eventually(ctx, patience, func(ctx context.Context) error {
		n, err := suite.sim.entities(ctx)
		if err != nil {
			return err
		}
		if n != 0 {
			return fmt.Errorf("the simulator still holds %d entities", n)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// leftovers lists the objects of the operator's kinds and the samples'
// namespaces that still exist.
func leftovers(ctx context.Context, c *clusterEnv) ([]string, error) {
	crds, err := c.list(ctx, crdKind, "")
	if err != nil {
		return nil, err
	}
	var left []string
	for _, crd := range crds {
		group, _, _ := unstructuredString(crd.Object, "spec", "group")
		kind, _, _ := unstructuredString(crd.Object, "spec", "names", "kind")
		if group != konnectGroup && group != configurationGroup {
			continue
		}
		version, err := storageVersion(crd.Object)
		if err != nil {
			return nil, err
		}
		items, err := c.list(ctx, schema.GroupVersionKind{Group: group, Version: version, Kind: kind}, "")
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			left = append(left, fmt.Sprintf("%s %s/%s (finalizers %v)", kind, item.GetNamespace(), item.GetName(), item.GetFinalizers()))
		}
	}
	namespaces, err := c.kubectl(ctx, "", "get", "namespaces", "-o", "name")
	if err != nil {
		return nil, err
	}
	for _, ns := range strings.Fields(namespaces) {
		name := strings.TrimPrefix(ns, "namespace/")
		if strings.HasPrefix(name, "e2e-") || strings.HasPrefix(name, "konnect-sample-") {
			left = append(left, "namespace "+name)
		}
	}
	return left, nil
}

func storageVersion(crd map[string]any) (string, error) {
	versions, _, _ := unstructuredSlice(crd, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if storage, _ := m["storage"].(bool); storage {
			name, _ := m["name"].(string)
			return name, nil
		}
	}
	return "", errors.New("a CRD without a storage version")
}

func unstructuredString(obj map[string]any, fields ...string) (string, bool, error) {
	return unstructured.NestedString(obj, fields...)
}

func unstructuredSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	return unstructured.NestedSlice(obj, fields...)
}
