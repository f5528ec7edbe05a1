package apis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestSamplesDoNotStepOnEachOther: the README suggests applying one sample
// after another into the same namespace, so no two samples may hold an
// object of the same kind and name there (the second would change the
// first's, as when every sample's control plane was called demo-cp and the
// second sample renamed the running control plane in Konnect), and no two
// may create control planes of the same name in the one organisation.
func TestSamplesDoNotStepOnEachOther(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "manifests", "samples", "*.yaml"))
	if err != nil || len(files) < 10 {
		t.Fatalf("samples: %d files, %v", len(files), err)
	}
	owner := map[string]string{}        // kind/namespace/name -> sample
	konnectNames := map[string]string{} // control plane name in Konnect -> sample
	for _, file := range files {
		content, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := splitDocuments(content)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		sample := filepath.Base(file)
		for _, obj := range docs {
			key := obj.GetKind() + " " + obj.GetNamespace() + "/" + obj.GetName()
			if other, taken := owner[key]; taken {
				t.Errorf("%s and %s both hold %s", other, sample, strings.Replace(key, " /", " ", 1))
			}
			owner[key] = sample
			if name, _, _ := unstructured.NestedString(obj.Object, "spec", "createControlPlaneRequest", "name"); name != "" {
				if other, taken := konnectNames[name]; taken {
					t.Errorf("%s and %s both create the control plane %q in Konnect", other, sample, name)
				}
				konnectNames[name] = sample
			}
		}
	}
	if len(konnectNames) < 10 {
		t.Fatalf("found %d control planes in the samples; the test reads them wrongly", len(konnectNames))
	}
}
