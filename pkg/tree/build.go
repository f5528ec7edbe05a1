package tree

import (
	"github.com/konnect-operator/konnect-operator/pkg/inventory"
)

// Of returns the trees of the objects asked for: each with the objects it
// refers to, and theirs, up to objects that refer to nothing; and the
// objects that refer to it, and theirs, down. Every object that is not
// done says why (Node.Cause).
func Of(objects *inventory.Objects, selected []inventory.Selected) []*Node {
	g := newGraph(objects)
	var out []*Node
	for _, s := range selected {
		k := keyOf(s.Kind, s.Object)
		n := g.described(k)
		n.References = g.up(k, map[key]bool{k: true})
		n.Referrers = g.down(k, map[key]bool{k: true})
		out = append(out, n)
	}
	return out
}

// Forest returns the objects of namespace as trees: each object below the
// first object it refers to (its control plane, its auth configuration,
// its parent entity: what its kind names first), the objects that refer
// to nothing (or to objects elsewhere, or missing) at the top.
func Forest(objects *inventory.Objects, namespace string) []*Node {
	g := newGraph(objects)
	children := map[key][]key{}
	placed := map[key]bool{}
	var tops []key
	for _, k := range g.order {
		if !g.inNamespace(k, namespace) {
			continue
		}
		placed[k] = true
		refs := g.references[k]
		if len(refs) == 0 {
			tops = append(tops, k)
			continue
		}
		children[refs[0]] = append(children[refs[0]], k)
	}
	for _, k := range sortedKeys(children) {
		if !placed[k] {
			// Elsewhere, or missing: shown at the top for what hangs below.
			tops = append(tops, k)
		}
	}
	var out []*Node
	for _, k := range sortedUnique(tops) {
		if g.shown(k, len(children[k]) > 0) {
			out = append(out, g.below(k, children, map[key]bool{k: true}))
		}
	}
	return out
}

// inNamespace reports whether an object belongs to a namespace's forest:
// it is in the namespace, or it is cluster-scoped and the first object it
// refers to is (a KongVault of the namespace's control plane).
func (g *graph) inNamespace(k key, namespace string) bool {
	if k.namespace != "" {
		return k.namespace == namespace
	}
	refs := g.references[k]
	return len(refs) > 0 && refs[0].namespace == namespace
}

// described is the node of k, with why it is not done (a missing object's
// line says it).
func (g *graph) described(k key) *Node {
	n := g.node(k)
	if !n.done() && !n.Missing {
		n.Cause = g.cause(k)
	}
	return n
}

// up returns the objects k refers to, each with its own, skipping those
// already on the path (a cycle).
func (g *graph) up(k key, path map[key]bool) []*Node {
	var out []*Node
	for _, ref := range g.references[k] {
		if path[ref] {
			continue
		}
		path[ref] = true
		n := g.described(ref)
		n.References = g.up(ref, path)
		delete(path, ref)
		out = append(out, n)
	}
	return out
}

// down returns the objects that refer to k, each with its own referrers.
func (g *graph) down(k key, path map[key]bool) []*Node {
	var out []*Node
	for _, from := range g.referrers[k] {
		if path[from] {
			continue
		}
		path[from] = true
		n := g.described(from)
		n.Referrers = g.down(from, path)
		delete(path, from)
		out = append(out, n)
	}
	return out
}

// below returns k's node with the objects placed below it in a forest.
func (g *graph) below(k key, children map[key][]key, path map[key]bool) *Node {
	n := g.described(k)
	for _, child := range children[k] {
		if path[child] {
			continue
		}
		path[child] = true
		n.Referrers = append(n.Referrers, g.below(child, children, path))
		delete(path, child)
	}
	return n
}
