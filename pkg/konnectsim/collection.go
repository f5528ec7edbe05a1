package konnectsim

import (
	"maps"
	"slices"
	"sort"
	"strings"
)

// entity is a stored object, exactly as it is returned on the wire.
type entity = map[string]any

// collection holds the entities of one kind in one control plane, with the
// indexes that keep uniqueness checks, tag filters, child look-ups and
// pagination cheap for thousands of entities.
type collection struct {
	kind *kind
	byID map[string]entity
	// ids is sorted; pagination walks it from the cursor (the last id seen).
	ids []string
	// unique[i] maps the value of kind.uniques[i] to the id holding it.
	unique []map[string]string
	tags   map[string]map[string]struct{}
	// refs maps a foreign-key field to parent id to child ids.
	refs map[string]map[string]map[string]struct{}
}

func newCollection(k *kind) *collection {
	c := &collection{
		kind:   k,
		byID:   map[string]entity{},
		unique: make([]map[string]string, len(k.uniques)),
		tags:   map[string]map[string]struct{}{},
		refs:   map[string]map[string]map[string]struct{}{},
	}
	for i := range c.unique {
		c.unique[i] = map[string]string{}
	}
	return c
}

// refID returns the id inside a {"id": …} reference field, or "".
func refID(e entity, field string) string {
	obj, _ := e[field].(map[string]any)
	id, _ := obj["id"].(string)
	return id
}

func (c *collection) isForeign(field string) bool {
	return slices.ContainsFunc(c.kind.foreign, func(fk foreignKey) bool { return fk.field == field })
}

// uniqueValue renders the value of one unique constraint for e; ok is false
// when the constraint does not apply (all of its plain fields are unset).
func (c *collection) uniqueValue(e entity, fields []string) (string, bool) {
	parts := make([]string, len(fields))
	applies := false
	for i, f := range fields {
		if c.isForeign(f) {
			parts[i] = refID(e, f)
			continue
		}
		v, set := e[f]
		if !set || v == nil {
			continue
		}
		s, isString := v.(string)
		if !isString {
			s = toJSONString(v)
		}
		parts[i] = s
		applies = true
	}
	return strings.Join(parts, "\x00"), applies
}

// conflict reports the first unique constraint e would break if stored
// under id (which may already hold an older version of e).
func (c *collection) conflict(e entity, id string) (fields []string, value string, found bool) {
	for i, fields := range c.kind.uniques {
		v, ok := c.uniqueValue(e, fields)
		if !ok {
			continue
		}
		if other, taken := c.unique[i][v]; taken && other != id {
			return fields, strings.ReplaceAll(v, "\x00", ","), true
		}
	}
	return nil, "", false
}

func (c *collection) get(id string) (entity, bool) {
	e, ok := c.byID[id]
	return e, ok
}

// lookup finds an entity by id or, for kinds that have them, by an endpoint
// key such as a name.
func (c *collection) lookup(idOrKey string) (entity, bool) {
	if e, ok := c.byID[idOrKey]; ok {
		return e, true
	}
	for _, key := range c.kind.endpointKeys {
		if i := c.singleUnique(key); i >= 0 {
			if id, ok := c.unique[i][idOrKey]; ok {
				return c.byID[id], true
			}
		}
	}
	return nil, false
}

// put stores e (replacing any entity with the same id) and updates indexes.
// The caller has checked conflicts.
func (c *collection) put(e entity) {
	id := e["id"].(string)
	if _, exists := c.byID[id]; exists {
		c.remove(id)
	}
	c.byID[id] = e
	i := sort.SearchStrings(c.ids, id)
	c.ids = slices.Insert(c.ids, i, id)
	for n, fields := range c.kind.uniques {
		if v, ok := c.uniqueValue(e, fields); ok {
			c.unique[n][v] = id
		}
	}
	for _, t := range stringsOf(e["tags"]) {
		if c.tags[t] == nil {
			c.tags[t] = map[string]struct{}{}
		}
		c.tags[t][id] = struct{}{}
	}
	for _, fk := range c.kind.foreign {
		if parent := refID(e, fk.field); parent != "" {
			byParent := c.refs[fk.field]
			if byParent == nil {
				byParent = map[string]map[string]struct{}{}
				c.refs[fk.field] = byParent
			}
			if byParent[parent] == nil {
				byParent[parent] = map[string]struct{}{}
			}
			byParent[parent][id] = struct{}{}
		}
	}
}

