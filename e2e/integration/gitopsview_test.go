package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/yaml"
)

// How GitOps tools see the operator's objects: kstatus (what Flux, kpt and
// kubectl-style waiters compute) and Argo CD's health checks, the Lua
// scripts that manifests/argocd ships, run by the interpreter Argo CD runs
// them with. Both are handed the objects as the API server serves them.

// The resources the GitOps tests read.
var (
	authConfigs       = schema.GroupVersionResource{Group: "konnect.konghq.com", Version: "v1alpha1", Resource: "konnectapiauthconfigurations"}
	controlPlanes     = schema.GroupVersionResource{Group: "konnect.konghq.com", Version: "v1alpha2", Resource: "konnectgatewaycontrolplanes"}
	networks          = schema.GroupVersionResource{Group: "konnect.konghq.com", Version: "v1alpha1", Resource: "konnectcloudgatewaynetworks"}
	kongServices      = schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1alpha1", Resource: "kongservices"}
	kongRoutes        = schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1alpha1", Resource: "kongroutes"}
	basicAuths        = schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1alpha1", Resource: "kongcredentialbasicauths"}
	kongPlugins       = schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1", Resource: "kongplugins"}
	kongPluginBinding = schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1alpha1", Resource: "kongpluginbindings"}
)

// argoHealthFile is the shipped argocd-cm snippet.
var argoHealthFile = filepath.Join("..", "..", "manifests", "argocd", "argocd-cm-health.yaml")

