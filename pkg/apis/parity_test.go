// The Kong Operator parity test: Kong Operator's own CRD validation cases
// (its test/crdsvalidation suites, for the kinds and versions served here),
// written down as data in testdata/kongoperator/<kind>.yaml and run against
// this project's CRDs in the real API server. A manifest written for Kong
// Operator must meet the same decision here (accepted or refused, on create
// and on update) and, when refused, the same message: scripts and alerts
// match those strings.
//
// Each file holds a base object and cases; a case merge-patches the base
// (RFC 7386: null removes a field; {} sets an empty object), may write a
// status (to make the object Programmed) and may merge-patch the stored
// object as an update. Kong Operator's cases build typed Go objects, whose
// fields without omitempty reach the API server as zero values ("host": "");
// every object sent here goes through this project's own Go types, whose
// JSON tags are Kong Operator's, so that it reads the same on the wire. "refused"
// and "updateRefused" hold the part of Kong Operator's error that must
// appear; without them the step must be accepted. "suites" expands Kong
// Operator's shared control-plane reference suites for the kind.
//
// Every case must agree. A case whose difference is deliberate says why in
// "differs"; it is counted, logged and not failed.
package apis

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned/scheme"
)

// parityDir holds the cases, one file per kind; loadTestdata skips it.
const parityDir = "kongoperator"

// parityFile is one testdata/kongoperator/<kind>.yaml.
type parityFile struct {
	// Source names the Kong Operator test the cases come from.
	Source string         `json:"source"`
	Base   map[string]any `json:"base"`
	Suites paritySuites   `json:"suites"`
	Cases  []parityCase   `json:"cases"`
}

// paritySuites selects Kong Operator's shared suites for the kind.
type paritySuites struct {
	// ControlPlaneRef runs the control-plane reference suite.
	ControlPlaneRef *struct {
		// KIC: the kind accepts a kic control plane (and no reference).
		KIC bool `json:"kic"`
		// Required: a missing controlPlaneRef is refused by the schema.
		Required bool `json:"required"`
		// NamespaceAllowed: konnectNamespacedRef.namespace is accepted.
		NamespaceAllowed bool `json:"namespaceAllowed"`
		// ClusterScoped kinds skip the namespace case.
		ClusterScoped bool `json:"clusterScoped"`
	} `json:"controlPlaneRef"`
	// Tags runs Kong Operator's tag cases: 20 tags accepted, 21 refused,
	// a tag of 129 characters refused.
	Tags *struct {
		// Patch is what the tag cases set besides spec.tags.
		Patch map[string]any `json:"patch"`
		// NoMaxItems: the kind's tag cases do not include the 20/21 cases.
		NoMaxItems bool `json:"noMaxItems"`
	} `json:"tags"`
	// KICUnsupported runs the suite for kinds that refuse type kic.
	KICUnsupported *struct {
		// EmptyAllowed: an object without controlPlaneRef is accepted.
		EmptyAllowed bool `json:"emptyAllowed"`
	} `json:"kicUnsupported"`
	// ParentRef runs the suite of kinds whose spec names their parent with
	// an ObjectRef (portalRef, controlPlaneRef): it may change until the
	// object is Programmed.
	ParentRef *struct {
		// Field is the reference's field of spec.
		Field string `json:"field"`
	} `json:"parentRef"`
}

// parityCase is one Kong Operator test case.
type parityCase struct {
	Name          string         `json:"name"`
	Patch         map[string]any `json:"patch"`
	Status        map[string]any `json:"status"`
	Update        map[string]any `json:"update"`
	Refused       string         `json:"refused"`
	UpdateRefused string         `json:"updateRefused"`
	// Differs explains a deliberate difference from Kong Operator.
	Differs string `json:"differs"`
	// Raw sends the object as written, not through the Go type: for a
	// field Kong Operator's type omits when empty and this project's sends.
	Raw bool `json:"raw"`
}

