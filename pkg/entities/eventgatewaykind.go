package entities

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// egKind describes an Event Gateway kind whose entity is its object's
// apiSpec as Konnect's API writes it (see egEncoder): where it lives, its
// calls, the spec, what Konnect never answers, and whether it carries
// labels (every entity but a data-plane certificate), by which an entity
// whose object lost its ID is found again.
type egKind[T egEntity] struct {
	gvk    schema.GroupVersionKind
	placed placed[T]
	calls  apiCalls[egBody, egBody]
	// spec returns the apiSpec.
	spec    func(T) any
	secrets egSecretPaths
	// unlabelled kinds are found again by key instead (the body's field
	// of that name).
	unlabelled bool
	key        string
	// complete, when set, adds to the body what the object names
	// outside its apiSpec (a virtual cluster's backend cluster).
	complete func(obj T, body egBody) error
	// schemaRegistry, when set, is how Konnect names the schema registry
	// an object names.
	schemaRegistry func(obj T, ref egSchemaRegistryBy) (any, error)
	usedBy         []string
}

// kind is the description the generic loop runs on.
func (k egKind[T]) kind(refs *Refs) controller.Kind[T, egBody] {
	a := apiKind[T, egBody, egBody]{
		gvk: k.gvk, placed: k.placed, calls: k.calls,
		desired:     func(obj T, p controller.Placement) (egBody, error) { return k.desired(refs, obj, p) },
		differences: egDifferences(k.secrets),
		usedBy:      k.usedBy,
	}
	if k.unlabelled {
		a.key = func(d egBody) string { return fmt.Sprint(d[k.key]) }
		a.keyOf = func(a *egBody) string { return fmt.Sprint((*a)[k.key]) }
	} else {
		a.labels = egLabelsOf
	}
	return a.kind()
}

// desired is the body obj asks for, its identity labels included.
func (k egKind[T]) desired(refs *Refs, obj T, p controller.Placement) (egBody, error) {
	encoder := refs.egEncoderOf(egReferrer(k.gvk.Kind, obj))
	if k.schemaRegistry != nil {
		encoder.schemaRegistry = func(ref egSchemaRegistryBy) (any, error) { return k.schemaRegistry(obj, ref) }
	}
	body, err := encoder.body(k.spec(obj))
	if err != nil {
		return nil, err
	}
	if k.complete != nil {
		if err := k.complete(obj, body); err != nil {
			return nil, err
		}
	}
	if !k.unlabelled {
		user := map[string]string{}
		for key, v := range asMapOfAny(body["labels"]) {
			user[key] = fmt.Sprint(v)
		}
		body["labels"] = egLabels(obj, k.gvk, p.Cluster, user)
	}
	return body, nil
}
