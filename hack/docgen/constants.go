package main

import (
	"cmp"
	"go/ast"
	"go/doc"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
)

// namedConstant is one exported string constant and its doc comment (its
// own, else its group's).
type namedConstant struct {
	pkg, name, value, doc string
}

// constantKinds are the prefixes of the constants the page lists, in its
// order, with the heading of each.
var constantKinds = []struct{ prefix, heading, intro string }{
	{"Condition", "Condition types", "The conditions the operator writes in `status.conditions`. Every object also carries `Ready`, `Reconciling` and `Stalled` (kstatus's conventions), derived from `Programmed` (`APIAuthValid` on an auth configuration)."},
	{"Reason", "Condition reasons", "The reasons of those conditions. A Warning Event of the same reason comes with a condition that turns False (see [Troubleshooting](../troubleshooting.md))."},
	{"Event", "Event reasons", "The reasons of the Events the operator records (`kubectl get events --field-selector reason=…`)."},
	{"Finalizer", "Finalizers", "The finalizers the operator puts on objects, and what each one keeps."},
	{"Annotation", "Annotations", "The annotations the operator reads."},
	{"Label", "Labels", "The labels the operator reads or writes."},
}

// constants reads the exported string constants of the packages at dirs
// (import path → folder) whose names start with one of constantKinds'
// prefixes, resolving constants defined as other constants (EventX =
// pkg.ReasonX) to their values.
func constants(dirs map[string]string) ([]namedConstant, error) {
	type found struct {
		namedConstant
		expr    ast.Expr
		imports map[string]string
	}
	var all []*found
	byRef := map[string]*found{}
	for importPath, dir := range dirs {
		files, err := parseFiles(dir, false)
		if err != nil {
			return nil, err
		}
		if len(files.files) == 0 {
			continue
		}
		p, err := doc.NewFromFiles(files.fset, files.files, importPath, doc.PreserveAST)
		if err != nil {
			return nil, err
		}
		imports := map[string]map[string]string{}
		for _, f := range files.files {
			m := map[string]string{}
			for _, imp := range f.Imports {
				ip, _ := strconv.Unquote(imp.Path.Value)
				name := path.Base(ip)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				m[name] = ip
			}
			imports[files.fset.Position(f.Pos()).Filename] = m
		}
		groups := append([]*doc.Value(nil), p.Consts...)
		for _, t := range p.Types {
			groups = append(groups, t.Consts...)
		}
		for _, g := range groups {
			fileImports := imports[files.fset.Position(g.Decl.Pos()).Filename]
			for _, spec := range g.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				comment := g.Doc
				if vs.Doc != nil {
					comment = vs.Doc.Text()
				} else if vs.Comment != nil {
					comment = vs.Comment.Text()
				}
				for i, name := range vs.Names {
					if !name.IsExported() || i >= len(vs.Values) {
						continue
					}
					f := &found{
						namedConstant: namedConstant{pkg: importPath, name: name.Name, doc: comment},
						expr:          vs.Values[i],
						imports:       fileImports,
					}
					all = append(all, f)
					byRef[importPath+"."+name.Name] = f
				}
			}
		}
	}
	// value resolves a constant's expression: a string literal, or another
	// constant of the same package or of an imported one.
	var value func(f *found, depth int) (string, bool)
	value = func(f *found, depth int) (string, bool) {
		if depth > 8 {
			return "", false
		}
		switch e := f.expr.(type) {
		case *ast.BasicLit:
			if e.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		case *ast.Ident:
			if other, ok := byRef[f.pkg+"."+e.Name]; ok {
				return value(other, depth+1)
			}
		case *ast.SelectorExpr:
			if x, ok := e.X.(*ast.Ident); ok {
				if other, ok := byRef[f.imports[x.Name]+"."+e.Sel.Name]; ok {
					return value(other, depth+1)
				}
			}
		}
		return "", false
	}
	var out []namedConstant
	for _, f := range all {
		if !hasKindPrefix(f.name) {
			continue
		}
		v, ok := value(f, 0)
		if !ok {
			continue
		}
		f.value = v
		out = append(out, f.namedConstant)
	}
	return out, nil
}

func hasKindPrefix(name string) bool {
	for _, k := range constantKinds {
		if strings.HasPrefix(name, k.prefix) && len(name) > len(k.prefix) {
			return true
		}
	}
	return false
}

func conditionsPage(root string) (string, error) {
	dirs, err := libraryPackages(root)
	if err != nil {
		return "", err
	}
	found, err := constants(dirs)
	if err != nil {
		return "", err
	}
	slices.SortFunc(found, func(a, b namedConstant) int {
		return cmp.Or(strings.Compare(a.value, b.value), strings.Compare(a.pkg, b.pkg), strings.Compare(a.name, b.name))
	})
	d := newDoc("Conditions, reasons and Events", "the exported `Condition*`, `Reason*`, `Event*`, `Finalizer*`, `Annotation*` and `Label*` constants of pkg/ and their doc comments")
	d.para("The words the operator writes on objects and in Events, each with the constant that defines it and its doc comment. " +
		"[Troubleshooting](../troubleshooting.md) says what to do about the usual ones.")
	for _, k := range constantKinds {
		var rows [][]string
		for _, c := range found {
			if !strings.HasPrefix(c.name, k.prefix) {
				continue
			}
			rows = append(rows, []string{code(c.value), code(path.Base(c.pkg) + "." + c.name), meaning(c)})
		}
		if len(rows) == 0 {
			continue
		}
		d.line("## " + k.heading)
		d.line("")
		d.para(k.intro)
		d.table([]string{"Value", "Constant", "Meaning"}, rows)
	}
	return d.String(), nil
}

// meaning is a constant's doc comment as a table cell, the constant's name
// it starts with replaced by its value ("ReasonX: a reference…" becomes
// "A reference…", "ConditionX says…" becomes "`X` says…").
func meaning(c namedConstant) string {
	text := strings.Join(strings.Fields(c.doc), " ")
	if rest, ok := strings.CutPrefix(text, c.name+": "); ok && rest != "" {
		return cell(strings.ToUpper(rest[:1]) + rest[1:])
	}
	if rest, ok := strings.CutPrefix(text, c.name+", "); ok {
		return code(c.value) + ", " + cell(rest)
	}
	if rest, ok := strings.CutPrefix(text, c.name+" "); ok {
		return code(c.value) + " " + cell(rest)
	}
	return cell(text)
}