// remove deletes an entity and its index entries.
func (c *collection) remove(id string) {
	e, ok := c.byID[id]
	if !ok {
		return
	}
	delete(c.byID, id)
	if i, found := slices.BinarySearch(c.ids, id); found {
		c.ids = slices.Delete(c.ids, i, i+1)
	}
	for n, fields := range c.kind.uniques {
		if v, ok := c.uniqueValue(e, fields); ok && c.unique[n][v] == id {
			delete(c.unique[n], v)
		}
	}
	for _, t := range stringsOf(e["tags"]) {
		delete(c.tags[t], id)
		if len(c.tags[t]) == 0 {
			delete(c.tags, t)
		}
	}
	for _, fk := range c.kind.foreign {
		if parent := refID(e, fk.field); parent != "" {
			delete(c.refs[fk.field][parent], id)
			if len(c.refs[fk.field][parent]) == 0 {
				delete(c.refs[fk.field], parent)
			}
		}
	}
}

// children returns the sorted ids of entities whose field references parent.
func (c *collection) children(field, parent string) []string {
	return slices.Sorted(maps.Keys(c.refs[field][parent]))
}

// listQuery selects entities of a collection.
type listQuery struct {
	allTags, anyTags []string
	nameEq           string // filter[name][eq]
	nameContains     string
	customID         string
	parentField      string // restrict to children of parentID through this field
	parentID         string
	ids              []string // restrict to these ids (e.g. group members); nil = no restriction
	after            string   // cursor: the last id of the previous page
	size             int
}

// list returns one page and whether more entities follow.
func (c *collection) list(q listQuery) (page []entity, more bool) {
	candidates := c.candidates(q)
	var allowed map[string]struct{}
	if q.ids != nil {
		allowed = make(map[string]struct{}, len(q.ids))
		for _, id := range q.ids {
			allowed[id] = struct{}{}
		}
	}
	start := sort.SearchStrings(candidates, q.after)
	if start < len(candidates) && candidates[start] == q.after {
		start++
	}
	for _, id := range candidates[start:] {
		e := c.byID[id]
		if _, ok := allowed[id]; (allowed != nil && !ok) || !c.matches(e, q) {
			continue
		}
		if len(page) == q.size {
			return page, true
		}
		page = append(page, e)
	}
	return page, false
}

// candidates narrows the ids to scan with the cheapest index available; the
// result is sorted.
func (c *collection) candidates(q listQuery) []string {
	var set map[string]struct{}
	narrow := func(s map[string]struct{}) {
		if set == nil || len(s) < len(set) {
			set = s
		}
	}
	switch {
	case q.ids != nil:
		set = make(map[string]struct{}, len(q.ids))
		for _, id := range q.ids {
			set[id] = struct{}{}
		}
	case q.parentField != "":
		narrow(c.refs[q.parentField][q.parentID])
		if set == nil {
			return nil
		}
	}
	if q.nameEq != "" {
		if i := c.singleUnique(nameField(c.kind)); i >= 0 {
			id, ok := c.unique[i][q.nameEq]
			if !ok {
				return nil
			}
			narrow(map[string]struct{}{id: {}})
		}
	}
	for _, t := range q.allTags {
		s := c.tags[t]
		if len(s) == 0 {
			return nil
		}
		narrow(s)
	}
	if len(q.anyTags) > 0 {
		union := map[string]struct{}{}
		for _, t := range q.anyTags {
			for id := range c.tags[t] {
				union[id] = struct{}{}
			}
		}
		narrow(union)
	}
	if set == nil {
		return c.ids
	}
	return slices.Sorted(maps.Keys(set))
}

func (c *collection) matches(e entity, q listQuery) bool {
	if q.parentField != "" && refID(e, q.parentField) != q.parentID {
		return false
	}
	tags := stringsOf(e["tags"])
	for _, t := range q.allTags {
		if !slices.Contains(tags, t) {
			return false
		}
	}
	if len(q.anyTags) > 0 && !slices.ContainsFunc(q.anyTags, func(t string) bool { return slices.Contains(tags, t) }) {
		return false
	}
	name := nameOf(c.kind, e)
	if q.nameEq != "" && name != q.nameEq {
		return false
	}
	if q.nameContains != "" && !strings.Contains(name, q.nameContains) {
		return false
	}
	if q.customID != "" && str(e["custom_id"]) != q.customID {
		return false
	}
	return true
}

// nameField is what filter[name] compares: the name, or a consumer's username.
func nameField(k *kind) string {
	if k.collection == "consumers" {
		return "username"
	}
	return "name"
}

func nameOf(k *kind, e entity) string { return str(e[nameField(k)]) }

// singleUnique returns the index of the unique constraint on field alone, or -1.
func (c *collection) singleUnique(field string) int {
	for i, fields := range c.kind.uniques {
		if len(fields) == 1 && fields[0] == field {
			return i
		}
	}
	return -1
}

func stringsOf(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, item := range arr {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
