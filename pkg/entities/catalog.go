package entities

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// A Catalog compares objects with their Konnect entities the way the
// operator does, without running controllers: every kind is built over
// caches filled from a list of the cluster's objects (NewCatalog), and
// each object's references are resolved, its entity's body built and read
// back, and the two compared with the kind's own adoption comparison. It is
// what kubectl konnect diff runs, and how tests check that what kubectl
// konnect export writes adopts without a difference.

// ComparisonState says how an object and its Konnect entity compare.
type ComparisonState string

const (
	// StateEqual: Konnect holds what the object asks for.
	StateEqual ComparisonState = "Equal"
	// StateDiffers: some fields differ (Comparison.Fields).
	StateDiffers ComparisonState = "Differs"
	// StateMissing: the object has no entity in Konnect (not created yet,
	// or gone), so the operator would create one.
	StateMissing ComparisonState = "Missing"
	// StateUnresolved: the object's references cannot be used, so the
	// operator would not write anything (Comparison.Message says why).
	StateUnresolved ComparisonState = "Unresolved"
	// StateNotCompared: the operator does not write this object's entity
	// (not its object, being deleted, a mirror), or the kind has no
	// comparison.
	StateNotCompared ComparisonState = "NotCompared"
)

// Comparison is how one object compares with its Konnect entity.
type Comparison struct {
	State ComparisonState
	// ID is the Konnect ID compared with: the status's, or the one
	// spec.adopt names.
	ID string
	// Message explains the states other than Equal and Differs, and notes
	// what else the operator would find (another object's k8s-uid tag).
	Message string
	// Fields are the fields that differ, by their Konnect names.
	Fields []FieldDifference
}

// FieldDifference is one field in which Konnect differs from what the
// operator would write.
type FieldDifference struct {
	// Field is the Konnect field name.
	Field string
	// Cluster and Konnect are the two values as compact JSON, "" when the
	// side leaves the field unset or the kind cannot show it.
	Cluster, Konnect string
	// Hidden says that the values are secret material (from a Secret, a
	// key or a credential) and are not given.
	Hidden bool
}

// Catalog compares objects of every kind the operator reconciles into
// Konnect with their entities.
type Catalog struct {
	entries []comparer
	refs    *Refs
	// validating sets refs' Validations from the first Compare's clients.
	validating sync.Once
}

// comparer compares the objects of one kind, and lists their references;
// handled is false for objects of other kinds.
type comparer interface {
	compare(ctx context.Context, clients controller.ClientSource, obj runtime.Object) (c Comparison, handled bool, err error)
	// references lists what obj refers to (References).
	references(obj runtime.Object) (refs []controller.Reference, handled bool)
}

// Compare compares obj, one of the objects the catalog was made from or
// one like them, with its entity in Konnect, read through clients. It
// reads only.
//
// A token is used as the operator uses it: proven valid with Konnect (GET
// /v3/organizations/me, once per auth configuration) before anything else
// is sent with it, when clients can ask (an OrganizationSource, as
// konnect.ClientFactory is); a Secret of another namespace only under a
// KongReferenceGrant, and the servers clients allow.
func (c *Catalog) Compare(ctx context.Context, clients controller.ClientSource, obj runtime.Object) (Comparison, error) {
	c.validating.Do(func() {
		if org, ok := clients.(OrganizationSource); ok && c.refs != nil {
			c.refs.Validations = &Validations{Konnect: org}
		}
	})
	for _, entry := range c.entries {
		if cmp, handled, err := entry.compare(ctx, clients, obj); handled {
			return cmp, err
		}
	}
	return Comparison{State: StateNotCompared, Message: fmt.Sprintf("%T is not a kind the operator writes to Konnect", obj)}, nil
}

// adoptingEntry compares the objects of a kind with spec.adopt through
// the kind's own Adoption.Inspect.
type adoptingEntry[T controller.Entity, D any] struct {
	kind controller.Kind[T, D]
	// hidden names the fields of obj whose values are secret; "*" hides
	// every field.
	hidden func(obj T) []string
	// extra names further fields that differ, which adoption does not
	// compare but later writes would change.
	extra func(desired D, actual any) []string
	// values, when set, gives the two values of a field where the JSON of
	// the desired entity and of Inspection.Actual do not.
	values func(field string, desired D, actual any) (cluster, inKonnect any, ok bool)
}

