package entities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// pluginSecretValue is one value a plugin's configuration takes from a
// Secret, as Kong Ingress Controller reads them: the whole configuration
// (configFrom; path is empty) or the JSON value set at path on top of the
// inline config (one of configPatches).
type pluginSecretValue struct {
	// field names the spec field, for messages.
	field string
	// path is the JSON pointer a patch sets; "" for configFrom.
	path                 string
	namespace, name, key string
	// refused says, when not empty, why the binding that applies the
	// plugin may not read this Secret (see clusterPluginSecretsFor).
	refused string
}

// kongPluginSecrets returns the Secret values a KongPlugin reads, all from
// its own namespace.
func kongPluginSecrets(p kongPlugin) []pluginSecretValue {
	var out []pluginSecretValue
	if from := p.ConfigFrom; from != nil {
		out = append(out, pluginSecretValue{field: "configFrom", namespace: p.Namespace, name: from.SecretValue.Secret, key: from.SecretValue.Key})
	}
	for i, patch := range p.ConfigPatches {
		ref := patch.ValueFrom.SecretValue
		out = append(out, pluginSecretValue{field: fmt.Sprintf("configPatches[%d]", i), path: patch.Path, namespace: p.Namespace, name: ref.Secret, key: ref.Key})
	}
	return out
}

// ReadsSecrets reports whether the plugin that pb applies (a KongPlugin or
// a KongClusterPlugin of src) takes values of its configuration from
// Secrets, so that the configuration Konnect holds is secret material.
func (src PluginBindingSources) ReadsSecrets(pb kongPluginBinding) bool {
	if IsClusterPluginRef(pb) {
		p, err := src.ClusterPlugins.Get("", pb.Spec.PluginRef.Name)
		return err == nil && len(clusterPluginSecrets(p)) > 0
	}
	p, err := src.Plugins.Get(pluginNamespace(pb), pb.Spec.PluginRef.Name)
	return err == nil && len(kongPluginSecrets(p)) > 0
}

// clusterPluginSecrets returns the Secret values a KongClusterPlugin reads.
// A cluster-scoped plugin names the namespace of each Secret.
func clusterPluginSecrets(p kongClusterPlugin) []pluginSecretValue {
	var out []pluginSecretValue
	if from := p.ConfigFrom; from != nil {
		ref := from.SecretValue
		out = append(out, pluginSecretValue{field: "configFrom", namespace: ref.Namespace, name: ref.Secret, key: ref.Key})
	}
	for i, patch := range p.ConfigPatches {
		ref := patch.ValueFrom.SecretValue
		out = append(out, pluginSecretValue{field: fmt.Sprintf("configPatches[%d]", i), path: patch.Path, namespace: ref.Namespace, name: ref.Secret, key: ref.Key})
	}
	return out
}

// AnnotationClusterPluginNamespaces, on a KongClusterPlugin, lists the
// namespaces (comma-separated, or "*" for every one) whose
// KongPluginBindings may apply it with the values it reads from Secrets of
// other namespaces.
const AnnotationClusterPluginNamespaces = "konnect.konghq.com/allowed-binding-namespaces"

// clusterPluginSecretsFor returns the Secret values of a KongClusterPlugin
// as the binding from may read them. Any namespace may bind a cluster
// plugin, and its values reach the binding's control plane: a Secret of
// the binding's own namespace is its own; one of another namespace needs
// that namespace's consent (a KongReferenceGrant from KongPluginBindings of
// the binding's namespace to the Secret) or the plugin's own list of the
// namespaces it serves (AnnotationClusterPluginNamespaces), which only who
// may write cluster-scoped objects writes.
func (r *Refs) clusterPluginSecretsFor(p kongClusterPlugin, from referrer) []pluginSecretValue {
	values := clusterPluginSecrets(p)
	listed := strings.Split(p.Annotations[AnnotationClusterPluginNamespaces], ",")
	for i := range values {
		v := &values[i]
		if v.namespace == from.namespace || slices.ContainsFunc(listed, func(ns string) bool {
			ns = strings.TrimSpace(ns)
			return ns == "*" || ns == from.namespace
		}) || r.permitted(from, groupCore, kindSecret, v.namespace, v.name) {
			continue
		}
		v.refused = fmt.Sprintf("KongClusterPlugin %s reads %s, which KongPluginBindings of namespace %s may not apply: add the namespace to the plugin's annotation %s, or a KongReferenceGrant allowing the reference to %s",
			p.Name, describe(kindSecret, v.namespace, v.name), from.namespace, AnnotationClusterPluginNamespaces,
			grantFor(from, groupCore, kindSecret, v.namespace, v.name))
	}
	return values
}

// pluginSecretRefusedError is a plugin configuration that reads a Secret
// its binding may not read.
type pluginSecretRefusedError struct{ message string }

func (e *pluginSecretRefusedError) Error() string { return e.message }

// readsSecret reports whether any of values is read from the Secret.
func readsSecret(values []pluginSecretValue, secret *corev1.Secret) bool {
	return slices.ContainsFunc(values, func(v pluginSecretValue) bool {
		return v.namespace == secret.Namespace && v.name == secret.Name
	})
}

