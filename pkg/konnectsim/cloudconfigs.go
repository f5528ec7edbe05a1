package konnectsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
)

// cloudConfig is the data-plane group configuration of one control plane
// and geo. A PUT replaces it as a whole: groups that stay keep their ID,
// new ones start initializing, dropped ones terminate.
type cloudConfig struct {
	id, controlPlaneID, geo string
	version, apiAccess      string
	kind                    string
	entityVersion           int
	createdAt, updatedAt    time.Time
	groups                  []*cloudGroup
	// orphaned marks the configuration of a deleted control plane; it goes
	// once its groups have terminated.
	orphaned bool
}

// cloudGroup is one deployed data-plane group.
type cloudGroup struct {
	lifecycle
	id, provider, region, networkID string
	autoscale                       any
	environment                     any
}

// settings is what decides whether a group changed: everything sent.
func (g *cloudGroup) settings() string {
	b, _ := json.Marshal([]any{g.provider, g.region, g.networkID, g.autoscale, g.environment})
	return string(b)
}

// gatewayVersion is the form of a Kong Gateway version ("3.9", "3.10.0").
var gatewayVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+(\.[0-9]+)*$`)

func (g *cloudGroup) render(now time.Time) entity {
	out := entity{
		"id": g.id, "provider": g.provider, "region": g.region, "cloud_gateway_network_id": g.networkID,
		"state":      g.phase(now),
		"created_at": cpTime(g.createdAt), "updated_at": cpTime(g.updatedAt),
	}
	if g.autoscale != nil {
		out["autoscale"] = cloneValue(g.autoscale)
	}
	if g.environment != nil {
		out["environment"] = cloneValue(g.environment)
	}
	if out["state"] == phaseReady {
		// Addresses from the documentation ranges (RFC 5737).
		out["private_ip_addresses"] = []any{"192.0.2.10", "192.0.2.11"}
		out["egress_ip_addresses"] = []any{"198.51.100.20"}
	}
	return out
}

func (cfg *cloudConfig) render(now time.Time) entity {
	groups, configs := []any{}, []any{}
	for _, g := range cfg.groups {
		if g.phase(now) == phaseGone {
			// Terminated within this very request (no termination time).
			continue
		}
		groups = append(groups, g.render(now))
		if g.phase(now) != phaseTerminating {
			item := entity{"provider": g.provider, "region": g.region, "cloud_gateway_network_id": g.networkID}
			if g.autoscale != nil {
				item["autoscale"] = cloneValue(g.autoscale)
			}
			if g.environment != nil {
				item["environment"] = cloneValue(g.environment)
			}
			configs = append(configs, item)
		}
	}
	out := entity{
		"id": cfg.id, "control_plane_id": cfg.controlPlaneID, "control_plane_geo": cfg.geo,
		"api_access": cfg.apiAccess, "kind": cfg.kind,
		"dataplane_groups": groups, "dataplane_group_config": configs,
		"entity_version": cfg.entityVersion,
		"created_at":     cpTime(cfg.createdAt), "updated_at": cpTime(cfg.updatedAt),
	}
	if cfg.version != "" {
		out["version"] = cfg.version
	}
	return out
}

// current is the configuration as last written: its version, access and
// the settings of the groups that are not terminating.
func (cfg *cloudConfig) current(now time.Time) string {
	var groups []string
	for _, g := range cfg.groups {
		if g.phase(now) != phaseTerminating {
			groups = append(groups, g.settings())
		}
	}
	sort.Strings(groups)
	return strings.Join(append([]string{cfg.version, cfg.apiAccess, cfg.kind}, groups...), "\n")
}

// requestedGroups reads and checks the body's data-plane groups against
// the organisation's networks.
func requestedGroups(c *cloudState, body map[string]any, now time.Time) ([]*cloudGroup, []invalidParam) {
	items, _ := body["dataplane_groups"].([]any)
	var groups []*cloudGroup
	var out []invalidParam
	seen := map[string]bool{}
	for i, item := range items {
		fields, _ := item.(map[string]any)
		field := func(name string) string { return fmt.Sprintf("dataplane_groups[%d].%s", i, name) }
		g := &cloudGroup{provider: str(fields["provider"]), region: str(fields["region"]),
			networkID: str(fields["cloud_gateway_network_id"]), autoscale: fields["autoscale"], environment: fields["environment"]}
		if key := g.provider + "/" + g.region; seen[key] {
			out = append(out, invalidParam{Field: field("region"), Rule: "invalid", Reason: "another data-plane group already deploys to " + key})
		} else {
			seen[key] = true
		}
		if g.autoscale == nil {
			out = append(out, invalidParam{Field: field("autoscale"), Rule: "required", Reason: "is required for dedicated.v0 configurations"})
		}
		n := c.networks[g.networkID]
		switch {
		case g.networkID == "":
			out = append(out, invalidParam{Field: field("cloud_gateway_network_id"), Rule: "required", Reason: "is required for dedicated.v0 configurations"})
		case n == nil:
			out = append(out, invalidParam{Field: field("cloud_gateway_network_id"), Rule: "missing_reference", Reason: "no network with this ID exists"})
		case n.phase(now) == phaseTerminating:
			out = append(out, invalidParam{Field: field("cloud_gateway_network_id"), Rule: "invalid", Reason: "the network is terminating"})
		case n.region != g.region:
			out = append(out, invalidParam{Field: field("region"), Rule: "invalid", Reason: fmt.Sprintf("must be the region of network %s (%s)", n.id, n.region)})
		case c.account(n.accountID) != nil && c.account(n.accountID).Provider != g.provider:
			out = append(out, invalidParam{Field: field("provider"), Rule: "invalid", Reason: fmt.Sprintf("must be the provider of network %s (%s)", n.id, c.account(n.accountID).Provider)})
		}
		groups = append(groups, g)
	}
	return groups, out
}

// putConfiguration creates or replaces the configuration of a control
// plane and geo. A request equal to the current configuration is refused
// with 409, as Konnect does.
func (s *Server) putConfiguration(rc *reqCtx) {
	body, ok := rc.decodeBody()
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	c := s.cloud(rc.org)
	now := s.clock.Now()
	cpID := str(body["control_plane_id"])
	cp := rc.org.cps[cpID]
	if cp == nil {
		rc.problem(http.StatusNotFound, fmt.Sprintf("Control plane %s not found", cpID))
		return
	}
	var params []invalidParam
	if cfg, _ := cp.obj["config"].(map[string]any); cfg["cloud_gateway"] != true {
		params = append(params, invalidParam{Field: "control_plane_id", Rule: "invalid", Reason: "the control plane was not created with cloud_gateway: true"})
	}
	kind := orDefault(body["kind"], "dedicated.v0")
	version := str(body["version"])
	if kind == "dedicated.v0" && !gatewayVersion.MatchString(version) {
		params = append(params, invalidParam{Field: "version", Rule: "invalid", Reason: "must be a Kong Gateway version such as 3.9"})
	}
	requested, groupParams := requestedGroups(c, body, now)
	if params = append(params, groupParams...); len(params) > 0 {
		rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid", params...)
		return
	}
	geo := str(body["control_plane_geo"])
	var cfg *cloudConfig
	for _, existing := range c.configs {
		if existing.controlPlaneID == cpID && existing.geo == geo && !existing.orphaned {
			cfg = existing
		}
	}
	next := &cloudConfig{version: version, apiAccess: orDefault(body["api_access"], "private+public"), kind: kind, groups: requested}
	if cfg != nil && cfg.current(now) == next.current(now) {
		rc.problem(http.StatusConflict, "The proposed configuration is the same as the current configuration")
		return
	}
	if cfg == nil {
		cfg = &cloudConfig{id: uuid.NewString(), controlPlaneID: cpID, geo: geo, createdAt: now}
		c.configs[cfg.id] = cfg
	}
	cfg.version, cfg.apiAccess, cfg.kind = next.version, next.apiAccess, next.kind
	cfg.groups = s.mergeGroups(c, cfg.groups, requested, now)
	cfg.entityVersion++
	cfg.updatedAt = now
	rc.writeJSON(http.StatusOK, contentJSON, cfg.render(now))
}

// mergeGroups turns the current groups into the requested ones: a group
// on the same provider, region and network keeps its ID (and starts over
// when its settings changed), a new one starts initializing once its
// network is ready, and a dropped one terminates.
func (s *Server) mergeGroups(c *cloudState, current, requested []*cloudGroup, now time.Time) []*cloudGroup {
	provisioning := s.opts.CloudGateways.ProvisioningTime
	var out []*cloudGroup
	kept := map[*cloudGroup]bool{}
	for _, want := range requested {
		n := c.networks[want.networkID]
		if n.offline {
			// A configuration starts the offline network it uses.
			n.offline, n.readyAt, n.updatedAt = false, now.Add(provisioning), now
		}
		start := now
		if n.readyAt.After(start) {
			start = n.readyAt
		}
		idx := slices.IndexFunc(current, func(g *cloudGroup) bool {
			return !kept[g] && g.phase(now) != phaseTerminating && g.provider == want.provider && g.region == want.region && g.networkID == want.networkID
		})
		if idx >= 0 {
			old := current[idx]
			kept[old] = true
			if old.settings() != want.settings() {
				old.autoscale, old.environment = want.autoscale, want.environment
				old.readyAt, old.updatedAt = start.Add(provisioning), now
			}
			out = append(out, old)
			continue
		}
		want.id = uuid.NewString()
		want.lifecycle = lifecycle{createdAt: now, updatedAt: now, readyAt: start.Add(provisioning)}
		out = append(out, want)
	}
	for _, g := range current {
		if !kept[g] {
			g.terminate(now, s.opts.CloudGateways.TerminationTime)
			out = append(out, g)
		}
	}
	return out
}

// config finds the configuration of the path; it answers 404 itself.
func (rc *reqCtx) config(c *cloudState) (*cloudConfig, bool) {
	id := rc.r.PathValue("configurationId")
	cfg := c.configs[id]
	if cfg == nil || cfg.orphaned {
		rc.problem(http.StatusNotFound, fmt.Sprintf("Configuration %s not found", id))
		return nil, false
	}
	return cfg, true
}

func (s *Server) getConfiguration(rc *reqCtx) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	if cfg, ok := rc.config(s.cloud(rc.org)); ok {
		rc.writeJSON(http.StatusOK, contentJSON, cfg.render(s.clock.Now()))
	}
}

func (s *Server) listConfigurations(rc *reqCtx) {
	filters, number, size, ok := rc.parseCloudList(map[string][]string{
		"control_plane_id": {"eq", "neq", "oeq"}, "control_plane_geo": {"eq", "neq", "oeq"},
	})
	if !ok {
		return
	}
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	c := s.cloud(rc.org)
	all := make([]*cloudConfig, 0, len(c.configs))
	for _, cfg := range c.configs {
		if !cfg.orphaned {
			all = append(all, cfg)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].createdAt.Equal(all[j].createdAt) {
			return all[i].createdAt.Before(all[j].createdAt)
		}
		return all[i].id < all[j].id
	})
	now := s.clock.Now()
	var items []any
	for _, cfg := range all {
		values := map[string]string{"control_plane_id": cfg.controlPlaneID, "control_plane_geo": cfg.geo}
		if matchAll(filters, func(field string) string { return values[field] }) {
			items = append(items, cfg.render(now))
		}
	}
	rc.writeNumberedPage(items, number, size)
}
