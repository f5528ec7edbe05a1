package konnectsim

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// httpMethods are the operation keys of an OpenAPI path item.
var httpMethods = []string{"get", "put", "post", "patch", "delete", "head", "options", "trace"}

func sortedStrings(s []string) []string {
	slices.Sort(s)
	return s
}

// trimDocument keeps the served operations of doc (a decoded OpenAPI
// document) and the components they reference, transitively. Every served
// operation must be in the document.
func trimDocument(doc map[string]any, served map[string]bool) error {
	paths, _ := doc["paths"].(map[string]any)
	kept := map[string]any{}
	for template, item := range paths {
		ops, _ := item.(map[string]any)
		out := map[string]any{}
		for k, v := range ops {
			if !slices.Contains(httpMethods, k) {
				out[k] = v // parameters shared by the path's operations
			}
		}
		keep := false
		for _, method := range httpMethods {
			if op, ok := ops[method]; ok && served[strings.ToUpper(method)+" "+template] {
				out[method] = op
				keep = true
			}
		}
		if keep {
			kept[template] = out
		}
	}
	for _, key := range sortedStrings(slices.Collect(maps.Keys(served))) {
		method, template, _ := strings.Cut(key, " ")
		item, _ := kept[template].(map[string]any)
		if _, ok := item[strings.ToLower(method)]; !ok {
			return fmt.Errorf("the simulator serves %s, which is not in the document", key)
		}
	}
	doc["paths"] = kept

	components, _ := doc["components"].(map[string]any)
	keptComponents := map[string]any{}
	seen := map[string]bool{}
	todo := localRefs(kept, nil)
	for len(todo) > 0 {
		ref := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		parts := strings.Split(strings.TrimPrefix(ref, "#/"), "/")
		if len(parts) != 3 || parts[0] != "components" {
			return fmt.Errorf("unsupported reference %s", ref)
		}
		section, name := unescapePointer(parts[1]), unescapePointer(parts[2])
		target, ok := components[section].(map[string]any)[name]
		if !ok {
			return fmt.Errorf("reference %s names nothing", ref)
		}
		if keptComponents[section] == nil {
			keptComponents[section] = map[string]any{}
		}
		keptComponents[section].(map[string]any)[name] = target
		todo = localRefs(target, todo)
	}
	// Security schemes are named, not referenced.
	keptComponents["securitySchemes"] = components["securitySchemes"]
	doc["components"] = keptComponents
	return nil
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// localRefs appends every local $ref under v to out.
func localRefs(v any, out []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if ref, ok := child.(string); ok && k == "$ref" && strings.HasPrefix(ref, "#/") {
				out = append(out, ref)
				continue
			}
			out = localRefs(child, out)
		}
	case []any:
		for _, child := range v {
			out = localRefs(child, out)
		}
	}
	return out
}

// downTo30 rewrites the OpenAPI 3.1 constructs of doc's schemas the 3.0
// way and relabels it 3.0.3: type arrays become a type and nullable, const a
// one-value enum, schema examples an example, numeric exclusive bounds the
// 3.0 booleans, and constraints next to a $ref (ignored in 3.0) an allOf.
func downTo30(doc map[string]any) {
	media := func(content any) {
		for _, mt := range asMap(content) {
			schemaTo30(asMap(mt)["schema"])
		}
	}
	responses := func(rs any) {
		for _, r := range asMap(rs) {
			media(asMap(r)["content"])
			for _, h := range asMap(asMap(r)["headers"]) {
				schemaTo30(asMap(h)["schema"])
			}
		}
	}
	parameters := func(ps any) {
		switch ps := ps.(type) {
		case []any:
			for _, p := range ps {
				schemaTo30(asMap(p)["schema"])
			}
		case map[string]any:
			for _, p := range ps {
				schemaTo30(asMap(p)["schema"])
			}
		}
	}
	components := asMap(doc["components"])
	for _, s := range asMap(components["schemas"]) {
		schemaTo30(s)
	}
	parameters(components["parameters"])
	for _, rb := range asMap(components["requestBodies"]) {
		media(asMap(rb)["content"])
	}
	responses(components["responses"])
	for _, item := range asMap(doc["paths"]) {
		parameters(asMap(item)["parameters"])
		for _, method := range httpMethods {
			op := asMap(asMap(item)[method])
			if op == nil {
				continue
			}
			parameters(op["parameters"])
			media(asMap(op["requestBody"])["content"])
			responses(op["responses"])
		}
	}
	doc["openapi"] = "3.0.3"
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// schemaTo30 rewrites one schema and the schemas inside it.
func schemaTo30(v any) {
	s := asMap(v)
	if s == nil {
		return
	}
	if c, ok := s["const"]; ok {
		s["enum"] = []any{c}
		delete(s, "const")
	}
	switch t := s["type"].(type) {
	case []any:
		var types []any
		for _, x := range t {
			if x == "null" {
				s["nullable"] = true
				continue
			}
			types = append(types, x)
		}
		if len(types) == 1 {
			s["type"] = types[0]
		} else {
			delete(s, "type") // e.g. [integer, string]: any of them
		}
	case string:
		if t == "null" {
			delete(s, "type")
			s["nullable"] = true
		}
	}
	if examples, ok := s["examples"].([]any); ok {
		delete(s, "examples")
		if _, has := s["example"]; !has && len(examples) > 0 {
			s["example"] = examples[0]
		}
	}
	for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
		if n, ok := s[k].(json.Number); ok {
			s[strings.ToLower(strings.TrimPrefix(k, "exclusive"))] = n
			s[k] = true
		}
	}
	if ref, ok := s["$ref"]; ok && len(s) > 1 {
		constrained := false
		for k := range s {
			if k != "$ref" && k != "description" && k != "summary" && !strings.HasPrefix(k, "x-") {
				constrained = true
			}
		}
		delete(s, "$ref")
		if constrained {
			s["allOf"] = []any{map[string]any{"$ref": ref}}
		} else {
			clear(s)
			s["$ref"] = ref
		}
	}
	for _, k := range []string{"properties", "patternProperties"} {
		for _, p := range asMap(s[k]) {
			schemaTo30(p)
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		schemaTo30(s[k])
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := s[k].([]any); ok {
			for _, item := range list {
				schemaTo30(item)
			}
		}
	}
}
