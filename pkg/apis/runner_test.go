package apis

// Tests of the CRD test runner's own helpers: each proves that a check of
// TestCRDManifests can fail.

import (
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestSubsetDiff(t *testing.T) {
	tests := []struct {
		name      string
		want, got map[string]any
		wantDiffs []string
	}{
		{
			name:      "extra fields read back (defaults) are fine",
			want:      map[string]any{"spec": map[string]any{"host": "a"}},
			got:       map[string]any{"spec": map[string]any{"host": "a", "type": "kic"}, "status": map[string]any{}},
			wantDiffs: nil,
		},
		{
			name:      "a dropped field is reported",
			want:      map[string]any{"spec": map[string]any{"host": "a", "typo": "x"}},
			got:       map[string]any{"spec": map[string]any{"host": "a"}},
			wantDiffs: []string{"spec.typo: sent, not read back"},
		},
		{
			name:      "a changed scalar is reported",
			want:      map[string]any{"spec": map[string]any{"enabled": false}},
			got:       map[string]any{"spec": map[string]any{"enabled": true}},
			wantDiffs: []string{"spec.enabled: sent false, read back true"},
		},
		{
			name:      "numbers compare by value across int64 and float64",
			want:      map[string]any{"port": int64(80)},
			got:       map[string]any{"port": float64(80)},
			wantDiffs: nil,
		},
		{
			name:      "lists compare item by item and must keep their length",
			want:      map[string]any{"tags": []any{"a", "b"}},
			got:       map[string]any{"tags": []any{"a"}},
			wantDiffs: []string{"tags: sent 2 items, read back 1"},
		},
		{
			name:      "list items may gain defaulted fields",
			want:      map[string]any{"refs": []any{map[string]any{"name": "x"}}},
			got:       map[string]any{"refs": []any{map[string]any{"name": "x", "kind": "K"}}},
			wantDiffs: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := subsetDiff("", tt.want, tt.got); !slices.Equal(got, tt.wantDiffs) {
				t.Fatalf("got %q, want %q", got, tt.wantDiffs)
			}
		})
	}
}

func TestParseManifestFile(t *testing.T) {
	const object = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
	tests := []struct {
		name       string
		content    string
		invalid    bool
		wantErr    string
		wantDocs   int
		wantRules  []string
		wantExpect string
	}{
		{
			name:       "header and one document",
			content:    "# rule: V01, V02\n# expect: spec.id cannot be added\n# a note\n---\n" + object,
			invalid:    true,
			wantDocs:   1,
			wantRules:  []string{"V01", "V02"},
			wantExpect: "spec.id cannot be added",
		},
		{
			name:     "create and update documents",
			content:  "# rule: V17\n# expect: x\n---\n" + object + "---\n" + object,
			invalid:  true,
			wantDocs: 2, wantRules: []string{"V17"}, wantExpect: "x",
		},
		{name: "missing rule", content: "# expect: x\n---\n" + object, invalid: true, wantErr: "rule"},
		{name: "missing expect", content: "# rule: V01\n---\n" + object, invalid: true, wantErr: "expect"},
		{name: "three documents", content: "# rule: V01\n# expect: x\n---\n" + object + "---\n" + object + "---\n" + object, invalid: true, wantErr: "3 documents"},
		{
			name:    "an update of another object",
			content: "# rule: V01\n# expect: x\n---\n" + object + "---\n" + strings.Replace(object, "name: x", "name: other", 1),
			invalid: true, wantErr: "kind and name",
		},
		{name: "a document without a name", content: "apiVersion: v1\nkind: ConfigMap\n", wantErr: "metadata.name"},
		{name: "valid files need no header", content: object, wantDocs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := parseManifestFile("f.yaml", []byte(tt.content), tt.invalid)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error about %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(file.docs) != tt.wantDocs || !slices.Equal(file.rules, tt.wantRules) || file.expect != tt.wantExpect {
				t.Fatalf("got %d docs, rules %v, expect %q", len(file.docs), file.rules, file.expect)
			}
		})
	}
}

func TestSplitDocumentsDecodesIntegersAsInt64(t *testing.T) {
	docs, err := splitDocuments([]byte("apiVersion: v1\nkind: X\nmetadata:\n  name: x\nspec:\n  port: 80\n"))
	if err != nil {
		t.Fatal(err)
	}
	port, _, _ := unstructured.NestedFieldNoCopy(docs[0].Object, "spec", "port")
	if _, ok := port.(int64); !ok {
		t.Fatalf("port decoded as %T, want int64 as the API server returns it", port)
	}
}

// schemaFixture has required fields at the root, in a nested object, in list
// items and map values; a required field with a default; and status.
func schemaFixture() *apiextensionsv1.JSONSchemaProps {
	ref := apiextensionsv1.JSONSchemaProps{
		Type:        "object",
		Description: "A reference.",
		Required:    []string{"name"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"name": {Type: "string", Description: "Name."},
			"kind": {Type: "string", Default: &apiextensionsv1.JSON{Raw: []byte(`"K"`)}},
		},
	}
	return &apiextensionsv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"spec"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": {Type: "string"},
			"spec": {
				Type:        "object",
				Description: "Spec.",
				Required:    []string{"host", "mode"},
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"host": {Type: "string", Description: "Host."},
					"mode": {Type: "string", Description: "Mode.", Default: &apiextensionsv1.JSON{Raw: []byte(`"a"`)}},
					"ref":  ref,
					"refs": {Type: "array", Description: "Refs.", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &ref}},
					"byName": {Type: "object", Description: "By name.", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{
						Allows: true, Schema: &ref,
					}},
				},
			},
			"status": {
				Type:        "object",
				Description: "Status.",
				Required:    []string{"phase"},
				Properties:  map[string]apiextensionsv1.JSONSchemaProps{"phase": {Type: "string", Description: "Phase."}},
			},
		},
	}
}

