package tree

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Print writes trees as text: for the objects asked for (Of), each with
// why it is not done, what it refers to and what refers to it; for a
// namespace (Forest), each object below the first one it refers to.
func Print(w io.Writer, nodes []*Node, asked bool) error {
	p := &printer{w: w}
	for i, n := range nodes {
		if !asked {
			p.top(n)
			continue
		}
		if i > 0 {
			p.line("")
		}
		p.line(describe(n))
		if n.Cause != "" {
			p.line("  why: " + n.Cause)
		}
		p.section("refers to", n.References, func(n *Node) []*Node { return n.References })
		p.section("referred to by", n.Referrers, referrersOf)
	}
	return p.err
}

// PrintJSON writes trees as JSON, for scripts.
func PrintJSON(w io.Writer, nodes []*Node) error {
	if nodes == nil {
		nodes = []*Node{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(nodes)
}

// printer writes lines, keeping the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(s string) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, s)
	}
}

// section writes one direction of an asked object's neighbours.
func (p *printer) section(title string, nodes []*Node, next func(*Node) []*Node) {
	if len(nodes) == 0 {
		p.line("  " + title + ": nothing")
		return
	}
	p.line("  " + title + ":")
	for i, n := range nodes {
		p.branch(n, "  ", i == len(nodes)-1, next)
	}
}

// branch writes n and, below it, what next gives of it.
func (p *printer) branch(n *Node, indent string, last bool, next func(*Node) []*Node) {
	connector, below := "├── ", "│   "
	if last {
		connector, below = "└── ", "    "
	}
	p.line(indent + connector + describe(n))
	if n.Cause != "" {
		p.line(indent + below + "why: " + n.Cause)
	}
	children := next(n)
	for i, child := range children {
		p.branch(child, indent+below, i == len(children)-1, next)
	}
}

// top writes one tree of a forest: n, and below it what refers to it.
func (p *printer) top(n *Node) {
	p.line(describe(n))
	if n.Cause != "" {
		p.line("  why: " + n.Cause)
	}
	for i, child := range n.Referrers {
		p.branch(child, "", i == len(n.Referrers)-1, referrersOf)
	}
}

func referrersOf(n *Node) []*Node { return n.Referrers }

// describe is a node's line: what it is, where it stands, its Konnect ID.
func describe(n *Node) string {
	var b strings.Builder
	b.WriteString(n.Kind + " ")
	if n.Namespace != "" {
		b.WriteString(n.Namespace + "/")
	}
	b.WriteString(n.Name)
	switch {
	case n.Missing:
		b.WriteString("  not found")
		return b.String()
	case n.Condition == "":
		b.WriteString("  no status yet")
	case n.Status == "True":
		b.WriteString("  " + n.Condition + "=True")
	default:
		b.WriteString("  " + n.Condition + "=" + n.Status + " (" + n.Reason + ")")
	}
	if n.KonnectID != "" {
		b.WriteString("  id " + n.KonnectID)
	}
	if n.Deleting {
		b.WriteString("  being deleted")
	}
	return b.String()
}
