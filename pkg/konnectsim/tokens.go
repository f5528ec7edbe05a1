package konnectsim

// AddToken makes the simulator accept token for an organisation from now
// on: orgRef is its id, or a name as in Options.Tokens (a new name makes a
// new organisation). It returns the organisation's id. A token issued
// while the operator runs (a rotation) is added so.
func (s *Server) AddToken(token, orgRef string) string {
	s.store.mu.Lock()
	id := s.store.addOrg(orgRef, s.clock.Now()).id
	s.store.mu.Unlock()
	s.tokensMu.Lock()
	defer s.tokensMu.Unlock()
	s.tokens[token] = id
	return id
}

// RevokeToken makes the simulator answer 401 to token from now on, as
// Konnect answers a revoked or expired token. It reports whether the token
// was accepted until now.
func (s *Server) RevokeToken(token string) bool {
	s.tokensMu.Lock()
	defer s.tokensMu.Unlock()
	_, known := s.tokens[token]
	delete(s.tokens, token)
	return known
}

// organizationOf returns the organisation of an accepted token.
func (s *Server) organizationOf(token string) (string, bool) {
	s.tokensMu.RLock()
	defer s.tokensMu.RUnlock()
	id, ok := s.tokens[token]
	return id, ok
}
