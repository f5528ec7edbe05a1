package entities

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// How an Event Gateway entity is compared with what its object asks for:
// every field the object writes, as a subset (Konnect fills in defaults
// beside what is written, in objects and in the objects of lists), but
// what Konnect never answers (passwords, private keys: their changes are
// writes of the spec, seen by its fingerprint), and the user's labels
// exactly.

// egSecretPaths name fields Konnect never answers, as dotted paths of the
// body; [] stands for every item of a list.
type egSecretPaths []string

// egDifferences compares an entity with the body its object asks for.
func egDifferences(secrets egSecretPaths) func(desired egBody, actual *egBody) []string {
	return func(desired egBody, actual *egBody) []string {
		want := secrets.without(desired)
		var d diff
		for _, field := range slices.Sorted(maps.Keys(want)) {
			if field == "labels" {
				d.check(field, maps.Equal(egUserLabels(want[field]), egUserLabels((*actual)[field])))
				continue
			}
			d.check(field, egSubset(want[field], (*actual)[field]))
		}
		return d
	}
}

// egSubset reports whether every value that want sets is the same in got:
// objects field by field, lists item by item.
func egSubset(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		for field, value := range w {
			if !egSubset(value, g[field]) {
				return false
			}
		}
		return true
	case []any:
		g, _ := got.([]any)
		if len(w) != len(g) {
			return false
		}
		for i := range w {
			if !egSubset(w[i], g[i]) {
				return false
			}
		}
		return true
	case nil:
		return true
	}
	return reflect.DeepEqual(AsJSON(want), AsJSON(got))
}

// without returns a copy of body without the secret fields.
func (s egSecretPaths) without(body egBody) egBody {
	out, _ := AsJSON(body).(map[string]any)
	for _, path := range s {
		removeBodyPath(out, strings.Split(path, "."))
	}
	return out
}

func removeBodyPath(v any, path []string) {
	if len(path) == 0 {
		return
	}
	segment, list := strings.CutSuffix(path[0], "[]")
	object, _ := v.(map[string]any)
	if object == nil {
		return
	}
	if len(path) == 1 && !list {
		delete(object, segment)
		return
	}
	if !list {
		removeBodyPath(object[segment], path[1:])
		return
	}
	items, _ := object[segment].([]any)
	for _, item := range items {
		if len(path) == 1 {
			continue
		}
		removeBodyPath(item, path[1:])
	}
}

// egUserLabels are the labels of a body that are not the operator's.
func egUserLabels(v any) map[string]string {
	labels := map[string]string{}
	for k, value := range asMapOfAny(v) {
		labels[k] = fmt.Sprint(value)
	}
	return controller.UserLabels(labels)
}

// egLabels are the labels of an entity's body: the user's (the spec's)
// and the object's identity.
func egLabels[L ~string](obj metav1.Object, gvk schemaGVK, cluster string, user map[string]L) map[string]any {
	spec := make(map[string]string, len(user))
	for k, v := range user {
		spec[k] = string(v)
	}
	out := map[string]any{}
	for k, v := range controller.Labels(obj, gvk, cluster, spec) {
		out[k] = v
	}
	return out
}

// egLabelsOf reads the labels of an answer.
func egLabelsOf(a *egBody) map[string]string {
	labels := map[string]string{}
	for k, value := range asMapOfAny((*a)["labels"]) {
		labels[k] = fmt.Sprint(value)
	}
	return labels
}

func asMapOfAny(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
