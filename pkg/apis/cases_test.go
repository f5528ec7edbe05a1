package apis

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func testValidManifests(t *testing.T, e *env, k kindUnderTest) {
	for _, file := range k.data.valid {
		t.Run(file.name, func(t *testing.T) {
			t.Parallel()
			s := e.newScope(t)
			for _, doc := range file.docs {
				sent, _, err := e.create(t.Context(), t, doc, s)
				if err != nil {
					t.Fatalf("%s %s refused: %v", doc.GetKind(), doc.GetName(), err)
				}
				got, err := e.get(t.Context(), sent)
				if err != nil {
					t.Fatal(err)
				}
				for _, diff := range subsetDiff("", sent.Object, got.Object) {
					t.Errorf("%s %s: %s", doc.GetKind(), doc.GetName(), diff)
				}
			}
		})
	}
}

func testInvalidManifests(t *testing.T, e *env, k kindUnderTest) {
	for _, file := range k.data.invalid {
		t.Run(file.name, func(t *testing.T) {
			t.Parallel()
			s := e.newScope(t)
			var err error
			switch len(file.docs) {
			case 1:
				_, _, err = e.create(t.Context(), t, file.docs[0], s)
			case 2:
				_, stored, createErr := e.create(t.Context(), t, file.docs[0], s)
				if createErr != nil {
					t.Fatalf("the object to update was refused: %v", createErr)
				}
				err = e.update(t.Context(), file.docs[1], stored, s)
			}
			expectRefusal(t, err, file.expect)
		})
	}
}

func expectRefusal(t *testing.T, err error, expect string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want a refusal containing %q", expect)
	}
	if !strings.Contains(err.Error(), expect) {
		t.Fatalf("refused with %q; want the error to contain %q", err.Error(), expect)
	}
}

// testRequiredFields removes each required field from a valid example that
// contains its parent, and expects the API server to ask for it.
func testRequiredFields(t *testing.T, e *env, k kindUnderTest) {
	for _, version := range k.crd.Spec.Versions {
		if !version.Served || version.Schema == nil {
			continue
		}
		gvk := schema.GroupVersionKind{Group: k.crd.Spec.Group, Version: version.Name, Kind: k.kind}
		for _, field := range requiredFields(version.Schema.OpenAPIV3Schema) {
			t.Run(version.Name+"/"+field.String(), func(t *testing.T) {
				t.Parallel()
				example := exampleWithParent(k, gvk, field[:len(field)-1])
				if example == nil {
					t.Fatalf("no valid example of %s contains %s, the parent of required %s: add one",
						gvk.Version, field[:len(field)-1], field)
				}
				if !removePath(example.Object, field) {
					t.Fatalf("the example has the parent but not the required field %s", field)
				}
				_, _, err := e.create(t.Context(), t, example, e.newScope(t))
				expectRefusal(t, err, "Required value")
				if last := field[len(field)-1]; !strings.Contains(err.Error(), last) {
					t.Fatalf("refused with %q, which does not name %s", err.Error(), last)
				}
			})
		}
	}
}

// exampleWithParent returns a copy, without status, of the richest valid
// document of gvk (the one with the most fields) that contains parent, or
// nil. The richest example shows the most in printer columns and makes a
// removed field the likeliest cause of a refusal.
func exampleWithParent(k kindUnderTest, gvk schema.GroupVersionKind, parent fieldPath) *unstructured.Unstructured {
	var best *unstructured.Unstructured
	bestSize := -1
	for _, file := range k.data.valid {
		for _, doc := range file.docs {
			if doc.GroupVersionKind() != gvk || !hasPath(doc.Object, parent) {
				continue
			}
			example := doc.DeepCopy()
			// Callers create the example; a status would be dropped anyway.
			delete(example.Object, "status")
			if size := countFields(example.Object); size > bestSize {
				best, bestSize = example, size
			}
		}
	}
	return best
}

// countFields counts the values in obj, nested ones included.
func countFields(obj any) int {
	switch v := obj.(type) {
	case map[string]any:
		n := 0
		for _, value := range v {
			n += 1 + countFields(value)
		}
		return n
	case []any:
		n := 0
		for _, item := range v {
			n += 1 + countFields(item)
		}
		return n
	}
	return 0
}
