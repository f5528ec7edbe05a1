package konnectsim

import (
	"sort"
	"time"

	"github.com/google/uuid"
)

// Dedicated Cloud Gateways: provider accounts, networks, their transit
// gateways and the data-plane group configurations of control planes.
// Konnect provisions networks, transit gateways and data-plane groups
// asynchronously; the simulator plays that out on its clock: an entity is
// initializing until its provisioning time has passed, then ready (or
// failed, when a fault says so), and terminating for the termination time
// after a delete before it is gone. States are worked out from the clock
// whenever the state is read, so a fake clock drives them step by step.

// CloudGatewayOptions configures the Dedicated Cloud Gateway API.
type CloudGatewayOptions struct {
	// ProvisioningTime is how long networks, transit gateways and
	// data-plane groups stay initializing. Zero: they are ready from the
	// first read after the answer that created them.
	ProvisioningTime time.Duration
	// TerminationTime is how long they stay terminating after a delete.
	// Zero: they are gone from the first read after the delete.
	TerminationTime time.Duration
	// ProviderAccounts are linked to every organisation, besides one
	// account per cloud provider that each organisation always has.
	ProviderAccounts []ProviderAccount
}

// ProviderAccount is a cloud provider account linked to organisations.
type ProviderAccount struct {
	// ID is the Konnect ID networks name in cloud_gateway_provider_account_id.
	ID string
	// Provider is aws, azure or gcp.
	Provider string
	// CloudAccountID is the account's ID at the provider.
	CloudAccountID string
}

// cloudProviders are the providers Konnect deploys to.
var cloudProviders = []string{"aws", "azure", "gcp"}

// lifecycle is where an asynchronously provisioned entity is in its life.
type lifecycle struct {
	createdAt, updatedAt time.Time
	// readyAt is when provisioning ends; offline means it has not started
	// (a network created offline).
	readyAt time.Time
	offline bool
	// failure, when set, is why provisioning ends in failure.
	failure string
	// goneAt, when set, is when a terminating entity disappears.
	goneAt time.Time
}

// Lifecycle phases, in Konnect's own words where it has them.
const (
	phaseOffline      = "offline"
	phaseInitializing = "initializing"
	phaseReady        = "ready"
	phaseFailed       = "failed"
	phaseTerminating  = "terminating"
	phaseGone         = "gone"
)

func (l *lifecycle) phase(now time.Time) string {
	switch {
	case !l.goneAt.IsZero() && !now.Before(l.goneAt):
		return phaseGone
	case !l.goneAt.IsZero():
		return phaseTerminating
	case l.offline:
		return phaseOffline
	case now.Before(l.readyAt):
		return phaseInitializing
	case l.failure != "":
		return phaseFailed
	default:
		return phaseReady
	}
}

// transitional reports whether Konnect is still working on the entity.
func (l *lifecycle) transitional(now time.Time) bool {
	p := l.phase(now)
	return p == phaseInitializing || p == phaseTerminating
}

// terminate starts the entity's termination.
func (l *lifecycle) terminate(now time.Time, after time.Duration) {
	if l.goneAt.IsZero() {
		l.goneAt = now.Add(after)
		l.updatedAt = now
	}
}

// cloudState is one organisation's Dedicated Cloud Gateway entities.
type cloudState struct {
	accounts []providerAccount
	networks map[string]*cloudNetwork
	configs  map[string]*cloudConfig
	// seq orders networks and configurations by creation.
	seq uint64
}

type providerAccount struct {
	ProviderAccount
	createdAt time.Time
}

func newCloudState(orgID string, extra []ProviderAccount, now time.Time) *cloudState {
	c := &cloudState{networks: map[string]*cloudNetwork{}, configs: map[string]*cloudConfig{}}
	org := uuid.MustParse(orgID)
	for _, p := range cloudProviders {
		c.accounts = append(c.accounts, providerAccount{createdAt: now, ProviderAccount: ProviderAccount{
			ID: uuid.NewSHA1(org, []byte("provider-account/"+p)).String(), Provider: p,
			CloudAccountID: uuid.NewSHA1(org, []byte("cloud-account/"+p)).String()[:12],
		}})
	}
	for _, a := range extra {
		c.accounts = append(c.accounts, providerAccount{ProviderAccount: a, createdAt: now})
	}
	return c
}

func (c *cloudState) account(id string) *providerAccount {
	for i := range c.accounts {
		if c.accounts[i].ID == id {
			return &c.accounts[i]
		}
	}
	return nil
}

// sweep removes what has finished terminating: data-plane groups,
// configurations left without groups by a deleted control plane, transit
// gateways and networks.
func (c *cloudState) sweep(now time.Time) {
	for id, cfg := range c.configs {
		kept := cfg.groups[:0]
		for _, g := range cfg.groups {
			if g.phase(now) != phaseGone {
				kept = append(kept, g)
			}
		}
		cfg.groups = kept
		if cfg.orphaned && len(cfg.groups) == 0 {
			delete(c.configs, id)
		}
	}
	for id, n := range c.networks {
		for tid, t := range n.transitGateways {
			if t.phase(now) == phaseGone {
				delete(n.transitGateways, tid)
			}
		}
		if n.phase(now) == phaseGone {
			delete(c.networks, id)
		}
	}
}

// sortedNetworks returns the networks in creation order.
func (c *cloudState) sortedNetworks() []*cloudNetwork {
	out := make([]*cloudNetwork, 0, len(c.networks))
	for _, n := range c.networks {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// configReferences counts the configurations with a data-plane group,
// terminating ones included, on the network.
func (c *cloudState) configReferences(networkID string) int {
	n := 0
	for _, cfg := range c.configs {
		for _, g := range cfg.groups {
			if g.networkID == networkID {
				n++
				break
			}
		}
	}
	return n
}

// entityCount counts networks, transit gateways and configurations that
// still deploy something.
func (c *cloudState) entityCount() int {
	n := len(c.networks)
	for _, net := range c.networks {
		n += len(net.transitGateways)
	}
	for _, cfg := range c.configs {
		if len(cfg.groups) > 0 {
			n++
		}
	}
	return n
}

// controlPlaneDeleted removes the configurations of a deleted control
// plane: their data-plane groups terminate, then the configuration goes.
func (c *cloudState) controlPlaneDeleted(cpID string, now time.Time, after time.Duration) {
	for id, cfg := range c.configs {
		if cfg.controlPlaneID != cpID {
			continue
		}
		cfg.orphaned = true
		for _, g := range cfg.groups {
			g.terminate(now, after)
		}
		if len(cfg.groups) == 0 {
			delete(c.configs, id)
		}
	}
}

// cloud returns the organisation's cloud-gateway state after sweeping it;
// the store's write lock must be held.
func (s *Server) cloud(o *organization) *cloudState {
	if o.cloud == nil {
		o.cloud = newCloudState(o.id, s.opts.CloudGateways.ProviderAccounts, s.clock.Now())
	}
	o.cloud.sweep(s.clock.Now())
	return o.cloud
}