func TestRequiredFieldsSkipStatusAndDefaultedFields(t *testing.T) {
	var got []string
	for _, field := range requiredFields(schemaFixture()) {
		got = append(got, field.String())
	}
	want := []string{"spec", "spec.host", "spec.byName{}.name", "spec.ref.name", "spec.refs[].name"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestUndocumentedFields(t *testing.T) {
	got := undocumentedFields(schemaFixture())
	// apiVersion is standard and skipped; "kind" of every ref copy lacks one.
	want := []string{"spec.byName{}.kind", "spec.ref.kind", "spec.refs[].kind"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestHasPathAndRemovePath(t *testing.T) {
	obj := func() map[string]any {
		return map[string]any{"spec": map[string]any{
			"refs":   []any{map[string]any{"kind": "K"}, map[string]any{"name": "b"}},
			"byName": map[string]any{"x": map[string]any{"name": "c"}},
		}}
	}
	tests := []struct {
		path       fieldPath
		wantHas    bool
		wantRemove bool
	}{
		{path: fieldPath{"spec", "refs", listItems, "name"}, wantHas: true, wantRemove: true},
		{path: fieldPath{"spec", "byName", mapValues, "name"}, wantHas: true, wantRemove: true},
		{path: fieldPath{"spec", "ref", "name"}, wantHas: false, wantRemove: false},
		{path: fieldPath{"spec", "refs", listItems}, wantHas: true},
		{path: nil, wantHas: true},
	}
	for _, tt := range tests {
		t.Run(tt.path.String(), func(t *testing.T) {
			o := obj()
			if got := hasPath(o, tt.path); got != tt.wantHas {
				t.Fatalf("hasPath = %v, want %v", got, tt.wantHas)
			}
			if len(tt.path) == 0 || tt.path[len(tt.path)-1] == listItems {
				return
			}
			if got := removePath(o, tt.path); got != tt.wantRemove {
				t.Fatalf("removePath = %v, want %v", got, tt.wantRemove)
			}
			if tt.wantRemove && hasPath(o, tt.path) {
				t.Fatal("the field is still there after removePath")
			}
		})
	}
}

func TestTableCellsFollowTheHeaderColumns(t *testing.T) {
	header := "NAME      HOST          PROTOCOL   PROGRAMMED   AGE"
	row := "payments  example.com              Unknown      1s"
	cells, err := tableCells(header, row, []string{"NAME", "HOST", "PROTOCOL", "PROGRAMMED", "AGE"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"payments", "example.com", "", "Unknown", "1s"}
	if !slices.Equal(cells, want) {
		t.Fatalf("got %q, want %q", cells, want)
	}
	if _, err := tableCells(header, row, []string{"NAME", "CLUSTER TYPE"}); err == nil {
		t.Fatal("a column missing from the header must be an error")
	}
}

func TestColumnValue(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"host": "h", "port": int64(8443), "tags": []any{"a", "b"}},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Ready", "status": "False"},
			map[string]any{"type": "Programmed", "status": "True"},
		}},
	}}
	tests := []struct {
		column         apiextensionsv1.CustomResourceColumnDefinition
		want           string
		wantComparable bool
	}{
		{column: apiextensionsv1.CustomResourceColumnDefinition{Name: "Host", Type: "string", JSONPath: ".spec.host"}, want: "h", wantComparable: true},
		{column: apiextensionsv1.CustomResourceColumnDefinition{Name: "Port", Type: "integer", JSONPath: ".spec.port"}, want: "8443", wantComparable: true},
		{column: apiextensionsv1.CustomResourceColumnDefinition{Name: "Programmed", Type: "string", JSONPath: `.status.conditions[?(@.type=='Programmed')].status`}, want: "True", wantComparable: true},
		{column: apiextensionsv1.CustomResourceColumnDefinition{Name: "Path", Type: "string", JSONPath: ".spec.path"}, want: "", wantComparable: true},
		{column: apiextensionsv1.CustomResourceColumnDefinition{Name: "Tags", Type: "string", JSONPath: ".spec.tags[*]"}, wantComparable: false},
		{column: apiextensionsv1.CustomResourceColumnDefinition{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"}, wantComparable: false},
	}
	for _, tt := range tests {
		t.Run(tt.column.Name, func(t *testing.T) {
			got, checkable := columnValue(t, obj, tt.column)
			if checkable != tt.wantComparable || got != tt.want {
				t.Fatalf("got %q (checkable %v), want %q (checkable %v)", got, checkable, tt.want, tt.wantComparable)
			}
		})
	}
}

func TestRuleCoverageProblems(t *testing.T) {
	k := kindUnderTest{kind: "KongTarget", data: &kindTestdata{invalid: []manifestFile{
		{name: "invalid-a.yaml", rules: []string{"V01", "V02", schemaRule}},
		{name: "invalid-b.yaml", rules: []string{"V03", "V17"}},
	}}}
	got := ruleCoverageProblems(k)
	want := []string{
		"invalid-b.yaml: rule V17 does not apply to KongTarget",
		"no invalid manifest in testdata/kongtarget for V04, V05, V19",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
