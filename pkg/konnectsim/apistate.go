package konnectsim

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Konnect's newer APIs (the Dev Portal under /v3/portals, a control
// plane's config stores, the Event Gateway) keep entities under the
// organisation or under a parent entity, answer errors as RFC 7807
// problems and change entities with PATCH. The simulator keeps them in
// one store per organisation, each collection described by an apiKind:
// what is unique among siblings, whether a parent holds at most one, what
// a create fills in and what an answer leaves out. The handlers of each
// API (portals.go, configstores.go) build on the operations below.

// apiKind describes one collection of the newer APIs.
type apiKind struct {
	// collection names the collection in the store; singular names one of
	// its entities in messages ("page").
	collection, singular string
	// parent is the parent's collection: "" for the organisation,
	// parentControlPlane for a control plane, or another apiKind's.
	parent string
	// singleton: a parent holds at most one, addressed by the parent
	// (a portal's custom domain).
	singleton bool
	// noID: the entity has no ID of its own in answers (a custom domain,
	// a customization); noTimes: no created_at and updated_at.
	noID, noTimes bool
	// unique are the fields each unique among the entities of a parent;
	// scope, when set, narrows the siblings to those with the same value
	// of another field (a page's slug among the pages of its parent page).
	unique []string
	scope  string
	// writeOnly fields are kept but never answered (a private key).
	writeOnly []string
	// create fills in a new entity's defaults and computed fields; it may
	// refuse the body. parent is the parent entity, nil for the
	// organisation or a control plane.
	create func(s *Server, parent, e entity) []invalidParam
	// check refuses a change the API does not allow (rules across fields).
	check func(e entity) []invalidParam
	// render, when set, completes an answer (fields computed on reading).
	render func(e entity) entity
}

// parentControlPlane is the parent collection of a control plane's
// entities.
const parentControlPlane = "control-planes"

// apiEntity is one stored entity.
type apiEntity struct {
	kind     *apiKind
	id       string
	parentID string
	seq      uint64
	obj      entity
}

// apiState is an organisation's entities of the newer APIs: by collection,
// by ID (a singleton by its parent's ID).
type apiState struct {
	seq      uint64
	entities map[string]map[string]*apiEntity
}

// api returns the organisation's store of the newer APIs.
func (o *organization) api() *apiState {
	if o.newer == nil {
		o.newer = &apiState{entities: map[string]map[string]*apiEntity{}}
	}
	return o.newer
}

// key is where an entity is kept in its collection.
func (e *apiEntity) key() string {
	if e.kind.singleton {
		return e.parentID
	}
	return e.id
}

// answer is the entity as Konnect answers it.
func (e *apiEntity) answer() entity {
	out := cloneEntity(e.obj)
	for _, f := range e.kind.writeOnly {
		delete(out, f)
	}
	if e.kind.render != nil {
		out = e.kind.render(out)
	}
	return out
}

