package apis

import (
	"slices"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// testStatusSubresource checks that a status written through the status
// subresource is kept, and that a status sent with the main resource is
// ignored while the rest of that update is applied.
func testStatusSubresource(t *testing.T, e *env, k kindUnderTest) {
	for _, version := range k.crd.Spec.Versions {
		if !version.Served {
			continue
		}
		t.Run(version.Name, func(t *testing.T) {
			t.Parallel()
			hasStatus := version.Subresources != nil && version.Subresources.Status != nil
			if kindsWithoutStatus[k.kind] {
				// As in Kong Operator: nothing reports on these.
				if hasStatus {
					t.Fatalf("%s %s has a status subresource; Kong Operator's has none", k.kind, version.Name)
				}
				return
			}
			if !hasStatus {
				t.Fatalf("%s %s has no status subresource", k.kind, version.Name)
			}
			if !hasConditions(version.Schema) {
				t.Fatalf("%s %s has no status.conditions to write", k.kind, version.Name)
			}
			gvk := schema.GroupVersionKind{Group: k.crd.Spec.Group, Version: version.Name, Kind: k.kind}
			example := exampleWithParent(k, gvk, nil)
			if example == nil {
				t.Fatalf("no valid example of %s", gvk)
			}
			s := e.newScope(t)
			sent, _, err := e.create(t.Context(), t, example, s)
			if err != nil {
				t.Fatal(err)
			}
			_, resource, err := e.place(example, s)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := e.get(t.Context(), sent)
			if err != nil {
				t.Fatal(err)
			}

			stored.Object["status"] = map[string]any{"conditions": []any{programmed("True")}}
			if _, err := resource.UpdateStatus(t.Context(), stored, metav1.UpdateOptions{FieldValidation: strict}); err != nil {
				t.Fatalf("status write through the status subresource refused: %v", err)
			}
			stored, err = e.get(t.Context(), sent)
			if err != nil {
				t.Fatal(err)
			}
			if got := programmedStatus(stored); got != "True" {
				t.Fatalf("after a status write of Programmed=True the status reads %q", got)
			}

			stored.Object["status"] = map[string]any{"conditions": []any{programmed("False")}}
			labels := stored.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels["crd-test/main-write"] = "applied"
			stored.SetLabels(labels)
			if _, err := resource.Update(t.Context(), stored, metav1.UpdateOptions{FieldValidation: strict}); err != nil {
				t.Fatalf("update of the main resource refused: %v", err)
			}
			stored, err = e.get(t.Context(), sent)
			if err != nil {
				t.Fatal(err)
			}
			if stored.GetLabels()["crd-test/main-write"] != "applied" {
				t.Fatal("the update of the main resource was not applied")
			}
			if got := programmedStatus(stored); got != "True" {
				t.Fatalf("a status sent with the main resource changed Programmed to %q; it must be ignored", got)
			}
		})
	}
}

// kindsWithoutStatus are the kinds whose CRD has no status subresource.
var kindsWithoutStatus = map[string]bool{"KongReferenceGrant": true}

func hasConditions(validation *apiextensionsv1.CustomResourceValidation) bool {
	if validation == nil || validation.OpenAPIV3Schema == nil {
		return false
	}
	status, ok := validation.OpenAPIV3Schema.Properties["status"]
	if !ok {
		return false
	}
	_, ok = status.Properties["conditions"]
	return ok
}

func programmed(status string) map[string]any {
	return map[string]any{
		"type":               "Programmed",
		"status":             status,
		"reason":             "Test",
		"message":            "written by the CRD tests",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}
}

// programmedStatus returns the status of the Programmed condition, "" when
// there is none.
func programmedStatus(obj *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	i := slices.IndexFunc(conditions, func(c any) bool {
		m, _ := c.(map[string]any)
		return m["type"] == "Programmed"
	})
	if i < 0 {
		return ""
	}
	status, _ := conditions[i].(map[string]any)["status"].(string)
	return status
}