// parityOutcome classifies one case.
type parityOutcome int

const (
	parityAgrees parityOutcome = iota
	// parityDiffersInMessage: both refuse, with another message.
	parityDiffersInMessage
	// parityDiffersInDecision: one accepts what the other refuses.
	parityDiffersInDecision
)

// TestKongOperatorParity runs every case of testdata/kongoperator and logs
// how many agree with Kong Operator, differ in decision and differ only in
// message (go test -v shows the figures).
func TestKongOperatorParity(t *testing.T) {
	e := newEnv(t)
	files, err := filepath.Glob(filepath.Join(testdataDir, parityDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Kong Operator cases in %s: %v", filepath.Join(testdataDir, parityDir), err)
	}
	var (
		mu       sync.Mutex
		counts   [3]int
		excusals []string
	)
	// record counts a case and fails it unless it agrees or says why not;
	// an excuse for a case that agrees again fails too, so excuses do not
	// outlive their reason.
	record := func(t *testing.T, name string, c parityCase, outcome parityOutcome, detail string) {
		mu.Lock()
		defer mu.Unlock()
		counts[outcome]++
		switch {
		case outcome == parityAgrees && c.Differs != "":
			t.Errorf("agrees with Kong Operator now: drop its differs (%s)", c.Differs)
		case outcome == parityAgrees:
		case c.Differs != "":
			excusals = append(excusals, name+": "+detail+" ("+c.Differs+")")
		default:
			t.Error(detail)
		}
	}
	t.Run("cases", func(t *testing.T) {
		for _, path := range files {
			file, err := readParityFile(path)
			if err != nil {
				t.Fatal(err)
			}
			kind := strings.TrimSuffix(filepath.Base(path), ".yaml")
			t.Run(kind, func(t *testing.T) {
				for _, c := range file.expand() {
					t.Run(c.Name, func(t *testing.T) {
						t.Parallel()
						outcome, detail := runParityCase(t, e, file.Base, c)
						record(t, kind+"/"+c.Name, c, outcome, detail)
					})
				}
			})
		}
	})
	total := counts[0] + counts[1] + counts[2]
	slices.Sort(excusals)
	for _, excusal := range excusals {
		t.Logf("deliberate difference: %s", excusal)
	}
	t.Logf("Kong Operator parity: %d cases run: %d agree, %d differ in decision, %d differ only in message",
		total, counts[parityAgrees], counts[parityDiffersInDecision], counts[parityDiffersInMessage])
}

func readParityFile(path string) (*parityFile, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	file := &parityFile{}
	if err := yaml.UnmarshalStrict(content, file); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if file.Base == nil || len(file.Cases)+countSuites(file.Suites) == 0 {
		return nil, fmt.Errorf("%s: a base and cases are required", path)
	}
	seen := map[string]bool{}
	for _, c := range file.expand() {
		if seen[c.Name] {
			return nil, fmt.Errorf("%s: two cases named %q", path, c.Name)
		}
		seen[c.Name] = true
	}
	return file, nil
}

func countSuites(s paritySuites) int {
	n := 0
	if s.ControlPlaneRef != nil {
		n++
	}
	if s.KICUnsupported != nil {
		n++
	}
	if s.Tags != nil {
		n++
	}
	if s.ParentRef != nil {
		n++
	}
	return n
}

// runParityCase creates the case's object, writes its status and sends its
// update, comparing each step with what Kong Operator decides.
func runParityCase(t *testing.T, e *env, base map[string]any, c parityCase) (parityOutcome, string) {
	doc := &unstructured.Unstructured{Object: mergePatch(deepCopyJSON(base), c.Patch)}
	if !c.Raw {
		doc.Object = asTyped(t, doc.Object)
	}
	s := e.newScope(t)
	withoutStatus := doc.DeepCopy()
	delete(withoutStatus.Object, "status")
	_, stored, err := e.create(t.Context(), t, withoutStatus, s)
	if outcome, detail, done := compareStep("create", err, c.Refused); done {
		return outcome, detail
	}
	if c.Status != nil {
		stored.Object["status"] = deepCopyJSON(c.Status)
		stored.Object = asTyped(t, stored.Object)
		_, resource, err := e.place(stored, s)
		if err != nil {
			t.Fatal(err)
		}
		if stored, err = resource.UpdateStatus(t.Context(), stored, metav1.UpdateOptions{FieldValidation: strict}); err != nil {
			return parityDiffersInDecision, fmt.Sprintf("the status Kong Operator writes was refused: %v", err)
		}
	}
	if c.Update == nil {
		if c.UpdateRefused != "" {
			t.Fatal("updateRefused without an update")
		}
		return parityAgrees, ""
	}
	updated := &unstructured.Unstructured{Object: asTyped(t, mergePatch(deepCopyJSON(stored.Object), c.Update))}
	_, resource, err := e.place(updated, s)
	if err != nil {
		t.Fatal(err)
	}
	// place renames cluster-scoped objects; the stored name is already placed.
	updated.SetName(stored.GetName())
	_, err = resource.Update(t.Context(), updated, metav1.UpdateOptions{FieldValidation: strict})
	outcome, detail, _ := compareStep("update", err, c.UpdateRefused)
	return outcome, detail
}

// compareStep compares the API server's answer to one step with Kong
// Operator's. done is true when the case ends here: a refusal (expected or
// not) or a difference.
func compareStep(step string, err error, refused string) (outcome parityOutcome, detail string, done bool) {
	switch {
	case refused == "" && err != nil:
		return parityDiffersInDecision, fmt.Sprintf("%s refused, Kong Operator accepts: %v", step, err), true
	case refused != "" && err == nil:
		return parityDiffersInDecision, fmt.Sprintf("%s accepted, Kong Operator refuses with %q", step, refused), true
	case refused != "" && !strings.Contains(err.Error(), refused):
		return parityDiffersInMessage, fmt.Sprintf("%s refused with %q, Kong Operator's message is %q", step, err.Error(), refused), true
	case refused != "":
		return parityAgrees, "", true
	}
	return parityAgrees, "", false
}

// asTyped returns obj as its Go type writes it: fields unknown to the type
// dropped, zero values of fields without omitempty added.
func asTyped(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	typed, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		t.Fatalf("no Go type for %s: %v", u.GroupVersionKind(), err)
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, typed); err != nil {
		t.Fatalf("%s does not decode into its Go type: %v", u.GroupVersionKind(), err)
	}
	if raw, err = json.Marshal(typed); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	// The Go types leave apiVersion and kind to the scheme.
	out["apiVersion"], out["kind"] = obj["apiVersion"], obj["kind"]
	return out
}

// mergePatch applies an RFC 7386 JSON merge patch to target.
func mergePatch(target, patch map[string]any) map[string]any {
	for key, value := range patch {
		if value == nil {
			delete(target, key)
			continue
		}
		patchObject, isObject := value.(map[string]any)
		targetObject, targetIsObject := target[key].(map[string]any)
		// Unlike RFC 7386, an empty object sets the field to an empty object:
		// Kong Operator's cases send such values ("controlPlaneRef: {}").
		if isObject && len(patchObject) == 0 {
			target[key] = map[string]any{}
			continue
		}
		if isObject && targetIsObject {
			target[key] = mergePatch(targetObject, patchObject)
			continue
		}
		if isObject {
			target[key] = mergePatch(map[string]any{}, patchObject)
			continue
		}
		target[key] = deepCopyJSONValue(value)
	}
	return target
}

func deepCopyJSON(obj map[string]any) map[string]any {
	if obj == nil {
		return map[string]any{}
	}
	return deepCopyJSONValue(obj).(map[string]any)
}

func deepCopyJSONValue(value any) any {
	raw, err := json.Marshal(value)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return out
}
