package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// adoptingEntry compares the objects of a kind with spec.adopt through
// the kind's own Adoption.Inspect.
type adoptingEntry[T controller.Entity, D any] struct {
	kind controller.Kind[T, D]
	// secret names the fields whose values are secret in every object of
	// the kind (passwords, private keys), which Konnect never answers or
	// answers only as it keeps them.
	secret []string
	// hidden, when set, names further fields of obj whose values are
	// secret; "*" hides every field.
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
	hidden := e.secret
	if e.hidden != nil {
		hidden = slices.Concat(hidden, e.hidden(typed))
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
	case obj.GetDeletionTimestamp() != nil:
		return res, desired, Comparison{State: StateNotCompared, Message: "being deleted"}, true
	}
	res, err := kind.Resolve(ctx, obj, controller.ForSync)
	if err == nil && !res.Ready {
		err = errors.New(falseMessages(res.Conditions))
	}
	if err == nil {
		desired, err = kind.Desired(ctx, obj, res.Placement)
	}
	if err != nil {
		return res, desired, Comparison{State: StateUnresolved, Message: "the operator would not write it: " + err.Error()}, true
	}
	return res, desired, Comparison{}, false
}

// falseMessages joins the messages of the False conditions: why a
// resolution is not Ready.
func falseMessages(conditions []metav1.Condition) string {
	var messages []string
	for _, c := range conditions {
		if c.Status == metav1.ConditionFalse && c.Message != "" {
			messages = append(messages, c.Message)
		}
	}
	return strings.Join(messages, "; ")
}

// sameSet reports whether two lists hold the same strings, in any order.
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
