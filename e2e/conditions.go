package e2e

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// readyCondition is the condition that says an object of kind is done.
func readyCondition(kind string) string {
	if kind == "KonnectAPIAuthConfiguration" {
		return "APIAuthValid"
	}
	return "Programmed"
}

// conditionsOf returns status.conditions by type.
func conditionsOf(obj *unstructured.Unstructured) map[string]map[string]string {
	out := map[string]map[string]string{}
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		cond := map[string]string{}
		for k, v := range m {
			cond[k] = fmt.Sprint(v)
		}
		out[cond["type"]] = cond
	}
	return out
}
