package konnectsim

// Direct access to the Dedicated Cloud Gateway entities, for tests that
// look behind the operator's back. Each answer is what Konnect's API would
// answer at the simulator's current time.

// Networks returns an organisation's networks in creation order (nil for
// an unknown organisation).
func (s *Server) Networks(orgRef string) []map[string]any {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o := s.store.org(orgRef)
	if o == nil {
		return nil
	}
	c := s.cloud(o)
	var out []map[string]any
	for _, n := range c.sortedNetworks() {
		out = append(out, n.render(c, s))
	}
	return out
}

// TransitGateways returns the transit gateways of a network (nil for an
// unknown organisation or network).
func (s *Server) TransitGateways(orgRef, networkID string) []map[string]any {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o := s.store.org(orgRef)
	if o == nil {
		return nil
	}
	n := s.cloud(o).networks[networkID]
	if n == nil {
		return nil
	}
	var out []map[string]any
	for _, t := range n.transitGateways {
		out = append(out, t.render(s.clock.Now()))
	}
	return out
}

// Configuration returns the data-plane group configuration of a control
// plane, or nil when it has none.
func (s *Server) Configuration(orgRef, controlPlaneID string) map[string]any {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o := s.store.org(orgRef)
	if o == nil {
		return nil
	}
	for _, cfg := range s.cloud(o).configs {
		if cfg.controlPlaneID == controlPlaneID && !cfg.orphaned {
			return cfg.render(s.clock.Now())
		}
	}
	return nil
}

// ProviderAccounts returns the provider accounts linked to an organisation.
func (s *Server) ProviderAccounts(orgRef string) []ProviderAccount {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	o := s.store.org(orgRef)
	if o == nil {
		return nil
	}
	var out []ProviderAccount
	for _, a := range s.cloud(o).accounts {
		out = append(out, a.ProviderAccount)
	}
	return out
}
