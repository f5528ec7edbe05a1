package apis

import (
	"slices"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Path segments for the elements of lists and the values of maps.
const (
	listItems = "[]"
	mapValues = "{}"
)

// fieldPath is a path into an object: property names, listItems or mapValues.
type fieldPath []string

func (p fieldPath) String() string {
	var b strings.Builder
	for _, segment := range p {
		if segment != listItems && segment != mapValues && b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(segment)
	}
	if b.Len() == 0 {
		return "(root)"
	}
	return b.String()
}

// requiredFields lists every property named in a `required` list of the
// schema, outside the top-level status and without a default: each must be
// refused when it is missing from its parent.
func requiredFields(schema *apiextensionsv1.JSONSchemaProps) []fieldPath {
	var fields []fieldPath
	var walk func(path fieldPath, s *apiextensionsv1.JSONSchemaProps)
	walk = func(path fieldPath, s *apiextensionsv1.JSONSchemaProps) {
		if s == nil {
			return
		}
		for _, name := range s.Required {
			prop, ok := s.Properties[name]
			if !ok || prop.Default != nil {
				continue
			}
			fields = append(fields, append(slices.Clone(path), name))
		}
		for _, name := range sortedKeys(s.Properties) {
			if len(path) == 0 && name == "status" {
				continue
			}
			prop := s.Properties[name]
			walk(append(slices.Clone(path), name), &prop)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(append(slices.Clone(path), listItems), s.Items.Schema)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			walk(append(slices.Clone(path), mapValues), s.AdditionalProperties.Schema)
		}
	}
	walk(nil, schema)
	return fields
}

// undocumentedFields lists the properties without a description, outside
// the standard apiVersion, kind and metadata: kubectl explain would show them
// bare.
func undocumentedFields(schema *apiextensionsv1.JSONSchemaProps) []string {
	var missing []string
	var walk func(path fieldPath, s *apiextensionsv1.JSONSchemaProps)
	walk = func(path fieldPath, s *apiextensionsv1.JSONSchemaProps) {
		if s == nil {
			return
		}
		for _, name := range sortedKeys(s.Properties) {
			if len(path) == 0 && (name == "apiVersion" || name == "kind" || name == "metadata") {
				continue
			}
			prop := s.Properties[name]
			childPath := append(slices.Clone(path), name)
			if strings.TrimSpace(prop.Description) == "" {
				missing = append(missing, childPath.String())
			}
			walk(childPath, &prop)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(append(slices.Clone(path), listItems), s.Items.Schema)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			walk(append(slices.Clone(path), mapValues), s.AdditionalProperties.Schema)
		}
	}
	walk(nil, schema)
	return missing
}

func sortedKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// hasPath reports whether obj contains path (through any element of a list
// or value of a map).
func hasPath(obj any, path fieldPath) bool {
	if len(path) == 0 {
		return true
	}
	switch segment := path[0]; segment {
	case listItems:
		list, _ := obj.([]any)
		return slices.ContainsFunc(list, func(item any) bool { return hasPath(item, path[1:]) })
	case mapValues:
		m, _ := obj.(map[string]any)
		for _, value := range m {
			if hasPath(value, path[1:]) {
				return true
			}
		}
		return false
	default:
		m, ok := obj.(map[string]any)
		if !ok {
			return false
		}
		value, ok := m[segment]
		return ok && hasPath(value, path[1:])
	}
}

// removePath deletes the last segment of path from the first place obj
// contains it, and reports whether it found one.
func removePath(obj any, path fieldPath) bool {
	if len(path) == 0 {
		return false
	}
	switch segment := path[0]; segment {
	case listItems:
		list, _ := obj.([]any)
		for _, item := range list {
			if removePath(item, path[1:]) {
				return true
			}
		}
		return false
	case mapValues:
		m, _ := obj.(map[string]any)
		for _, key := range sortedAnyKeys(m) {
			if removePath(m[key], path[1:]) {
				return true
			}
		}
		return false
	default:
		m, ok := obj.(map[string]any)
		if !ok {
			return false
		}
		value, ok := m[segment]
		if !ok {
			return false
		}
		if len(path) == 1 {
			delete(m, segment)
			return true
		}
		return removePath(value, path[1:])
	}
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
