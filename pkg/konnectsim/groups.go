package konnectsim

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
)

// Control-plane groups: a CLUSTER_TYPE_CONTROL_PLANE_GROUP control plane
// whose members are other (non-group) control planes of the organisation.

// group resolves the path's control plane and checks it is a group.
func (rc *reqCtx) group() (*controlPlane, bool) {
	cp, ok := rc.problemControlPlane()
	if !ok {
		return nil, false
	}
	if cp.clusterType() != clusterTypeGroup {
		rc.problem(http.StatusBadRequest, "Control plane is not a control plane group",
			invalidParam{Field: "controlPlaneId", Rule: "invalid", Reason: "is not a control plane group", Source: "path"})
		return nil, false
	}
	return cp, true
}

// memberIDs reads and checks a {members: [{id}]} body.
func (rc *reqCtx) memberIDs(group *controlPlane) ([]string, bool) {
	body, ok := rc.decodeBody()
	if !ok {
		return nil, false
	}
	raw, isArray := body["members"].([]any)
	if !isArray {
		rc.problem(http.StatusBadRequest, "Invalid request body", invalidParam{Field: "members", Rule: "required", Reason: "is a required field"})
		return nil, false
	}
	var ids []string
	for i, item := range raw {
		m, _ := item.(map[string]any)
		id, _ := m["id"].(string)
		field := fmt.Sprintf("members[%d].id", i)
		member := rc.org.cps[id]
		switch {
		case member == nil:
			rc.problem(http.StatusBadRequest, "Invalid request body", invalidParam{Field: field, Rule: "missing_reference", Reason: "control plane " + strconv.Quote(id) + " does not exist"})
			return nil, false
		case member.clusterType() == clusterTypeGroup || id == group.id():
			rc.problem(http.StatusBadRequest, "Invalid request body", invalidParam{Field: field, Rule: "invalid", Reason: "a control plane group cannot be a member of a group"})
			return nil, false
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, true
}

func (s *Server) putGroupMembers(rc *reqCtx) {
	s.changeMembers(rc, func(_, given []string) []string { return given })
}

func (s *Server) addGroupMembers(rc *reqCtx) {
	s.changeMembers(rc, func(current, given []string) []string {
		for _, id := range given {
			if !slices.Contains(current, id) {
				current = append(current, id)
			}
		}
		return current
	})
}

func (s *Server) removeGroupMembers(rc *reqCtx) {
	s.changeMembers(rc, func(current, given []string) []string {
		return slices.DeleteFunc(current, func(id string) bool { return slices.Contains(given, id) })
	})
}

func (s *Server) changeMembers(rc *reqCtx, change func(current, given []string) []string) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	group, ok := rc.group()
	if !ok {
		return
	}
	given, ok := rc.memberIDs(group)
	if !ok {
		return
	}
	group.members = change(slices.Clone(group.members), given)
	rc.noContent()
}

func (s *Server) listGroupMembers(rc *reqCtx) {
	q := rc.r.URL.Query()
	size := defaultCPPageSize
	if raw := q.Get("page[size]"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxCPPageSize {
			rc.problem(http.StatusBadRequest, "Invalid query parameters", invalidParam{Field: "page[size]", Rule: "invalid", Reason: "must be between 1 and 100", Source: "query"})
			return
		}
		size = n
	}
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	group, ok := rc.group()
	if !ok {
		return
	}
	start := 0
	if raw := q.Get("page[after]"); raw != "" {
		after, ok := decodeOffset(raw)
		if !ok {
			rc.problem(http.StatusBadRequest, "Invalid query parameters", invalidParam{Field: "page[after]", Rule: "invalid", Reason: "is not a valid cursor", Source: "query"})
			return
		}
		start = slices.Index(group.members, after) + 1
	}
	data := []any{}
	end := min(start+size, len(group.members))
	for _, id := range group.members[start:end] {
		data = append(data, cloneEntity(rc.org.cps[id].obj))
	}
	var next any
	if end < len(group.members) {
		next = encodeOffset(group.members[end-1])
	}
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{
		"data": data,
		"meta": map[string]any{"page": map[string]any{"size": size, "next": next, "total": len(group.members)}},
	})
}

// getGroupStatus reports a group's state; the simulator never finds conflicts.
func (s *Server) getGroupStatus(rc *reqCtx) {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	group, ok := rc.group()
	if !ok {
		return
	}
	rc.writeJSON(http.StatusOK, contentJSON, map[string]any{"item": map[string]any{
		"id": group.id(), "created_at": group.obj["created_at"], "updated_at": group.obj["updated_at"],
		"state": "OK", "conflicts": []any{},
	}})
}
