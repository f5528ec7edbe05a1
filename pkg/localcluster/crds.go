package localcluster

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

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/util/retry"
)

// crdBudget bounds the wait for CRDs when the caller's context has no
// deadline: an Established condition normally takes well under a second.
const crdBudget = time.Minute

// InstallCRDs creates (or updates) every CustomResourceDefinition in the
// .yaml, .yml and .json files of dir and waits until each is Established and
// its versions are served.
func (c *Cluster) InstallCRDs(ctx context.Context, dir string) error {
	crds, err := ReadCRDs(dir)
	if err != nil {
		return err
	}
	client, err := apiextensionsclient.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if err := applyCRD(ctx, client, crd); err != nil {
			return err
		}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, crdBudget)
		defer cancel()
	}
	for _, crd := range crds {
		if err := waitEstablished(ctx, client, crd); err != nil {
			return err
		}
	}
	return nil
}

// ReadCRDs decodes every CustomResourceDefinition in the .yaml, .yml and
// .json files of dir, in file-name order. Any other kind is an error, except
// in a kustomization file, which lists the CRDs for kubectl apply -k and is
// skipped.
func ReadCRDs(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read CRDs: %w", err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, entry := range entries {
		ext := filepath.Ext(entry.Name())
		if entry.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") || isKustomization(entry.Name()) {
			continue
		}
		path := filepath.Join(dir, entry.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read CRDs: %w", err)
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			err := decoder.Decode(crd)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("decode %s: %w", path, err)
			}
			if crd.Kind == "" && crd.Name == "" {
				continue // an empty document
			}
			if crd.Kind != "CustomResourceDefinition" {
				return nil, fmt.Errorf("%s: kind %q is not CustomResourceDefinition", path, crd.Kind)
			}
			crds = append(crds, crd)
		}
	}
	return crds, nil
}

// isKustomization reports whether a file name is one kustomize reads as the
// folder's kustomization.
func isKustomization(name string) bool {
	return slices.Contains([]string{"kustomization.yaml", "kustomization.yml", "Kustomization"}, name)
}

func applyCRD(ctx context.Context, client apiextensionsclient.Interface, crd *apiextensionsv1.CustomResourceDefinition) error {
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	_, err := crds.Create(ctx, crd.DeepCopy(), metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
		return nil
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		updated := crd.DeepCopy()
		updated.ResourceVersion = current.ResourceVersion
		_, err = crds.Update(ctx, updated, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("update CRD %s: %w", crd.Name, err)
	}
	return nil
}

// waitEstablished waits until the CRD is Established and discovery lists its
// resource in every served version, which is when clients can use it.
func waitEstablished(ctx context.Context, client apiextensionsclient.Interface, crd *apiextensionsv1.CustomResourceDefinition) error {
	var lastProblem string
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		current, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			lastProblem = err.Error()
			return false, nil
		}
		for _, cond := range current.Status.Conditions {
			if cond.Type == apiextensionsv1.NamesAccepted && cond.Status == apiextensionsv1.ConditionFalse {
				return false, fmt.Errorf("CRD %s: names not accepted: %s", crd.Name, cond.Message)
			}
		}
		if !crdConditionTrue(current, apiextensionsv1.Established) {
			lastProblem = "not Established"
			return false, nil
		}
		missing, err := unservedVersions(client.Discovery(), current)
		if err != nil || len(missing) > 0 {
			lastProblem = fmt.Sprintf("discovery does not list it yet in %s", strings.Join(missing, ", "))
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("wait for CRD %s: %w (%s)", crd.Name, err, lastProblem)
		}
		return err
	}
	return nil
}

func crdConditionTrue(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	return slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
		return c.Type == t && c.Status == apiextensionsv1.ConditionTrue
	})
}

// unservedVersions lists the CRD's served group/versions whose discovery
// document does not yet contain its plural.
func unservedVersions(client discovery.DiscoveryInterface, crd *apiextensionsv1.CustomResourceDefinition) ([]string, error) {
	var missing []string
	for _, version := range crd.Spec.Versions {
		if !version.Served {
			continue
		}
		gv := crd.Spec.Group + "/" + version.Name
		resources, err := client.ServerResourcesForGroupVersion(gv)
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
		found := resources != nil && slices.ContainsFunc(resources.APIResources, func(r metav1.APIResource) bool {
			return r.Name == crd.Spec.Names.Plural
		})
		if !found {
			missing = append(missing, gv)
		}
	}
	return missing, nil
}