// argoHealthScripts are the health.lua scripts of the shipped snippet, by
// the API group their resource.customizations key names.
var argoHealthScripts = sync.OnceValues(func() (map[string]string, error) {
	raw, err := os.ReadFile(argoHealthFile)
	if err != nil {
		return nil, err
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		return nil, fmt.Errorf("%s: %w", argoHealthFile, err)
	}
	var entries map[string]struct {
		Health string `json:"health.lua"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["resource.customizations"]), &entries); err != nil {
		return nil, fmt.Errorf("%s: resource.customizations: %w", argoHealthFile, err)
	}
	scripts := map[string]string{}
	for key, entry := range entries {
		group, ok := strings.CutSuffix(key, "/*")
		if !ok || entry.Health == "" {
			return nil, fmt.Errorf("%s: entry %q is not a group/* key with a health.lua", argoHealthFile, key)
		}
		scripts[group] = entry.Health
	}
	return scripts, nil
})

// argoHealth runs the shipped health check of obj's group as Argo CD runs
// it without useOpenLibs, stricter still: not even the base library is
// opened, so a script that called any library function would fail here.
func argoHealth(obj *unstructured.Unstructured) (healthStatus, message string, err error) {
	scripts, err := argoHealthScripts()
	if err != nil {
		return "", "", err
	}
	script, ok := scripts[obj.GroupVersionKind().Group]
	if !ok {
		return "", "", fmt.Errorf("%s has no health check for the group %s", argoHealthFile, obj.GroupVersionKind().Group)
	}
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", luaValue(l, obj.Object))
	if err := l.DoString(script); err != nil {
		return "", "", fmt.Errorf("health.lua of %s: %w", obj.GetName(), err)
	}
	result, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return "", "", fmt.Errorf("health.lua of %s returned %s, not a table", obj.GetName(), l.Get(-1).Type())
	}
	return lua.LVAsString(result.RawGetString("status")), lua.LVAsString(result.RawGetString("message")), nil
}

// luaValue is a JSON value as Argo CD hands it to a script: objects and
// arrays as tables (arrays from 1), numbers as Lua numbers.
func luaValue(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := l.NewTable()
		for key, item := range v {
			t.RawSetString(key, luaValue(l, item))
		}
		return t
	case []any:
		t := l.NewTable()
		for i, item := range v {
			t.RawSetInt(i+1, luaValue(l, item))
		}
		return t
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case json.Number:
		f, _ := v.Float64()
		return lua.LNumber(f)
	}
	return lua.LNil
}

// seen is how the GitOps tools see one object.
type seen struct {
	kstatus           status.Status
	kstatusMessage    string
	argo, argoMessage string
}

func (s seen) String() string {
	return fmt.Sprintf("kstatus %s (%q), Argo CD %s (%q)", s.kstatus, s.kstatusMessage, s.argo, s.argoMessage)
}

func (e *env) dynamicClient() dynamic.Interface {
	return dynamic.NewForConfigOrDie(e.restConfig())
}

// object reads an object of the test's namespace as the API server serves it.
func (e *env) object(r schema.GroupVersionResource, name string) (*unstructured.Unstructured, error) {
	return e.dynamicClient().Resource(r).Namespace(e.ns).Get(e.ctx, name, metav1.GetOptions{})
}

// seenAs computes what kstatus and the shipped Argo CD check make of obj.
func seenAs(obj *unstructured.Unstructured) (seen, error) {
	res, err := status.Compute(obj)
	if err != nil {
		return seen{}, err
	}
	health, message, err := argoHealth(obj)
	if err != nil {
		return seen{}, err
	}
	return seen{kstatus: res.Status, kstatusMessage: res.Message, argo: health, argoMessage: message}, nil
}

// conditionsOf reads the conditions of an object served as unstructured.
func conditionsOf(obj *unstructured.Unstructured) []metav1.Condition {
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	data, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var out []metav1.Condition
	_ = json.Unmarshal(data, &out)
	return out
}

// hasCondition checks obj's condition of the given type: its status and,
// when reason is not "", its reason, for the object's generation.
func hasCondition(obj *unstructured.Unstructured, conditionType string, want metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(conditionsOf(obj), conditionType)
	switch {
	case c == nil:
		return fmt.Errorf("%s has no %s condition", obj.GetName(), conditionType)
	case c.Status != want || reason != "" && c.Reason != reason:
		return fmt.Errorf("%s: %s is %s/%s (%q), want %s/%s", obj.GetName(), conditionType, c.Status, c.Reason, c.Message, want, reason)
	case c.ObservedGeneration != obj.GetGeneration():
		return fmt.Errorf("%s: %s observed generation %d, object is at %d", obj.GetName(), conditionType, c.ObservedGeneration, obj.GetGeneration())
	}
	return nil
}

// gitopsCase is an object in a state the operator puts it in, and what the
// GitOps tools must see of it.
type gitopsCase struct {
	what     string
	resource schema.GroupVersionResource
	name     string
	// state checks that the object is in the state (its Programmed
	// reason, mostly): the tools are asked only then.
	state   func(*unstructured.Unstructured) error
	kstatus status.Status
	argo    string
}

// seesAs waits until each case's object is in its state, and checks there
// and then what kstatus and Argo CD make of it.
func (e *env) seesAs(cases ...gitopsCase) {
	e.t.Helper()
	for _, c := range cases {
		obj := waitObject(e, c.what, func() (*unstructured.Unstructured, error) { return e.object(c.resource, c.name) }, c.state)
		got, err := seenAs(obj)
		if err != nil {
			e.t.Fatalf("%s: %v", c.what, err)
		}
		if got.kstatus != c.kstatus || got.argo != c.argo {
			e.t.Errorf("%s: %s, want kstatus %s and Argo CD %s\nconditions: %+v", c.what, got, c.kstatus, c.argo, conditionsOf(obj))
		}
	}
}

// programmedIs is a state: Programmed with the given status and reason.
func programmedIs(want metav1.ConditionStatus, reason string) func(*unstructured.Unstructured) error {
	return func(obj *unstructured.Unstructured) error {
		return hasCondition(obj, "Programmed", want, reason)
	}
}

// isProgrammed is the state of an object Programmed for its generation.
func isProgrammed(obj *unstructured.Unstructured) error {
	c := meta.FindStatusCondition(conditionsOf(obj), "Programmed")
	if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != obj.GetGeneration() {
		return fmt.Errorf("%s is not Programmed for generation %d: %+v", obj.GetName(), obj.GetGeneration(), c)
	}
	return nil
}

// setAnnotation sets (or, with value "", removes) an annotation of an object.
func (e *env) setAnnotation(r schema.GroupVersionResource, name, key, value string) {
	e.t.Helper()
	var v any
	if value != "" {
		v = value
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: v}}})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.dynamicClient().Resource(r).Namespace(e.ns).Patch(e.ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// deleteObject deletes an object of the test's namespace, without waiting.
func (e *env) deleteObject(r schema.GroupVersionResource, name string) {
	e.t.Helper()
	if err := e.dynamicClient().Resource(r).Namespace(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
}
