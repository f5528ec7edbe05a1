package konnectsim

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// cloudNetwork is a Dedicated Cloud Gateway network.
type cloudNetwork struct {
	lifecycle
	id, name, accountID, region, cidr string
	zones                             []string
	seq                               uint64
	version                           int
	transitGateways                   map[string]*cloudTransitGateway
}

// privateRanges are the IPv4 ranges a network's CIDR block must lie in.
var privateRanges = []*net.IPNet{mustCIDR("10.0.0.0/8"), mustCIDR("172.16.0.0/12"), mustCIDR("192.168.0.0/16")}

func mustCIDR(s string) *net.IPNet {
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		panic(err)
	}
	return n
}

// checkCIDR explains why s is not a usable IPv4 CIDR block, or returns "".
func checkCIDR(s string) string {
	ip, block, err := net.ParseCIDR(s)
	if err != nil || ip.To4() == nil {
		return "must be an IPv4 range in CIDR notation, such as 10.0.0.0/16"
	}
	for _, r := range privateRanges {
		if ones, _ := block.Mask.Size(); r.Contains(block.IP) && ones >= maskOnes(r) {
			return ""
		}
	}
	return "must lie within a private range (10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16)"
}

func maskOnes(n *net.IPNet) int {
	ones, _ := n.Mask.Size()
	return ones
}

// render is the network as Konnect answers it.
func (n *cloudNetwork) render(c *cloudState, s *Server) entity {
	now := s.clock.Now()
	state := n.phase(now)
	out := entity{
		"id": n.id, "name": n.name, "default": false,
		"cloud_gateway_provider_account_id": n.accountID, "region": n.region,
		"availability_zones": anyStrings(n.zones), "cidr_block": n.cidr,
		"provider_metadata":             map[string]any{},
		"transit_gateway_count":         len(n.transitGateways),
		"configuration_reference_count": c.configReferences(n.id),
		"entity_version":                n.version,
		"created_at":                    cpTime(n.createdAt), "updated_at": cpTime(n.updatedAt),
	}
	switch state {
	case phaseFailed:
		// A network that could not be provisioned is offline, and says why.
		state = phaseOffline
		out["state_metadata"] = map[string]any{"reported_status": "ERROR", "reason": n.failure}
	case phaseReady:
		suffix := strings.ReplaceAll(n.id, "-", "")[:17]
		out["provider_metadata"] = map[string]any{"vpc_id": "vpc-" + suffix, "subnet_ids": []any{"subnet-" + suffix}}
	}
	out["state"] = state
	return out
}

// network finds the network of the path; it answers 404 itself.
func (rc *reqCtx) network(c *cloudState) (*cloudNetwork, bool) {
	id := rc.r.PathValue("networkId")
	n := c.networks[id]
	if n == nil {
		rc.problem(http.StatusNotFound, fmt.Sprintf("Network %s not found", id))
		return nil, false
	}
	return n, true
}

// networkBody checks a create-network body beyond the document: the
// provider account, the region, the zones and the CIDR block.
func checkNetworkBody(c *cloudState, body map[string]any) []invalidParam {
	var out []invalidParam
	if c.account(str(body["cloud_gateway_provider_account_id"])) == nil {
		out = append(out, invalidParam{Field: "cloud_gateway_provider_account_id", Rule: "missing_reference",
			Reason: "no provider account with this ID is linked to the organization"})
	}
	if strings.TrimSpace(str(body["region"])) == "" {
		out = append(out, invalidParam{Field: "region", Rule: "is_supported_provider_region", Reason: "must name a region of the provider"})
	}
	zones := stringItems(body["availability_zones"])
	if len(zones) == 0 || slices.Contains(zones, "") || len(slices.Compact(slices.Sorted(slices.Values(zones)))) != len(zones) {
		out = append(out, invalidParam{Field: "availability_zones", Rule: "is_supported_network_availability_zone_list",
			Reason: "must list one or more distinct availability zones of the region"})
	}
	if reason := checkCIDR(str(body["cidr_block"])); reason != "" {
		out = append(out, invalidParam{Field: "cidr_block", Rule: "is_supported_network_cidr_block", Reason: reason})
	}
	return out
}