// children returns the entities of k under parentID, in creation order.
func (a *apiState) children(k *apiKind, parentID string) []*apiEntity {
	var out []*apiEntity
	for _, e := range a.entities[k.collection] {
		if e.parentID == parentID {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(x, y *apiEntity) int { return int(x.seq) - int(y.seq) })
	return out
}

// find returns the entity of k with the given ID (for a singleton, the
// parent's ID) under parentID.
func (a *apiState) find(k *apiKind, parentID, id string) *apiEntity {
	e := a.entities[k.collection][id]
	if e == nil || e.parentID != parentID {
		return nil
	}
	return e
}

// count counts the stored entities.
func (a *apiState) count() int {
	n := 0
	for _, c := range a.entities {
		n += len(c)
	}
	return n
}

// parentExists reports whether the parent an entity of k names exists.
func (s *Server) apiParentExists(o *organization, k *apiKind, parentID string) bool {
	switch k.parent {
	case "":
		return true
	case parentControlPlane:
		return o.cps[parentID] != nil
	}
	return o.api().entities[k.parent][parentID] != nil
}

// apiParent answers 404 when the path's parent does not exist.
func (rc *reqCtx) apiParent(k *apiKind, param string) (string, bool) {
	parentID := rc.r.PathValue(param)
	if !rc.s.apiParentExists(rc.org, k, parentID) {
		what := strings.TrimSuffix(k.parent, "s")
		if k.parent == parentControlPlane {
			what = "control plane"
		}
		rc.problem(http.StatusNotFound, fmt.Sprintf("The %s %s was not found", what, parentID))
		return "", false
	}
	return parentID, true
}

// apiFound answers 404 when the entity of the path does not exist.
func (rc *reqCtx) apiFound(k *apiKind, parentID, id string) (*apiEntity, bool) {
	e := rc.org.api().find(k, parentID, id)
	if e == nil {
		what := k.singular + " " + id
		if k.singleton {
			what = "The " + k.singular
		}
		rc.problem(http.StatusNotFound, what+" was not found")
		return nil, false
	}
	return e, true
}

// clash names the sibling of e (nil for a new entity) under parentID that
// already holds one of body's unique values, or "".
func (a *apiState) clash(k *apiKind, parentID string, self *apiEntity, body entity) string {
	for _, sibling := range a.children(k, parentID) {
		if sibling == self || k.scope != "" && fmt.Sprint(sibling.obj[k.scope]) != fmt.Sprint(body[k.scope]) {
			continue
		}
		for _, field := range k.unique {
			if value, ok := body[field]; ok && value != nil && sibling.obj[field] == value {
				return fmt.Sprintf("%s %v", field, value)
			}
		}
	}
	return ""
}

// apiRefusal is why the store refused a write, as the answer says it.
type apiRefusal struct {
	status int
	detail string
	params []invalidParam
}

// apiCreate stores a new entity of k under parentID, or answers why not.
func (rc *reqCtx) apiCreate(k *apiKind, parentID string, body entity) (*apiEntity, bool) {
	e, refused := rc.s.apiInsert(rc.org, k, parentID, body)
	if refused != nil {
		rc.problem(refused.status, refused.detail, refused.params...)
		return nil, false
	}
	return e, true
}

// apiInsert stores a new entity of k under parentID in o, or says why not.
func (s *Server) apiInsert(o *organization, k *apiKind, parentID string, body entity) (*apiEntity, *apiRefusal) {
	a := o.api()
	if k.singleton && a.find(k, parentID, parentID) != nil {
		return nil, &apiRefusal{status: http.StatusConflict, detail: fmt.Sprintf("The %s already exists; change it or delete it first", k.singular)}
	}
	if clash := a.clash(k, parentID, nil, body); clash != "" {
		return nil, &apiRefusal{status: http.StatusConflict, detail: fmt.Sprintf("A %s with %s already exists", k.singular, clash)}
	}
	obj := cloneEntity(body)
	if !k.noTimes {
		now := cpTime(s.clock.Now())
		obj["created_at"], obj["updated_at"] = now, now
	}
	e := &apiEntity{kind: k, parentID: parentID, obj: obj}
	if !k.noID {
		e.id = uuid.NewString()
		if id, ok := body["id"].(string); ok && id != "" {
			e.id = id // stored behind the API's back by a test
		}
		obj["id"] = e.id
	}
	var parent entity
	if p := a.entities[k.parent][parentID]; p != nil {
		parent = p.obj
	}
	invalid := "Some of the fields provided were invalid"
	if k.create != nil {
		if params := k.create(s, parent, obj); len(params) > 0 {
			return nil, &apiRefusal{status: http.StatusBadRequest, detail: invalid, params: params}
		}
	}
	if k.check != nil {
		if params := k.check(obj); len(params) > 0 {
			return nil, &apiRefusal{status: http.StatusBadRequest, detail: invalid, params: params}
		}
	}
	a.seq++
	e.seq = a.seq
	if a.entities[k.collection] == nil {
		a.entities[k.collection] = map[string]*apiEntity{}
	}
	a.entities[k.collection][e.key()] = e
	return e, nil
}

// apiChecked answers 400 when k's rules refuse obj.
func (rc *reqCtx) apiChecked(k *apiKind, obj entity) bool {
	if k.check == nil {
		return true
	}
	if params := k.check(obj); len(params) > 0 {
		rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid", params...)
		return false
	}
	return true
}

// apiUpdate changes e: replace writes body over the whole entity (PUT),
// otherwise body is merged (PATCH): labels key by key, a null value
// removing one.
func (rc *reqCtx) apiUpdate(e *apiEntity, body entity, replace bool) bool {
	k := e.kind
	obj := cloneEntity(e.obj)
	if replace {
		obj = entity{}
		for _, f := range []string{"id", "created_at"} {
			if v, ok := e.obj[f]; ok {
				obj[f] = v
			}
		}
	}
	for field, value := range body {
		if field == "labels" && !replace {
			obj[field] = mergeLabels(obj[field], value)
			continue
		}
		obj[field] = cloneValue(value)
	}
	if clash := rc.org.api().clash(k, e.parentID, e, obj); clash != "" {
		rc.problem(http.StatusConflict, fmt.Sprintf("A %s with %s already exists", k.singular, clash))
		return false
	}
	if !rc.apiChecked(k, obj) {
		return false
	}
	if !k.noTimes {
		obj["updated_at"] = cpTime(rc.s.clock.Now())
	}
	e.obj = obj
	return true
}

// mergeLabels merges a labels update into labels: a null value removes
// the label.
func mergeLabels(current, update any) any {
	out := map[string]any{}
	if m, ok := current.(map[string]any); ok {
		maps.Copy(out, m)
	}
	changes, ok := update.(map[string]any)
	if !ok {
		return out
	}
	for key, value := range changes {
		if value == nil {
			delete(out, key)
			continue
		}
		out[key] = value
	}
	return out
}

// apiDelete removes e and, with it, every entity below it.
func (a *apiState) apiDelete(e *apiEntity) {
	delete(a.entities[e.kind.collection], e.key())
	a.parentGone(e.kind.collection, e.id)
}

// parentGone removes the entities whose parent, of collection parent, is
// gone (a portal's pages, a control plane's config stores), and theirs.
func (a *apiState) parentGone(parent, parentID string) {
	if parentID == "" {
		return
	}
	for _, entities := range a.entities {
		for _, e := range entities {
			if e.kind.parent == parent && e.parentID == parentID {
				a.apiDelete(e)
			}
		}
	}
}
