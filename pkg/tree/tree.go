// Package tree shows where the operator's objects stand and why, as
// kubectl konnect status prints it: each object with the objects it refers
// to and those that refer to it, its Programmed state, its Konnect ID and,
// when it is not Programmed, the first cause in one line. It reads what
// was read from the cluster only, never Konnect, and takes the references
// from the kinds' own descriptions (catalog.Catalog).
package tree

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/catalog"
	"github.com/konnect-operator/konnect-operator/pkg/inventory"
)

// Node is one object of a tree, as -o json prints it.
type Node struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Missing: an object refers to this one, which does not exist.
	Missing bool `json:"missing,omitempty"`
	// Deleting: the object is being deleted.
	Deleting bool `json:"deleting,omitempty"`
	// Condition is the condition that says whether the object is done
	// (Programmed; APIAuthValid for an auth configuration), with its
	// status, reason and message; "" before the operator reported on it.
	Condition string `json:"condition,omitempty"`
	Status    string `json:"status,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Message   string `json:"message,omitempty"`
	// KonnectID is the ID of the object's entity in Konnect.
	KonnectID string `json:"konnectID,omitempty"`
	// Cause says, for an object that is not done, why, in one line: the
	// references it waits for, down to the one that keeps it back, and that
	// one's own reason.
	Cause string `json:"cause,omitempty"`
	// References are the objects it refers to; Referrers those that refer
	// to it (in a namespace's forest: those shown below it).
	References []*Node `json:"references,omitempty"`
	Referrers  []*Node `json:"referrers,omitempty"`
}

// verdictConditions are the conditions that say whether an object is
// done, the first one an object carries: Programmed, which every Konnect
// entity has, and APIAuthValid, which an auth configuration has instead.
var verdictConditions = []string{commonv1alpha1.ConditionProgrammed, commonv1alpha1.ConditionAPIAuthValid}

// key names an object in the graph.
type key struct{ kind, namespace, name string }

// graph is every object read, with what each refers to and what refers
// to it.
type graph struct {
	objects    map[key]runtime.Object
	references map[key][]key
	referrers  map[key][]key
	// order is the objects' keys in the order they were read.
	order []key
}

// newGraph links the objects read through their kinds' dependencies, as
// the catalog built from them describes them. References to objects of
// kinds kubectl konnect does not read (Secrets) are left out.
func newGraph(objects *inventory.Objects) *graph {
	kinds := catalog.NewCatalog(objects.All())
	g := &graph{objects: map[key]runtime.Object{}, references: map[key][]key{}, referrers: map[key][]key{}}
	for _, obj := range objects.All() {
		kind, ok := objects.KindOf(obj)
		if !ok {
			continue
		}
		m := obj.(metav1.Object)
		k := key{kind.Name, m.GetNamespace(), m.GetName()}
		g.objects[k] = obj
		g.order = append(g.order, k)
	}
	slices.SortFunc(g.order, compareKeys)
	for _, from := range g.order {
		for _, ref := range kinds.References(g.objects[from]) {
			kind, ok := inventory.KindOfResource(ref.Resource.Resource)
			if !ok {
				continue
			}
			to := key{kind.Name, ref.Namespace, ref.Name}
			if slices.Contains(g.references[from], to) {
				continue
			}
			g.references[from] = append(g.references[from], to)
			g.referrers[to] = append(g.referrers[to], from)
		}
	}
	return g
}

func compareKeys(a, b key) int {
	return strings.Compare(a.kind+"\x00"+a.namespace+"\x00"+a.name, b.kind+"\x00"+b.namespace+"\x00"+b.name)
}

// node describes one object, without its neighbours.
func (g *graph) node(k key) *Node {
	n := &Node{Kind: k.kind, Namespace: k.namespace, Name: k.name}
	obj, ok := g.objects[k]
	if !ok {
		n.Missing = true
		return n
	}
	m := obj.(metav1.Object)
	n.Deleting = m.GetDeletionTimestamp() != nil
	if withID, ok := obj.(interface {
		KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus
	}); ok {
		n.KonnectID = withID.KonnectStatus(false).GetKonnectID()
	}
	if c := verdictOf(obj); c != nil {
		n.Condition, n.Status, n.Reason, n.Message = c.Type, string(c.Status), c.Reason, c.Message
		if c.ObservedGeneration != m.GetGeneration() && c.Status == metav1.ConditionTrue {
			// True for an older spec: not done with this one.
			n.Status = string(metav1.ConditionUnknown)
			n.Reason, n.Message = commonv1alpha1.ReasonPending, "the operator has not reported on the current spec yet"
		}
	}
	return n
}

// verdictOf returns the condition that says whether obj is done.
func verdictOf(obj runtime.Object) *metav1.Condition {
	withConditions, ok := obj.(interface{ GetConditions() []metav1.Condition })
	if !ok {
		return nil
	}
	for _, t := range verdictConditions {
		if c := meta.FindStatusCondition(withConditions.GetConditions(), t); c != nil {
			return c
		}
	}
	return nil
}

// done reports whether the node is what its spec asks for: Programmed
// (or valid) for its generation, and not being deleted; or, for a kind the
// operator does not report on (a KongPlugin), there.
func (n *Node) done() bool {
	if n.Missing || n.Deleting {
		return false
	}
	if kind, ok := inventory.KindNamed(n.Kind); ok && !kind.ReportedOn() {
		return true
	}
	return n.Status == string(metav1.ConditionTrue)
}

// shown reports whether a namespace's forest shows the object on its own:
// objects of the kinds the operator reports on, and those that others hang
// below.
func (g *graph) shown(k key, hasChildren bool) bool {
	if hasChildren {
		return true
	}
	_, found := g.objects[k]
	kind, ok := inventory.KindNamed(k.kind)
	return found && ok && kind.ReportedOn()
}
