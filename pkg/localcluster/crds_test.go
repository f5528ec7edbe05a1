package localcluster

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadCRDs(t *testing.T) {
	crd := func(name string) string {
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + name + "\n"
	}
	tests := []struct {
		name      string
		files     map[string]string
		wantNames []string
		wantErr   bool
	}{
		{
			name: "several documents and files in file-name order, empty documents and the kustomization skipped",
			files: map[string]string{
				"b.yaml":             "---\n" + crd("b1.example.com") + "---\n" + crd("b2.example.com") + "---\n",
				"a.yml":              crd("a.example.com"),
				"notes.txt":          "not a manifest",
				"kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- a.yml\n",
			},
			wantNames: []string{"a.example.com", "b1.example.com", "b2.example.com"},
		},
		{
			name:    "another kind is refused",
			files:   map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			crds, err := ReadCRDs(dir)
			if tt.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range crds {
				names = append(names, c.Name)
			}
			if len(names) != len(tt.wantNames) {
				t.Fatalf("got %v, want %v", names, tt.wantNames)
			}
			for i := range names {
				if names[i] != tt.wantNames[i] {
					t.Fatalf("got %v, want %v", names, tt.wantNames)
				}
			}
		})
	}
}
