package konnectsim

import (
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// controlPlane resolves the request's control plane within its
// organisation; it answers 404 itself. The caller holds the store lock.
func (rc *reqCtx) controlPlane() (*controlPlane, bool) {
	id := rc.r.PathValue("controlPlaneId")
	cp := rc.org.cps[id]
	if cp == nil {
		rc.notFound("control plane")
		return nil, false
	}
	return cp, true
}

// writable refuses core-entity writes on a control-plane group: its
// configuration is the union of its members', not its own.
func (rc *reqCtx) writable(cp *controlPlane) bool {
	if cp.clusterType() != clusterTypeGroup {
		return true
	}
	rc.validationFailed([]fieldError{errEntity("control plane group configuration is read-only: configure its member control planes instead")})
	return false
}

// render returns the wire form of a stored entity, adding computed fields.
// Stored entities are never mutated (writes replace them), so the result may
// share them: callers encode it under the store lock and must not change it.
func render(cp *controlPlane, collectionName string, e entity) entity {
	out := e
	if collectionName == "certificates" {
		out = make(entity, len(e)+1)
		for k, v := range e {
			out[k] = v
		}
		names := []any{}
		if snis := cp.collections["snis"]; snis != nil {
			for _, id := range snis.children("certificate", e["id"].(string)) {
				names = append(names, snis.byID[id]["name"])
			}
		}
		slices.SortFunc(names, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
		out["snis"] = names
	}
	return out
}

func (s *Server) listEntities(collectionName string) func(*reqCtx) {
	return func(rc *reqCtx) {
		lq, ok := rc.parseListQuery()
		if !ok {
			return
		}
		s.store.mu.RLock()
		defer s.store.mu.RUnlock()
		cp, ok := rc.controlPlane()
		if !ok {
			return
		}
		page, more := cp.coll(collectionName).list(lq)
		rc.writePage(page, more, func(e entity) entity { return render(cp, collectionName, e) })
	}
}

func (s *Server) getEntity(collectionName, param string) func(*reqCtx) {
	return func(rc *reqCtx) {
		s.store.mu.RLock()
		defer s.store.mu.RUnlock()
		cp, ok := rc.controlPlane()
		if !ok {
			return
		}
		e, found := cp.coll(collectionName).lookup(rc.r.PathValue(param))
		if !found {
			rc.notFound(kinds[collectionName].singular)
			return
		}
		out := render(cp, collectionName, e)
		if collectionName == "consumer_groups" {
			wrapped := map[string]any{"consumer_group": out}
			if rc.r.URL.Query().Get("list_consumers") == "true" {
				consumers := []any{}
				for _, id := range sortedKeys(cp.consumerGroups[e["id"].(string)]) {
					consumers = append(consumers, cloneEntity(cp.coll("consumers").byID[id]))
				}
				wrapped["consumers"] = consumers
			}
			rc.writeJSON(http.StatusOK, contentJSON, wrapped)
			return
		}
		rc.writeJSON(http.StatusOK, contentJSON, out)
	}
}

func (s *Server) createEntity(collectionName string) func(*reqCtx) {
	return func(rc *reqCtx) { s.save(rc, saveRequest{collection: collectionName}) }
}

func (s *Server) upsertEntity(collectionName, param string) func(*reqCtx) {
	return func(rc *reqCtx) {
		s.save(rc, saveRequest{collection: collectionName, upsert: true, key: rc.r.PathValue(param)})
	}
}

func (s *Server) deleteEntity(collectionName, param string) func(*reqCtx) {
	return func(rc *reqCtx) {
		s.store.mu.Lock()
		defer s.store.mu.Unlock()
		cp, ok := rc.controlPlane()
		if !ok {
			return
		}
		e, found := cp.coll(collectionName).lookup(rc.r.PathValue(param))
		if !found {
			rc.noContent()
			return
		}
		rc.deleteFound(cp, collectionName, e["id"].(string))
	}
}

// deleteFound deletes an entity known to exist, refusing while children
// still reference it.
func (rc *reqCtx) deleteFound(cp *controlPlane, collectionName, id string) {
	if refused := cp.deleteEntity(collectionName, id); refused != nil {
		rc.writeJSON(http.StatusBadRequest, contentJSON, kongBody{
			Code: codeInvalidArgument, Message: refused.message(), Details: []kongDetail{},
		})
		return
	}
	rc.noContent()
}

// parentForeignKey is the child's foreign key pointing at the parent collection.
func parentForeignKey(parentCollection, childCollection string) foreignKey {
	for _, fk := range kinds[childCollection].foreign {
		if fk.collection == parentCollection {
			return fk
		}
	}
	panic("konnectsim: " + childCollection + " has no foreign key to " + parentCollection)
}

// parent resolves the parent entity of a nested path; it answers 404 itself.
func (rc *reqCtx) parent(cp *controlPlane, parentCollection, param string) (string, bool) {
	e, found := cp.coll(parentCollection).lookup(rc.r.PathValue(param))
	if !found {
		rc.notFound(kinds[parentCollection].singular)
		return "", false
	}
	return e["id"].(string), true
}

// lookupChild finds a child by id or endpoint key among a parent's children.
func lookupChild(c *collection, fkField, parentID, key string) (entity, bool) {
	if e, ok := c.byID[key]; ok {
		return e, refID(e, fkField) == parentID
	}
	for _, id := range c.children(fkField, parentID) {
		e := c.byID[id]
		for _, k := range c.kind.endpointKeys {
			if v := str(e[k]); v == key || (c.kind.collection == "targets" && v == key+":8000") {
				return e, true
			}
		}
	}
	return nil, false
}

func (s *Server) listChildren(parentCollection, parentParam, childSegment string) func(*reqCtx) {
	child := canonicalCollection(childSegment)
	fk := parentForeignKey(parentCollection, child)
	return func(rc *reqCtx) {
		lq, ok := rc.parseListQuery()
		if !ok {
			return
		}
		s.store.mu.RLock()
		defer s.store.mu.RUnlock()
		cp, ok := rc.controlPlane()
		if !ok {
			return
		}
		parentID, ok := rc.parent(cp, parentCollection, parentParam)
		if !ok {
			return
		}
		lq.parentField, lq.parentID = fk.field, parentID
		page, more := cp.coll(child).list(lq)
		rc.writePage(page, more, func(e entity) entity { return render(cp, child, e) })
	}
}

func (s *Server) createChild(parentCollection, parentParam, childSegment string) func(*reqCtx) {
	child := canonicalCollection(childSegment)
	fk := parentForeignKey(parentCollection, child)
	return func(rc *reqCtx) {
		s.save(rc, saveRequest{collection: child, parentCollection: parentCollection, parentParam: parentParam, parentField: fk.field})
	}
}

func (s *Server) upsertChild(parentCollection, parentParam, childSegment, childParam string) func(*reqCtx) {
	child := canonicalCollection(childSegment)
	fk := parentForeignKey(parentCollection, child)
	return func(rc *reqCtx) {
		s.save(rc, saveRequest{
			collection: child, parentCollection: parentCollection, parentParam: parentParam, parentField: fk.field,
			upsert: true, key: rc.r.PathValue(childParam),
		})
	}
}

func (s *Server) getChild(parentCollection, parentParam, childSegment, childParam string) func(*reqCtx) {
	child := canonicalCollection(childSegment)
	fk := parentForeignKey(parentCollection, child)
	return func(rc *reqCtx) {
		s.store.mu.RLock()
		defer s.store.mu.RUnlock()
		cp, ok := rc.controlPlane()
		if !ok {
			return
		}
		parentID, ok := rc.parent(cp, parentCollection, parentParam)
		if !ok {
			return
		}
		e, found := lookupChild(cp.coll(child), fk.field, parentID, rc.r.PathValue(childParam))
		if !found {
			rc.notFound(kinds[child].singular)
			return
		}
		rc.writeJSON(http.StatusOK, contentJSON, render(cp, child, e))
	}
}

func (s *Server) deleteChild(parentCollection, parentParam, childSegment, childParam string) func(*reqCtx) {
	child := canonicalCollection(childSegment)
	fk := parentForeignKey(parentCollection, child)
	return func(rc *reqCtx) {
		s.store.mu.Lock()
		defer s.store.mu.Unlock()
		cp, ok := rc.controlPlane()
		if !ok {
			return
		}
		parentID, ok := rc.parent(cp, parentCollection, parentParam)
		if !ok {
			return
		}
		e, found := lookupChild(cp.coll(child), fk.field, parentID, rc.r.PathValue(childParam))
		if !found {
			rc.noContent()
			return
		}
		rc.deleteFound(cp, child, e["id"].(string))
	}
}

func isUUID(s string) bool {
	return len(s) == 36 && uuid.Validate(s) == nil
}
