package apis

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// schemaRule is the rule ID an invalid manifest uses for a plain OpenAPI
// constraint (enum, length, pattern, maxItems…) that has no §2.14 ID.
const schemaRule = "schema"

// manifestFile is one testdata file.
type manifestFile struct {
	// name is the file name, e.g. invalid-v17-id-added.yaml.
	name string
	docs []*unstructured.Unstructured
	// rules and expect come from the header of an invalid manifest.
	rules  []string
	expect string
}

// kindTestdata is the content of testdata/<kind-lowercase>/.
type kindTestdata struct {
	valid   []manifestFile
	invalid []manifestFile
}

// loadTestdata reads every testdata/<dir>/ folder, keyed by folder name.
func loadTestdata(root string) (map[string]*kindTestdata, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	all := map[string]*kindTestdata{}
	for _, entry := range entries {
		if !entry.IsDir() || entry.Name() == parityDir {
			continue
		}
		data, err := loadKindTestdata(filepath.Join(root, entry.Name()))
		if err != nil {
			return nil, err
		}
		all[entry.Name()] = data
	}
	return all, nil
}

func loadKindTestdata(dir string) (*kindTestdata, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, entry := range entries {
		names = append(names, entry.Name())
	}
	sort.Strings(names)
	data := &kindTestdata{}
	for _, name := range names {
		isValid := strings.HasPrefix(name, "valid-")
		isInvalid := strings.HasPrefix(name, "invalid-")
		if !isValid && !isInvalid {
			return nil, fmt.Errorf("%s: testdata files are named valid-*.yaml or invalid-*.yaml", filepath.Join(dir, name))
		}
		content, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		file, err := parseManifestFile(name, content, isInvalid)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		if isValid {
			data.valid = append(data.valid, file)
		} else {
			data.invalid = append(data.invalid, file)
		}
	}
	return data, nil
}

// parseManifestFile parses a testdata file; invalid manifests must carry a
// header and one or two documents.
func parseManifestFile(name string, content []byte, invalid bool) (manifestFile, error) {
	file := manifestFile{name: name}
	docs, err := splitDocuments(content)
	if err != nil {
		return file, err
	}
	file.docs = docs
	if len(docs) == 0 {
		return file, errors.New("no documents")
	}
	if !invalid {
		return file, nil
	}
	if file.rules, file.expect, err = parseHeader(content); err != nil {
		return file, err
	}
	if len(docs) > 2 {
		return file, fmt.Errorf("%d documents: an invalid manifest has one (a create) or two (a create and an update)", len(docs))
	}
	if len(docs) == 2 && (docs[0].GetKind() != docs[1].GetKind() || docs[0].GetName() != docs[1].GetName()) {
		return file, errors.New("the update document must have the kind and name of the created one")
	}
	return file, nil
}

// parseHeader reads the "# rule:" and "# expect:" comment lines that open an
// invalid manifest.
func parseHeader(content []byte) (rules []string, expect string, err error) {
	scanner := bufio.NewScanner(bytes.NewReader(content))
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" {
			continue
		}
		comment, ok := strings.CutPrefix(line, "#")
		if !ok {
			break
		}
		key, value, ok := strings.Cut(comment, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "rule":
			for _, id := range strings.Split(value, ",") {
				if id = strings.TrimSpace(id); id != "" {
					rules = append(rules, id)
				}
			}
		case "expect":
			expect = strings.TrimSpace(value)
		}
	}
	if len(rules) == 0 {
		return nil, "", errors.New(`missing "# rule: <IDs>" header`)
	}
	if expect == "" {
		return nil, "", errors.New(`missing "# expect: <part of the API server's error>" header`)
	}
	return rules, expect, nil
}

// splitDocuments decodes the YAML documents of content, skipping empty ones
// (comments only). Numbers decode as int64 or float64, as the API server
// returns them.
func splitDocuments(content []byte) ([]*unstructured.Unstructured, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(content)))
	var docs []*unstructured.Unstructured
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		jsonDoc, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", len(docs)+1, err)
		}
		if trimmed := bytes.TrimSpace(jsonDoc); bytes.Equal(trimmed, []byte("null")) || len(trimmed) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(jsonDoc); err != nil {
			return nil, fmt.Errorf("document %d: %w", len(docs)+1, err)
		}
		if obj.GetAPIVersion() == "" || obj.GetName() == "" {
			return nil, fmt.Errorf("document %d: apiVersion, kind and metadata.name are required", len(docs)+1)
		}
		docs = append(docs, obj)
	}
}
