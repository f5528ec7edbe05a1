package konnect

import (
	"context"
	"time"

	"github.com/Kong/sdk-konnect-go/models/operations"
)

// probeUntilReleased probes Konnect at the hold's pace until an answer
// releases the hold (cancelling ctx).
func (h *hold) probeUntilReleased(ctx context.Context) {
	for {
		h.mu.Lock()
		if ctx.Err() != nil {
			// Released (under the lock): the next hold paces itself.
			h.mu.Unlock()
			return
		}
		delay := h.nextDelayLocked()
		h.mu.Unlock()
		timer := h.clock.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C():
		}
		h.mu.Lock()
		c, organization := h.prober, h.organization
		h.mu.Unlock()
		if c == nil {
			continue // no current token to ask with yet
		}
		probeCtx, cancel := context.WithTimeout(withProbe(ctx), probeTimeout)
		err := h.probe(probeCtx, c)
		cancel()
		h.metrics.observeProbe(organizationLabel(organization), h.reason, h.probeSucceeded(err))
	}
}

// probeSucceeded reports whether a probe's outcome ends the hold: any
// answer for reachability, a valid token for a token.
func (h *hold) probeSucceeded(err error) bool {
	if h.reason == HoldUnauthorized {
		return err == nil
	}
	return err == nil || !IsTransient(err)
}

// nextDelayLocked is the wait before the next probe: firstProbeDelay (a
// token's: firstTokenCheckDelay), doubling up to maxProbeDelay, each
// spread by probeJitter.
func (h *hold) nextDelayLocked() time.Duration {
	first := firstProbeDelay
	if h.reason == HoldUnauthorized {
		first = firstTokenCheckDelay
	}
	delay := maxProbeDelay
	if h.step < 8 {
		delay = min(first<<h.step, maxProbeDelay)
	}
	h.step++
	spread := 1 - probeJitter + 2*probeJitter*h.random()
	return time.Duration(float64(delay) * spread)
}

// probeOrganization asks whether Konnect answers the organisation again:
// one control plane of its list, on the regional server the failed
// requests went to. It is a read, so a probe never writes twice nor writes
// for a process that lost its lease; it is one of the cheapest requests
// there are; and it asks the same server as the entity calls do, where
// GET /v3/organizations/me is answered by Konnect's global host, which can
// be up while a regional one is down. Any answer counts, even a 403 of a
// token that may not list control planes.
func probeOrganization(ctx context.Context, c *Client) error {
	one := int64(1)
	_, err := Call(ctx, Operation{Verb: "probe", Entity: "control_plane"}, func(ctx context.Context) (*operations.ListControlPlanesResponse, error) {
		return c.sdk.ControlPlanes.ListControlPlanes(ctx, operations.ListControlPlanesRequest{PageSize: &one})
	})
	return err
}

// checkToken asks whether Konnect accepts a held token again: GET
// /v3/organizations/me, the check that validated it in the first place.
func checkToken(ctx context.Context, c *Client) error {
	_, err := Call(ctx, Operation{Verb: "probe", Entity: "organization"}, func(ctx context.Context) (*operations.GetOrganizationsMeResponse, error) {
		return c.sdk.Me.GetOrganizationsMe(ctx)
	})
	return err
}

type probeKey struct{}

// withProbe marks ctx's request as a hold's probe, which the hold lets
// through.
func withProbe(ctx context.Context) context.Context {
	return context.WithValue(ctx, probeKey{}, true)
}

func isProbe(ctx context.Context) bool {
	probe, _ := ctx.Value(probeKey{}).(bool)
	return probe
}
