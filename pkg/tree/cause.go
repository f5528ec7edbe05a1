package tree

import (
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/inventory"
)

// cause says, in one line, why the object k is not done: the chain of
// references it waits for, each the first of its object's references that
// is not done, down to the one that keeps them all back and that one's own
// reason. "KongRoute orders waits for KongService orders, which waits for
// KonnectGatewayControlPlane prod, which waits for
// KonnectAPIAuthConfiguration konnect: Konnect rejected the token: …".
func (g *graph) cause(k key) string {
	chain := []*Node{g.node(k)}
	keys := []key{k}
	seen := map[key]bool{k: true}
	for {
		last := chain[len(chain)-1]
		if !waitsForReferences(last) {
			break
		}
		next, ok := g.firstNotDone(keys[len(keys)-1], seen)
		if !ok {
			break
		}
		seen[next] = true
		keys = append(keys, next)
		chain = append(chain, g.node(next))
	}
	var b strings.Builder
	first := chain[0]
	b.WriteString(first.Kind + " " + first.Name)
	for i, n := range chain[1:] {
		if i == 0 {
			b.WriteString(" waits for ")
		} else {
			b.WriteString(", which waits for ")
		}
		b.WriteString(n.Kind + " " + nameFrom(first.Namespace, n))
	}
	b.WriteString(ending(chain[len(chain)-1], len(chain) == 1))
	return b.String()
}

// waitsForReferences reports whether a node's own verdict points at its
// references: Programmed=False with a reason that says so, or no verdict
// yet (the operator may be waiting for them quietly).
func waitsForReferences(n *Node) bool {
	switch {
	case n.Missing || n.Deleting:
		return false
	case n.Status == string(metav1.ConditionFalse):
		return controller.IsReferenceReason(n.Reason)
	}
	return n.Status != string(metav1.ConditionTrue)
}

// firstNotDone returns the first reference of k, in its kind's order, that
// is missing or not done.
func (g *graph) firstNotDone(k key, seen map[key]bool) (key, bool) {
	for _, ref := range g.references[k] {
		if !seen[ref] && !g.node(ref).done() {
			return ref, true
		}
	}
	return key{}, false
}

// ending says what keeps the last object of a chain back; alone, the chain is
// the object itself.
func ending(n *Node, alone bool) string {
	which := ", which "
	if alone {
		which = " "
	}
	switch {
	case n.Missing:
		return which + "does not exist"
	case n.Deleting && n.Message != "" && n.Status != string(metav1.ConditionTrue):
		return which + "is being deleted: " + n.Message
	case n.Deleting:
		return which + "is being deleted"
	case n.Status == "" || n.Reason == commonv1alpha1.ReasonPending:
		if alone {
			return ": the operator has not reported on it yet"
		}
		return which + "the operator has not reported on yet"
	case n.Message != "":
		return ": " + n.Message
	}
	return ": " + n.Reason
}

// nameFrom names n as seen from an object in namespace: by name alone in
// the same namespace.
func nameFrom(namespace string, n *Node) string {
	if n.Namespace == "" || n.Namespace == namespace {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// keyOf is the key of an object read, of the given kind.
func keyOf(kind inventory.Kind, obj runtime.Object) key {
	m := obj.(metav1.Object)
	return key{kind.Name, m.GetNamespace(), m.GetName()}
}

func sortedKeys[V any](m map[key]V) []key {
	out := slices.Collect(maps.Keys(m))
	slices.SortFunc(out, compareKeys)
	return out
}

func sortedUnique(keys []key) []key {
	out := slices.Clone(keys)
	slices.SortFunc(out, compareKeys)
	return slices.Compact(out)
}