func (s *Server) createNetwork(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	c := s.cloud(rc.org)
	if params := checkNetworkBody(c, body); len(params) > 0 {
		rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid", params...)
		return
	}
	name := str(body["name"])
	for _, other := range c.networks {
		if other.name == name {
			rc.problem(http.StatusConflict, fmt.Sprintf("A network named %s already exists in the organization", name))
			return
		}
	}
	now := s.clock.Now()
	zones := stringItems(body["availability_zones"])
	c.seq++
	n := &cloudNetwork{
		id: uuid.NewString(), name: name, accountID: str(body["cloud_gateway_provider_account_id"]),
		region: str(body["region"]), cidr: str(body["cidr_block"]), zones: zones, seq: c.seq, version: 1,
		transitGateways: map[string]*cloudTransitGateway{},
		lifecycle: lifecycle{
			createdAt: now, updatedAt: now, readyAt: now.Add(s.opts.CloudGateways.ProvisioningTime),
			offline: str(body["state"]) == phaseOffline, failure: s.faults.provisioningFailure(name),
		},
	}
	c.networks[n.id] = n
	rc.writeJSON(http.StatusCreated, contentJSON, n.render(c, s))
}

func (s *Server) getNetwork(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	c := s.cloud(rc.org)
	if n, ok := rc.network(c); ok {
		rc.writeJSON(http.StatusOK, contentJSON, n.render(c, s))
	}
}

// updateNetwork renames a network, the only change Konnect allows.
func (s *Server) updateNetwork(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	c := s.cloud(rc.org)
	n, ok := rc.network(c)
	if !ok {
		return
	}
	if name, given := body["name"].(string); given && name != n.name {
		for _, other := range c.networks {
			if other.name == name {
				rc.problem(http.StatusConflict, fmt.Sprintf("A network named %s already exists in the organization", name))
				return
			}
		}
		n.name = name
		n.version++
		n.updatedAt = s.clock.Now()
	}
	rc.writeJSON(http.StatusOK, contentJSON, n.render(c, s))
}

// deleteNetwork starts terminating a network that nothing uses.
func (s *Server) deleteNetwork(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	c := s.cloud(rc.org)
	n, ok := rc.network(c)
	if !ok {
		return
	}
	now := s.clock.Now()
	refuse := func(reason string) {
		rc.problem(http.StatusBadRequest, reason, invalidParam{Field: "networkId", Rule: "invalid", Reason: reason, Source: "path"})
	}
	switch {
	case n.phase(now) == phaseTerminating:
		refuse("The network is already terminating")
	case c.configReferences(n.id) > 0:
		refuse(fmt.Sprintf("The network is referenced by %d configuration(s); remove its data-plane groups first", c.configReferences(n.id)))
	case len(n.transitGateways) > 0:
		refuse(fmt.Sprintf("The network has %d transit gateway(s) attached; delete them first", len(n.transitGateways)))
	default:
		n.terminate(now, s.opts.CloudGateways.TerminationTime)
		n.version++
		rc.noContent()
	}
}

func (s *Server) listNetworks(rc *reqCtx) {
	filters, number, size, ok := rc.parseCloudList(map[string][]string{
		"name": {"eq", "neq", "contains", "oeq", "ocontains"}, "state": {"eq", "neq", "oeq"},
	})
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	c := s.cloud(rc.org)
	var items []any
	for _, n := range c.sortedNetworks() {
		rendered := n.render(c, s)
		if matchAll(filters, func(field string) string { return str(rendered[field]) }) {
			items = append(items, rendered)
		}
	}
	rc.writeNumberedPage(items, number, size)
}

// renderAccount is a provider account as Konnect answers it.
func renderAccount(a providerAccount) entity {
	return entity{
		"id": a.ID, "provider": a.Provider, "provider_account_id": a.CloudAccountID,
		"created_at": cpTime(a.createdAt), "updated_at": cpTime(a.createdAt),
	}
}

func (s *Server) listProviderAccounts(rc *reqCtx) {
	filters, number, size, ok := rc.parseCloudList(map[string][]string{"provider": {"eq", "neq", "contains", "oeq", "ocontains"}})
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	var items []any
	for _, a := range s.cloud(rc.org).accounts {
		if matchAll(filters, func(string) string { return a.Provider }) {
			items = append(items, renderAccount(a))
		}
	}
	rc.writeNumberedPage(items, number, size)
}

func (s *Server) getProviderAccount(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	id := rc.r.PathValue("providerAccountId")
	a := s.cloud(rc.org).account(id)
	if a == nil {
		rc.problem(http.StatusNotFound, fmt.Sprintf("Provider account %s not found", id))
		return
	}
	rc.writeJSON(http.StatusOK, contentJSON, renderAccount(*a))
}
