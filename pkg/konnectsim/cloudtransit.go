package konnectsim

import (
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
)

// cloudTransitGateway is an attachment of a network to the user's own
// cloud network (an AWS transit gateway, an Azure VNET peering, …).
type cloudTransitGateway struct {
	lifecycle
	id, name string
	seq      uint64
	version  int
	// body holds dns_config, cidr_blocks (when given) and
	// transit_gateway_attachment_config as they were sent.
	body entity
}

// attachmentKind is the attachment's kind, such as
// aws-transit-gateway-attachment.
func (t *cloudTransitGateway) attachmentKind() string {
	cfg, _ := t.body["transit_gateway_attachment_config"].(map[string]any)
	return str(cfg["kind"])
}

func (t *cloudTransitGateway) render(now time.Time) entity {
	out := cloneEntity(t.body)
	out["id"], out["name"] = t.id, t.name
	out["entity_version"] = t.version
	out["created_at"], out["updated_at"] = cpTime(t.createdAt), cpTime(t.updatedAt)
	if _, ok := out["dns_config"]; !ok {
		out["dns_config"] = []any{}
	}
	state := t.phase(now)
	switch state {
	case phaseFailed:
		state = "error"
		out["state_metadata"] = map[string]any{"reported_status": "ERROR", "reason": t.failure}
	case phaseReady:
		if t.attachmentKind() == "aws-transit-gateway-attachment" {
			cfg := out["transit_gateway_attachment_config"].(map[string]any)
			cfg["attachment_id"] = "tgw-attach-" + strings.ReplaceAll(t.id, "-", "")[:17]
		}
	}
	out["state"] = state
	return out
}

// checkTransitGatewayBody checks what the document does not: the CIDR
// blocks, and that the attachment's cloud is the network's.
func checkTransitGatewayBody(c *cloudState, n *cloudNetwork, body map[string]any) []invalidParam {
	var out []invalidParam
	if raw, given := body["cidr_blocks"]; given {
		blocks := stringItems(raw)
		for i, b := range blocks {
			if _, _, err := net.ParseCIDR(b); err != nil {
				out = append(out, invalidParam{Field: fmt.Sprintf("cidr_blocks[%d]", i), Rule: "invalid", Reason: "must be an IP range in CIDR notation"})
			}
		}
	}
	cfg, _ := body["transit_gateway_attachment_config"].(map[string]any)
	kind := str(cfg["kind"])
	if a := c.account(n.accountID); a != nil && !strings.HasPrefix(kind, a.Provider+"-") {
		out = append(out, invalidParam{Field: "transit_gateway_attachment_config.kind", Rule: "invalid",
			Reason: fmt.Sprintf("a %s attachment cannot be made to a network in %s", kind, a.Provider)})
	}
	return out
}

// transitGateway finds the transit gateway of the path in the network; it
// answers 404 itself.
func (rc *reqCtx) transitGateway(n *cloudNetwork) (*cloudTransitGateway, bool) {
	id := rc.r.PathValue("transitGatewayId")
	t := n.transitGateways[id]
	if t == nil {
		rc.problem(http.StatusNotFound, fmt.Sprintf("Transit gateway %s not found", id))
		return nil, false
	}
	return t, true
}

func (s *Server) createTransitGateway(rc *reqCtx) {
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
	now := s.clock.Now()
	if p := n.phase(now); p != phaseReady {
		rc.problem(http.StatusBadRequest, "The network is not ready",
			invalidParam{Field: "networkId", Rule: "invalid", Reason: "transit gateways can only be attached to a ready network; it is " + p, Source: "path"})
		return
	}
	if params := checkTransitGatewayBody(c, n, body); len(params) > 0 {
		rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid", params...)
		return
	}
	name := str(body["name"])
	for _, other := range n.transitGateways {
		if other.name == name {
			rc.problem(http.StatusConflict, fmt.Sprintf("A transit gateway named %s already exists in the network", name))
			return
		}
	}
	stored := cloneEntity(body)
	delete(stored, "name")
	c.seq++
	t := &cloudTransitGateway{
		id: uuid.NewString(), name: name, seq: c.seq, version: 1, body: stored,
		lifecycle: lifecycle{createdAt: now, updatedAt: now, readyAt: now.Add(s.opts.CloudGateways.ProvisioningTime),
			failure: s.faults.provisioningFailure(name)},
	}
	n.transitGateways[t.id] = t
	rc.writeJSON(http.StatusCreated, contentJSON, t.render(now))
}

