package apis

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/jsonpath"
)

// testPrinterColumns creates an example of every served version and checks
// that `kubectl get -o wide` shows each printer column with the value its
// JSONPath selects (dates excepted: kubectl shows their age).
func testPrinterColumns(t *testing.T, e *env, k kindUnderTest) {
	for _, version := range k.crd.Spec.Versions {
		if !version.Served {
			continue
		}
		t.Run(version.Name, func(t *testing.T) {
			t.Parallel()
			gvk := schema.GroupVersionKind{Group: k.crd.Spec.Group, Version: version.Name, Kind: k.kind}
			example := exampleWithParent(k, gvk, nil)
			if example == nil {
				t.Fatalf("no valid example of %s", gvk)
			}
			sent, _, err := e.create(t.Context(), t, example, e.newScope(t))
			if err != nil {
				t.Fatal(err)
			}
			stored, err := e.get(t.Context(), sent)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"get", k.crd.Spec.Names.Plural + "." + version.Name + "." + k.crd.Spec.Group, stored.GetName(), "-o", "wide"}
			if ns := stored.GetNamespace(); ns != "" {
				args = append(args, "-n", ns)
			}
			out, err := cluster.Kubectl(t.Context(), args...)
			if err != nil {
				t.Fatal(err)
			}
			header, row, ok := strings.Cut(strings.TrimRight(out, "\n"), "\n")
			if !ok {
				t.Fatalf("kubectl get printed no row:\n%s", out)
			}
			names := []string{"NAME"}
			for _, column := range version.AdditionalPrinterColumns {
				names = append(names, strings.ToUpper(column.Name))
			}
			cells, err := tableCells(header, row, names)
			if err != nil {
				t.Fatalf("%v in:\n%s", err, out)
			}
			for i, column := range version.AdditionalPrinterColumns {
				want, checkable := columnValue(t, stored, column)
				if checkable && cells[i+1] != want {
					t.Errorf("column %s shows %q, want %q (from %s)", column.Name, cells[i+1], want, column.JSONPath)
				}
			}
		})
	}
}

// tableCells splits a kubectl table row into the cells under the given
// header names, which must appear in order: kubectl left-aligns each cell
// under its column name.
func tableCells(header, row string, names []string) ([]string, error) {
	starts := make([]int, len(names))
	from := 0
	for i, name := range names {
		at := strings.Index(header[from:], name)
		if at < 0 {
			return nil, fmt.Errorf("column %s missing from the header", name)
		}
		starts[i] = from + at
		from = starts[i] + len(name)
	}
	cells := make([]string, len(names))
	for i, start := range starts {
		end := len(row)
		if i+1 < len(starts) && starts[i+1] < end {
			end = starts[i+1]
		}
		if start < end {
			cells[i] = strings.TrimSpace(row[start:end])
		}
	}
	return cells, nil
}

// columnValue returns what a printer column should show for obj, and false
// when the value is not a single string, integer or boolean (or is a date).
func columnValue(t *testing.T, obj *unstructured.Unstructured, column apiextensionsv1.CustomResourceColumnDefinition) (string, bool) {
	t.Helper()
	if column.Type != "string" && column.Type != "integer" && column.Type != "boolean" {
		return "", false
	}
	path := jsonpath.New(column.Name).AllowMissingKeys(true)
	if err := path.Parse("{" + column.JSONPath + "}"); err != nil {
		t.Fatalf("column %s: JSONPath %s: %v", column.Name, column.JSONPath, err)
	}
	results, err := path.FindResults(obj.Object)
	if err != nil {
		t.Fatalf("column %s: %v", column.Name, err)
	}
	var values []reflect.Value
	for _, result := range results {
		values = append(values, result...)
	}
	switch len(values) {
	case 0:
		return "", true
	case 1:
		value := values[0].Interface()
		switch value.(type) {
		case string, int64, bool:
			return fmt.Sprint(value), true
		}
	}
	return "", false
}

// testExplain checks that kubectl explain shows the kind's description and
// the description of every top-level and spec field, and that the schema
// leaves no field undocumented.
func testExplain(t *testing.T, k kindUnderTest) {
	for _, version := range k.crd.Spec.Versions {
		if !version.Served || version.Schema == nil {
			continue
		}
		t.Run(version.Name, func(t *testing.T) {
			t.Parallel()
			root := version.Schema.OpenAPIV3Schema
			for _, field := range undocumentedFields(root) {
				t.Errorf("%s has no description", field)
			}
			apiVersion := "--api-version=" + k.crd.Spec.Group + "/" + version.Name
			explained := []struct {
				path   string
				schema *apiextensionsv1.JSONSchemaProps
			}{{path: k.crd.Spec.Names.Plural, schema: root}}
			if spec, ok := root.Properties["spec"]; ok {
				explained = append(explained, struct {
					path   string
					schema *apiextensionsv1.JSONSchemaProps
				}{path: k.crd.Spec.Names.Plural + ".spec", schema: &spec})
			}
			for _, target := range explained {
				out, err := cluster.Kubectl(t.Context(), "explain", target.path, apiVersion)
				if err != nil {
					t.Fatal(err)
				}
				shown := normalizeSpace(out)
				if want := normalizeSpace(target.schema.Description); want != "" && !strings.Contains(shown, want) {
					t.Errorf("kubectl explain %s does not show its description %q", target.path, want)
				}
				for _, name := range sortedKeys(target.schema.Properties) {
					want := normalizeSpace(target.schema.Properties[name].Description)
					if !strings.Contains(shown, name) || !strings.Contains(shown, want) {
						t.Errorf("kubectl explain %s does not show field %s with its description %q", target.path, name, want)
					}
				}
			}
		})
	}
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
