package konnectsim

import (
	"fmt"
	"net/http"
)

// The handlers every collection of the newer APIs shares. parentParam
// names the path parameter of the parent ("" for the organisation);
// idParam the entity's ("" for a singleton, which its parent addresses).

// apiTarget finds the parent and the entity a request addresses; it
// answers 404 itself.
func (rc *reqCtx) apiTarget(k *apiKind, parentParam, idParam string) (*apiEntity, bool) {
	parentID := ""
	if parentParam != "" {
		var ok bool
		if parentID, ok = rc.apiParent(k, parentParam); !ok {
			return nil, false
		}
	}
	id := parentID
	if idParam != "" {
		id = rc.r.PathValue(idParam)
	}
	return rc.apiFound(k, parentID, id)
}

func (s *Server) apiGetHandler(k *apiKind, parentParam, idParam string) func(*reqCtx) {
	return func(rc *reqCtx) {
		s.store.mu.Lock()
		defer s.store.mu.Unlock()
		if e, ok := rc.apiTarget(k, parentParam, idParam); ok {
			rc.writeJSON(http.StatusOK, contentJSON, e.answer())
		}
	}
}

func (s *Server) apiCreateHandler(k *apiKind, parentParam string) func(*reqCtx) {
	return func(rc *reqCtx) {
		body, ok := rc.decodeBody()
		if !ok {
			return
		}
		s.store.mu.Lock()
		defer s.store.mu.Unlock()
		parentID := ""
		if parentParam != "" {
			if parentID, ok = rc.apiParent(k, parentParam); !ok {
				return
			}
		}
		if e, ok := rc.apiCreate(k, parentID, body); ok {
			rc.writeJSON(http.StatusCreated, contentJSON, e.answer())
		}
	}
}

// apiPatchHandler merges the body into the entity.
func (s *Server) apiPatchHandler(k *apiKind, parentParam, idParam string) func(*reqCtx) {
	return func(rc *reqCtx) {
		body, ok := rc.decodeBody()
		if !ok {
			return
		}
		s.store.mu.Lock()
		defer s.store.mu.Unlock()
		e, ok := rc.apiTarget(k, parentParam, idParam)
		if ok && rc.apiUpdate(e, body, false) {
			rc.writeJSON(http.StatusOK, contentJSON, e.answer())
		}
	}
}

// apiReplaceHandler writes the body over the whole entity; whole, when
// set, completes the body with the defaults of what it leaves out.
func (s *Server) apiReplaceHandler(k *apiKind, parentParam, idParam string, whole func(body entity) entity) func(*reqCtx) {
	return func(rc *reqCtx) {
		body, ok := rc.decodeBody()
		if !ok {
			return
		}
		s.store.mu.Lock()
		defer s.store.mu.Unlock()
		e, ok := rc.apiTarget(k, parentParam, idParam)
		if !ok {
			return
		}
		if whole != nil {
			body = whole(body)
		}
		if rc.apiUpdate(e, body, true) {
			rc.writeJSON(http.StatusOK, contentJSON, e.answer())
		}
	}
}

// apiDeleteHandler deletes the entity and what it holds.
func (s *Server) apiDeleteHandler(k *apiKind, parentParam, idParam string) func(*reqCtx) {
	return func(rc *reqCtx) {
		s.store.mu.Lock()
		defer s.store.mu.Unlock()
		if e, ok := rc.apiTarget(k, parentParam, idParam); ok {
			rc.org.api().apiDelete(e)
			rc.noContent()
		}
	}
}

// apiCursorList answers the entities of a parent a page at a time, with a
// cursor to the next page: under meta.page when wrapped, else as meta.
func (s *Server) apiCursorList(rc *reqCtx, k *apiKind, parentParam string, wrapped bool) {
	size, after, ok := rc.cursorPage()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	parentID, ok := rc.apiParent(k, parentParam)
	if !ok {
		return
	}
	all := rc.org.api().children(k, parentID)
	data := []any{}
	for i := after; i < len(all) && i < after+size; i++ {
		data = append(data, all[i].answer())
	}
	var next, previous any
	if after+size < len(all) {
		next = fmt.Sprintf("%s?page%%5Bsize%%5D=%d&page%%5Bafter%%5D=%d", rc.r.URL.Path, size, after+size)
	}
	if after > 0 {
		previous = fmt.Sprintf("%s?page%%5Bsize%%5D=%d", rc.r.URL.Path, size)
	}
	page := map[string]any{"size": size, "next": next, "previous": previous}
	var meta any = page
	if wrapped {
		meta = map[string]any{"page": page}
	}
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{"data": data, "meta": meta})
}