func (s *Server) getTransitGateway(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	n, ok := rc.network(s.cloud(rc.org))
	if !ok {
		return
	}
	if t, ok := rc.transitGateway(n); ok {
		rc.writeJSON(http.StatusOK, contentJSON, t.render(s.clock.Now()))
	}
}

// updateTransitGateway changes the CIDR blocks of an AWS transit gateway,
// the one change Konnect allows on the kinds the simulator knows.
func (s *Server) updateTransitGateway(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	n, ok := rc.network(s.cloud(rc.org))
	if !ok {
		return
	}
	t, ok := rc.transitGateway(n)
	if !ok {
		return
	}
	now := s.clock.Now()
	blocks, given := body["cidr_blocks"]
	switch {
	case !given || t.attachmentKind() != "aws-transit-gateway-attachment":
		rc.problem(http.StatusBadRequest, "Only the cidr_blocks of an AWS transit gateway can be changed",
			invalidParam{Field: "body", Rule: "invalid", Reason: "only cidr_blocks of an aws-transit-gateway-attachment can be updated"})
		return
	case t.transitional(now):
		rc.problem(http.StatusBadRequest, "The transit gateway is "+t.phase(now),
			invalidParam{Field: "transitGatewayId", Rule: "invalid", Reason: "wait until it is no longer " + t.phase(now), Source: "path"})
		return
	}
	if params := checkTransitGatewayBody(s.cloud(rc.org), n, entity{"cidr_blocks": blocks, "transit_gateway_attachment_config": t.body["transit_gateway_attachment_config"]}); len(params) > 0 {
		rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid", params...)
		return
	}
	t.body["cidr_blocks"] = cloneValue(blocks)
	t.version++
	t.updatedAt = now
	rc.writeJSON(http.StatusOK, contentJSON, t.render(now))
}

// deleteTransitGateway starts terminating a transit gateway that is in a
// steady state, as Konnect demands.
func (s *Server) deleteTransitGateway(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	n, ok := rc.network(s.cloud(rc.org))
	if !ok {
		return
	}
	t, ok := rc.transitGateway(n)
	if !ok {
		return
	}
	now := s.clock.Now()
	if t.transitional(now) {
		rc.problem(http.StatusBadRequest, "The transit gateway is "+t.phase(now),
			invalidParam{Field: "transitGatewayId", Rule: "invalid", Reason: "a transit gateway can only be deleted once it is no longer " + t.phase(now), Source: "path"})
		return
	}
	t.terminate(now, s.opts.CloudGateways.TerminationTime)
	t.version++
	rc.noContent()
}

func (s *Server) listTransitGateways(rc *reqCtx) {
	filters, number, size, ok := rc.parseCloudList(map[string][]string{
		"name": {"eq", "neq", "contains", "oeq", "ocontains"}, "state": {"eq", "neq", "oeq"},
	})
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	n, ok := rc.network(s.cloud(rc.org))
	if !ok {
		return
	}
	all := make([]*cloudTransitGateway, 0, len(n.transitGateways))
	for _, t := range n.transitGateways {
		all = append(all, t)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	now := s.clock.Now()
	var items []any
	for _, t := range all {
		rendered := t.render(now)
		if matchAll(filters, func(field string) string { return str(rendered[field]) }) {
			items = append(items, rendered)
		}
	}
	rc.writeNumberedPage(items, number, size)
}
