package konnectsim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
)

// Direct access to the store, for tests that act "behind the operator's
// back". Organisations are named by id or by the value given in
// Options.Tokens; collections by their flat names ("services", "targets",
// "key-auths", …; nested spellings such as "key-auth" are accepted too).

// ErrNotFound is returned by the direct-access methods for an unknown
// organisation, control plane or collection.
var ErrNotFound = errors.New("konnectsim: not found")

// OrganizationID returns the id of an organisation named by id or by the
// value given in Options.Tokens.
func (s *Server) OrganizationID(orgRef string) (string, bool) {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	o := s.store.org(orgRef)
	if o == nil {
		return "", false
	}
	return o.id, true
}

// ControlPlanes returns copies of an organisation's control planes in
// creation order (nil for an unknown organisation).
func (s *Server) ControlPlanes(orgID string) []map[string]any {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	o := s.store.org(orgID)
	if o == nil {
		return nil
	}
	var out []map[string]any
	for _, cp := range o.sortedCPs() {
		out = append(out, cloneEntity(cp.obj))
	}
	return out
}

// GroupMembers returns the member ids of a control-plane group.
func (s *Server) GroupMembers(orgID, groupID string) []string {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	if o := s.store.org(orgID); o != nil && o.cps[groupID] != nil {
		return slices.Clone(o.cps[groupID].members)
	}
	return nil
}

// Entities returns copies of the entities of one collection of a control
// plane, sorted by id. The pseudo-collection "dp-client-certificates" lists
// the pinned DP certificates.
func (s *Server) Entities(orgID, cpID, collectionName string) []map[string]any {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	cp := s.cp(orgID, cpID)
	if cp == nil {
		return nil
	}
	if collectionName == "dp-client-certificates" {
		var out []map[string]any
		for _, id := range cp.dpCertOrder {
			out = append(out, cloneEntity(cp.dpCerts[id]))
		}
		return out
	}
	name := canonicalCollection(collectionName)
	c := cp.collections[name]
	if c == nil {
		return nil
	}
	out := make([]map[string]any, 0, len(c.ids))
	for _, id := range c.ids {
		out = append(out, cloneEntity(render(cp, name, c.byID[id])))
	}
	return out
}

// ConsumerGroupMembers returns the consumer ids in a consumer group.
func (s *Server) ConsumerGroupMembers(orgID, cpID, groupID string) []string {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	if cp := s.cp(orgID, cpID); cp != nil {
		return sortedKeys(cp.consumerGroups[groupID])
	}
	return nil
}

// SetConsumerGroupMember adds the consumer to the consumer group (member)
// or removes it, as a change made outside the operator would; it fails when
// either does not exist.
func (s *Server) SetConsumerGroupMember(orgID, cpID, groupID, consumerID string, member bool) error {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp := s.cp(orgID, cpID)
	if cp == nil {
		return fmt.Errorf("%w: control plane %s/%s", ErrNotFound, orgID, cpID)
	}
	if _, ok := cp.coll("consumer_groups").get(groupID); !ok {
		return fmt.Errorf("%w: consumer group %s", ErrNotFound, groupID)
	}
	if _, ok := cp.coll("consumers").get(consumerID); !ok {
		return fmt.Errorf("%w: consumer %s", ErrNotFound, consumerID)
	}
	if !member {
		delete(cp.consumerGroups[groupID], consumerID)
		return nil
	}
	if cp.consumerGroups[groupID] == nil {
		cp.consumerGroups[groupID] = map[string]struct{}{}
	}
	cp.consumerGroups[groupID][consumerID] = struct{}{}
	return nil
}

func (s *Server) cp(orgRef, cpID string) *controlPlane {
	o := s.store.org(orgRef)
	if o == nil {
		return nil
	}
	return o.cps[cpID]
}

// PutEntity stores an entity as is (no validation, no defaults), replacing
// any entity with the same id; an entity without an id gets one, and
// created_at/updated_at are filled when missing. Uniqueness is not checked:
// this is for simulating changes made outside the operator.
func (s *Server) PutEntity(orgID, cpID, collectionName string, e map[string]any) error {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp := s.cp(orgID, cpID)
	name := canonicalCollection(collectionName)
	if cp == nil || kinds[name] == nil {
		return fmt.Errorf("%w: %s/%s/%s", ErrNotFound, orgID, cpID, collectionName)
	}
	k := kinds[name]
	stored := cloneEntity(e)
	if id, _ := stored["id"].(string); id == "" {
		stored["id"] = uuid.NewString()
	}
	now := timestamp(s.clock.Now(), k.floatTimes)
	if _, ok := stored["created_at"]; !ok {
		stored["created_at"] = now
	}
	if _, ok := stored["updated_at"]; !ok && k.hasUpdatedAt {
		stored["updated_at"] = now
	}
	cp.coll(name).put(stored)
	return nil
}

// DeleteEntity removes an entity and whatever cascades with it, bypassing
// the refusal to delete a parent that still has children (those children
// are removed too, as if deleted out of band).
func (s *Server) DeleteEntity(orgID, cpID, collectionName, id string) error {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	cp := s.cp(orgID, cpID)
	name := canonicalCollection(collectionName)
	if cp == nil || kinds[name] == nil {
		return fmt.Errorf("%w: %s/%s/%s", ErrNotFound, orgID, cpID, collectionName)
	}
	if _, ok := cp.coll(name).get(id); !ok {
		return fmt.Errorf("%w: %s %s", ErrNotFound, kinds[name].singular, id)
	}
	cp.forceDelete(name, id)
	return nil
}

// forceDelete removes an entity and every entity referencing it, whatever
// the delete rules.
func (cp *controlPlane) forceDelete(collectionName, id string) {
	for _, ref := range referencingKinds(collectionName) {
		if child := cp.collections[ref.kind.collection]; child != nil {
			for _, childID := range child.children(ref.fk.field, id) {
				cp.forceDelete(ref.kind.collection, childID)
			}
		}
	}
	_ = cp.deleteEntity(collectionName, id)
}

// Count returns how many control planes, core entities, DP certificates,
// networks, transit gateways, configurations with data-plane groups,
// portals with what they hold and config stores an organisation holds (0 =
// nothing left behind). Cloud-gateway entities still terminating count.
func (s *Server) Count(orgID string) int {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o := s.store.org(orgID)
	if o == nil {
		return 0
	}
	n := len(o.cps)
	for _, cp := range o.cps {
		n += cp.entityCount()
	}
	if o.cloud != nil {
		o.cloud.sweep(s.clock.Now())
		n += o.cloud.entityCount()
	}
	if o.newer != nil {
		n += o.newer.count()
	}
	return n
}

// Organization names an organisation of the simulator.
type Organization struct {
	ID, Name string
}

// Organizations lists the organisations, sorted by name.
func (s *Server) Organizations() []Organization {
	var out []Organization
	for _, o := range s.orgSummaries() {
		out = append(out, Organization{ID: o.ID, Name: o.Name})
	}
	return out
}
