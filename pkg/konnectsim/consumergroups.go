package konnectsim

import (
	"net/http"
)

// Consumer-group membership is a relation, not an entity: it is reached
// from both sides (/consumer_groups/{id}/consumers and
// /consumers/{id}/consumer_groups) and goes away with either side.

// membershipRef resolves the consumer and group of a membership request; it
// answers failures itself. The caller holds the store lock.
func (rc *reqCtx) membershipRef(cp *controlPlane, consumerRef, groupRef string) (consumerID, groupID string, ok bool) {
	group, found := cp.coll("consumer_groups").lookup(groupRef)
	if !found {
		rc.notFound("consumer group")
		return "", "", false
	}
	consumer, found := cp.coll("consumers").lookup(consumerRef)
	if !found {
		rc.notFound("consumer")
		return "", "", false
	}
	return consumer["id"].(string), group["id"].(string), true
}

func (cp *controlPlane) addMembership(consumerID, groupID string) {
	if cp.consumerGroups[groupID] == nil {
		cp.consumerGroups[groupID] = map[string]struct{}{}
	}
	cp.consumerGroups[groupID][consumerID] = struct{}{}
}

// bodyString reads one string field of a small JSON body.
func (rc *reqCtx) bodyString(field string) (string, bool) {
	body, ok := rc.decodeBody()
	if !ok {
		return "", false
	}
	v, _ := body[field].(string)
	if v == "" {
		rc.validationFailed([]fieldError{errField(field, "required field missing")})
		return "", false
	}
	return v, true
}

// addConsumerToGroup: POST /consumer_groups/{ConsumerGroupId}/consumers {"consumer": id}.
// Adding a member twice is not an error.
func (s *Server) addConsumerToGroup(rc *reqCtx) {
	consumerRef, ok := rc.bodyString("consumer")
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.controlPlane()
	if !ok || !rc.writable(cp) {
		return
	}
	consumerID, groupID, ok := rc.membershipRef(cp, consumerRef, rc.r.PathValue("ConsumerGroupId"))
	if !ok {
		return
	}
	cp.addMembership(consumerID, groupID)
	consumers := []any{}
	for _, id := range sortedKeys(cp.consumerGroups[groupID]) {
		consumers = append(consumers, cloneEntity(cp.coll("consumers").byID[id]))
	}
	rc.writeJSON(http.StatusCreated, contentJSON, map[string]any{
		"consumer_group": cloneEntity(cp.coll("consumer_groups").byID[groupID]),
		"consumers":      consumers,
	})
}

// addConsumerToSpecificGroup: POST /consumers/{ConsumerId}/consumer_groups {"group": id}.
func (s *Server) addConsumerToSpecificGroup(rc *reqCtx) {
	groupRef, ok := rc.bodyString("group")
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.controlPlane()
	if !ok || !rc.writable(cp) {
		return
	}
	consumerID, groupID, ok := rc.membershipRef(cp, rc.r.PathValue("ConsumerId"), groupRef)
	if !ok {
		return
	}
	cp.addMembership(consumerID, groupID)
	groups := []any{}
	for _, id := range cp.groupsOfConsumer(consumerID) {
		groups = append(groups, cloneEntity(cp.coll("consumer_groups").byID[id]))
	}
	rc.writeJSON(http.StatusCreated, contentJSON, map[string]any{
		"consumer":        cloneEntity(cp.coll("consumers").byID[consumerID]),
		"consumer_groups": groups,
	})
}

// removeMembership answers 204 whether or not the consumer was a member;
// a missing consumer or group is 404.
func (s *Server) removeMembership(rc *reqCtx, consumerRef, groupRef string) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.controlPlane()
	if !ok {
		return
	}
	consumerID, groupID, ok := rc.membershipRef(cp, consumerRef, groupRef)
	if !ok {
		return
	}
	delete(cp.consumerGroups[groupID], consumerID)
	rc.noContent()
}

func (s *Server) removeConsumerFromGroup(rc *reqCtx) {
	s.removeMembership(rc, rc.r.PathValue("ConsumerId"), rc.r.PathValue("ConsumerGroupId"))
}

func (s *Server) removeAllConsumersFromGroup(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.controlPlane()
	if !ok {
		return
	}
	group, found := cp.coll("consumer_groups").lookup(rc.r.PathValue("ConsumerGroupId"))
	if !found {
		rc.notFound("consumer group")
		return
	}
	delete(cp.consumerGroups, group["id"].(string))
	rc.noContent()
}

func (s *Server) removeConsumerFromAllGroups(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp, ok := rc.controlPlane()
	if !ok {
		return
	}
	consumer, found := cp.coll("consumers").lookup(rc.r.PathValue("ConsumerId"))
	if !found {
		rc.notFound("consumer")
		return
	}
	for _, members := range cp.consumerGroups {
		delete(members, consumer["id"].(string))
	}
	rc.noContent()
}

func (s *Server) listConsumersOfGroup(rc *reqCtx) {
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
	group, found := cp.coll("consumer_groups").lookup(rc.r.PathValue("ConsumerGroupId"))
	if !found {
		rc.notFound("consumer group")
		return
	}
	lq.ids = append([]string{}, sortedKeys(cp.consumerGroups[group["id"].(string)])...)
	page, more := cp.coll("consumers").list(lq)
	rc.writePage(page, more, func(e entity) entity { return e })
}

func (s *Server) listGroupsOfConsumer(rc *reqCtx) {
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
	consumer, found := cp.coll("consumers").lookup(rc.r.PathValue("ConsumerId"))
	if !found {
		rc.notFound("consumer")
		return
	}
	lq.ids = append([]string{}, cp.groupsOfConsumer(consumer["id"].(string))...)
	page, more := cp.coll("consumer_groups").list(lq)
	rc.writePage(page, more, func(e entity) entity { return e })
}