// pluginConfig builds a plugin's configuration: the inline config, or the
// one configFrom reads, with every configPatches value set on top. The
// Secrets are read as a certificate's are (readSecretData), those the
// binding may not read not at all.
//
// Errors name the field, the Secret, its key and the path, never a value
// from a Secret: they end up in conditions and Events. The parsers' own
// errors are left out for that reason, as they may quote the input.
func (r *Refs) pluginConfig(ctx context.Context, inline *apiextensionsv1.JSON, secrets []pluginSecretValue) (map[string]any, error) {
	var config map[string]any
	if inline != nil && len(inline.Raw) > 0 {
		if err := json.Unmarshal(inline.Raw, &config); err != nil {
			return nil, errors.New("config is not a JSON object")
		}
	}
	if config == nil { // absent, or null
		config = map[string]any{}
	}
	var problems, refusals []string
	absent := 0
	for _, v := range secrets {
		if v.refused != "" {
			refusals = append(refusals, fmt.Sprintf("%s: %s", v.field, v.refused))
			continue
		}
		raw, err := r.secretValue(ctx, v)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", v.field, err))
			if secretAbsent(err) {
				absent++
			}
			continue
		}
		if v.path == "" {
			if config, err = configFromSecret(raw); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s %v", v.field, v.describe(), err))
			}
			continue
		}
		var value any
		if err := json.Unmarshal(raw, &value); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s is not a JSON value (a string needs its quotes)", v.field, v.describe()))
			continue
		}
		if err := setAtPointer(config, v.path, value); err != nil {
			problems = append(problems, fmt.Sprintf("%s: path %q %v", v.field, v.path, err))
		}
	}
	switch {
	case len(refusals) > 0:
		return nil, &pluginSecretRefusedError{strings.Join(refusals, "; ")}
	case len(problems) > 0 && absent == len(problems):
		// Only Secrets that are not there yet: the binding waits for them.
		return nil, &secretAbsentError{strings.Join(problems, "; ")}
	case len(problems) > 0:
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return config, nil
}

// describe names the Secret's data key for messages.
func (v pluginSecretValue) describe() string {
	return fmt.Sprintf("the data key %q of %s %s/%s", v.key, kindSecret, v.namespace, v.name)
}

// secretValue reads one data key of a Secret the plugin names, labelled
// as certificates' are (readSecretData), once its reader may read it.
func (r *Refs) secretValue(ctx context.Context, v pluginSecretValue) ([]byte, error) {
	data, err := r.readSecretData(v.namespace, v.name, v.key)
	if err != nil {
		return nil, r.explainUncached(ctx, err)
	}
	return []byte(data[v.key]), nil
}

// configFromSecret reads a whole configuration, JSON or YAML as Kong
// Ingress Controller accepts, which must be an object.
func configFromSecret(raw []byte) (map[string]any, error) {
	asJSON, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, errors.New("is neither JSON nor YAML")
	}
	var config map[string]any
	if err := json.Unmarshal(asJSON, &config); err != nil || config == nil {
		return nil, errors.New("is not a JSON (or YAML) object")
	}
	return config, nil
}

// setAtPointer sets value at the JSON pointer (RFC 6901) in doc, as a JSON
// Patch "add" operation does: the parent must exist; a member is added or
// replaced; an array index inserts before that element, and "-" appends.
// The whole document cannot be replaced.
func setAtPointer(doc map[string]any, pointer string, value any) error {
	if !strings.HasPrefix(pointer, "/") {
		return errors.New(`is not a JSON pointer to a field of config (it must start with "/")`)
	}
	tokens := strings.Split(pointer[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	var parent any = doc
	var setInParent func(any)
	for depth, token := range tokens {
		last := depth == len(tokens)-1
		switch container := parent.(type) {
		case map[string]any:
			if last {
				container[token] = value
				return nil
			}
			child, ok := container[token]
			if !ok {
				return fmt.Errorf("names %q, which config does not have", "/"+strings.Join(tokens[:depth+1], "/"))
			}
			setInParent = func(v any) { container[token] = v }
			parent = child
		case []any:
			index, err := arrayIndex(token, len(container), last)
			if err != nil {
				return fmt.Errorf("at %q: %w", "/"+strings.Join(tokens[:depth+1], "/"), err)
			}
			if last {
				// Inserting grows the array: its parent must hold the new one.
				setInParent(slices.Insert(container, index, value))
				return nil
			}
			outer := container
			setInParent = func(v any) { outer[index] = v }
			parent = container[index]
		default:
			return fmt.Errorf("goes through %q, which is neither an object nor an array", "/"+strings.Join(tokens[:depth], "/"))
		}
	}
	return nil
}

// arrayIndex reads a JSON pointer token into an array of length n: "-" is
// the end when adding; an added element may go at n, an existing one
// must be below it.
func arrayIndex(token string, n int, adding bool) (int, error) {
	if token == "-" && adding {
		return n, nil
	}
	index, err := strconv.Atoi(token)
	if err != nil || index < 0 || token != strconv.Itoa(index) {
		return 0, fmt.Errorf("%q is not an array index", token)
	}
	if index > n || index == n && !adding {
		return 0, fmt.Errorf("index %d is past the end of the array", index)
	}
	return index, nil
}
