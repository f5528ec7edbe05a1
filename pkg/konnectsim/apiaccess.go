package konnectsim

import "fmt"

// Direct access to the entities of Konnect's newer APIs (portals, config
// stores, event gateways, and what they hold), for tests that look or
// write behind the operator's back. Collections are named as the store names them
// ("portals", "portal-pages", "config-stores", "event-gateways",
// "event-gateway-listeners", …); parentID is the portal's, control
// plane's, gateway's, listener's or virtual cluster's ID ("" for portals
// and gateways), and a singleton's ID is its parent's.

// apiKinds are the collections of the newer APIs, by name.
var apiKinds = map[string]*apiKind{}

func init() {
	for _, k := range append([]*apiKind{
		portalKind, portalCustomizationKind, portalCustomDomainKind, portalEmailConfigKind,
		portalIdentityProviderKind, portalIPAllowListKind, portalPageKind, portalTeamKind, configStoreKind,
	}, eventGatewayKinds...) {
		apiKinds[k.collection] = k
	}
}

// APIEntities returns the entities of a collection under a parent, in
// creation order, as Konnect answers them (nil for an unknown
// organisation).
func (s *Server) APIEntities(orgRef, collection, parentID string) []map[string]any {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o, k := s.store.org(orgRef), apiKinds[collection]
	if o == nil || k == nil {
		return nil
	}
	var out []map[string]any
	for _, e := range o.api().children(k, parentID) {
		out = append(out, e.answer())
	}
	return out
}

// APIEntity returns one entity as Konnect answers it.
func (s *Server) APIEntity(orgRef, collection, parentID, id string) (map[string]any, bool) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o, k := s.store.org(orgRef), apiKinds[collection]
	if o == nil || k == nil {
		return nil, false
	}
	e := o.api().find(k, parentID, id)
	if e == nil {
		return nil, false
	}
	return e.answer(), true
}

// PutAPIEntity creates an entity (with the ID it carries, or a new one) or
// writes the given fields over the existing one of that ID, as a change
// made outside the operator would; it returns the entity's ID.
func (s *Server) PutAPIEntity(orgRef, collection, parentID string, fields map[string]any) (string, error) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o, k := s.store.org(orgRef), apiKinds[collection]
	if o == nil || k == nil {
		return "", fmt.Errorf("no organisation %q or collection %q", orgRef, collection)
	}
	if !s.apiParentExists(o, k, parentID) {
		return "", fmt.Errorf("no parent %s of %s", parentID, collection)
	}
	id, _ := fields["id"].(string)
	if k.singleton {
		id = parentID
	}
	if e := o.api().find(k, parentID, id); e != nil {
		for field, value := range fields {
			e.obj[field] = cloneValue(value)
		}
		if !k.noTimes {
			e.obj["updated_at"] = cpTime(s.clock.Now())
		}
		return e.id, nil
	}
	e, refused := s.apiInsert(o, k, parentID, fields)
	if refused != nil {
		return "", fmt.Errorf("%d: %s %v", refused.status, refused.detail, refused.params)
	}
	if k == portalKind {
		if _, refused := s.apiInsert(o, portalCustomizationKind, e.id, defaultCustomization()); refused != nil {
			return "", fmt.Errorf("%d: %s", refused.status, refused.detail)
		}
	}
	return e.id, nil
}

// DeleteAPIEntity deletes an entity, and what it holds, as a delete made
// outside the operator would.
func (s *Server) DeleteAPIEntity(orgRef, collection, parentID, id string) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o, k := s.store.org(orgRef), apiKinds[collection]
	if o == nil || k == nil {
		return
	}
	if e := o.api().find(k, parentID, id); e != nil {
		o.api().apiDelete(e)
	}
}