func (e adoptingEntry[T, D]) compare(ctx context.Context, clients controller.ClientSource, obj runtime.Object) (Comparison, bool, error) {
	typed, ok := obj.(T)
	if !ok {
		return Comparison{}, false, nil
	}
	copied := typed.DeepCopyObject().(T)
	res, desired, cmp, done := prepare(ctx, e.kind, copied)
	if done {
		return cmp, true, nil
	}
	id := copied.KonnectStatus(false).GetKonnectID()
	adopting := false
	if id == "" && e.kind.Adopt != nil {
		if opts := e.kind.Adopt.Options(copied); opts != nil && opts.Konnect != nil {
			id, adopting = opts.Konnect.ID, true
		}
	}
	if id == "" {
		return Comparison{State: StateMissing, Message: "not in Konnect yet: the operator would create it"}, true, nil
	}
	inspect := e.kind.Inspector()
	if inspect == nil {
		return Comparison{State: StateNotCompared, ID: id, Message: e.kind.KindName() + " has no comparison"}, true, nil
	}
	api, err := clients.API(res.Placement.Auth.ServerURL, res.Placement.Auth.Token)
	if err != nil {
		return Comparison{}, true, err
	}
	found, err := inspect(ctx, api, copied, res.Placement, id, desired)
	switch {
	case konnect.IsNotFound(err) && adopting:
		return Comparison{State: StateMissing, ID: id, Message: fmt.Sprintf("spec.adopt names %s, which Konnect does not have: adopting it would fail", id)}, true, nil
	case konnect.IsNotFound(err):
		return Comparison{State: StateMissing, ID: id, Message: fmt.Sprintf("%s is gone from Konnect: the operator would create it again", id)}, true, nil
	case err != nil:
		return Comparison{}, true, err
	}
	out := Comparison{State: StateEqual, ID: id}
	if found.UID != "" && found.UID != string(copied.GetUID()) {
		out.Message = fmt.Sprintf("the entity carries the k8s-uid tag of another object (%s)", found.UID)
	}
	names := slices.Concat(found.Differences, found.Incompatibilities)
	if e.extra != nil {
		names = append(names, e.extra(desired, found.Actual)...)
	}
	if found.Actual != nil && !sameSet(controller.UserTags(tagsIn(desired)), controller.UserTags(tagsIn(found.Actual))) {
		names = append(names, "tags")
	}
	slices.Sort(names)
	hidden := []string{}
	if e.hidden != nil {
		hidden = e.hidden(typed)
	}
	for _, name := range slices.Compact(names) {
		field := FieldDifference{Field: name, Hidden: slices.Contains(hidden, "*") || slices.Contains(hidden, name)}
		if !field.Hidden {
			field.Cluster, field.Konnect = e.valuesOf(name, desired, found.Actual)
		}
		out.Fields = append(out.Fields, field)
	}
	if len(out.Fields) > 0 {
		out.State = StateDiffers
	}
	return out, true, nil
}

func (e adoptingEntry[T, D]) valuesOf(field string, desired D, actual any) (string, string) {
	if e.values != nil {
		if cluster, inKonnect, ok := e.values(field, desired, actual); ok {
			return compactJSON(cluster), compactJSON(inKonnect)
		}
	}
	if field == "tags" {
		return compactJSON(controller.UserTags(tagsIn(desired))), compactJSON(controller.UserTags(tagsIn(actual)))
	}
	return compactJSON(fieldOf(desired, field)), compactJSON(fieldOf(actual, field))
}

// prepare resolves obj (a copy) and builds its desired entity, or says why
// the operator would not write it (done).
func prepare[T controller.Entity, D any](ctx context.Context, kind controller.Kind[T, D], obj T) (res controller.Resolution, desired D, cmp Comparison, done bool) {
	switch {
	case !kind.IsManaged(obj):
		return res, desired, Comparison{State: StateNotCompared, Message: "not reconciled by the operator (its control plane is not a konnectNamespacedRef)"}, true
	case isBeingDeleted(obj):
		return res, desired, Comparison{State: StateNotCompared, Message: "being deleted"}, true
	}
	res, err := kind.Resolve(ctx, obj, controller.ForSync)
	if err == nil && !res.Ready {
		err = fmt.Errorf("%s", falseMessages(res.Conditions))
	}
	if err == nil {
		desired, err = kind.Desired(ctx, obj, res.Placement)
	}
	if err != nil {
		return res, desired, Comparison{State: StateUnresolved, Message: "the operator would not write it: " + err.Error()}, true
	}
	return res, desired, Comparison{}, false
}

// asJSON is v as JSON values: a map for an object.
func asJSON(v any) any {
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

// fieldOf finds a field by its JSON name in v, or in one of v's objects
// (an entity wrapped with what else decides it, such as a consumer with its
// groups).
func fieldOf(v any, field string) any {
	object, ok := asJSON(v).(map[string]any)
	if !ok {
		return nil
	}
	if value, ok := object[field]; ok {
		return value
	}
	for _, nested := range object {
		if inner, ok := nested.(map[string]any); ok {
			if value, ok := inner[field]; ok {
				return value
			}
		}
	}
	return nil
}

// tagsIn reads the tags of an entity, wherever fieldOf finds them.
func tagsIn(v any) []string {
	list, _ := fieldOf(v, "tags").([]any)
	out := make([]string, 0, len(list))
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// compactJSON renders a value for a diff: "" for an unset one, long text
// cut short.
func compactJSON(v any) string {
	if v == nil {
		return ""
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if string(raw) == "null" {
		return ""
	}
	const limit = 200
	if s := string(raw); len(s) > limit {
		return s[:limit] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return strings.TrimSpace(string(raw))
}
