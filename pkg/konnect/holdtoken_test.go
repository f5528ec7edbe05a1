package konnect

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// TestRejectedTokenIsHeldCheckedAtItsPaceAndReleasedWhenValidAgain:
// Konnect's first 401 holds the token; its requests are refused unsent
// and unwrap to an AuthError; GET /v3/organizations/me checks it every few
// seconds; the check Konnect accepts releases it.
func TestRejectedTokenIsHeldCheckedAtItsPaceAndReleasedWhenValidAgain(t *testing.T) {
	w := newHoldWorld(t, nil, Options{})
	c := w.client(testToken)
	w.sim.RevokeToken(testToken)
	answer := getMissingControlPlane(sdkCalls(c))
	if !IsAuth(answer) {
		t.Fatalf("got %v, want Konnect's 401", answer)
	}
	held := w.held(c, getMissingControlPlane)
	if held.Reason != HoldUnauthorized || !IsAuth(held) || !strings.Contains(held.Describe(), "has rejected the token of organisation") {
		t.Errorf("held: %s", held.Describe())
	}
	// A condition that quotes the error reads the same, answered or held.
	if held.Error() != answer.Error() {
		t.Errorf("held: %q, answered: %q", held.Error(), answer.Error())
	}
	for _, delay := range []time.Duration{firstTokenCheckDelay, 2 * firstTokenCheckDelay} {
		w.awaitProbeTimer()
		before := w.sent()
		w.clock.Step(delay)
		check := w.awaitLogged(before + 1)[before]
		if check.Path != "/v3/organizations/me" || check.Status != http.StatusUnauthorized || check.Credential != konnectsim.CredentialOf(testToken) {
			t.Fatalf("check: %+v", check)
		}
	}
	w.sim.AddToken(testToken, simOrg)
	w.awaitProbeTimer()
	w.clock.Step(maxProbeDelay)
	select {
	case <-held.Released():
	case <-time.After(10 * time.Second):
		t.Fatal("not released by the check Konnect accepted")
	}
	if err := getMissingControlPlane(sdkCalls(c)); !IsNotFound(err) {
		t.Errorf("after the release: %v, want Konnect's 404", err)
	}
}

// TestAForbiddenEntityDoesNotHoldTheToken: a 403 is about what the token
// may do, not whether it is valid.
func TestAForbiddenEntityDoesNotHoldTheToken(t *testing.T) {
	w := newHoldWorld(t, nil, Options{})
	c := w.client(testToken)
	w.sim.Faults().Set("get-control-plane", konnectsim.Fault{Times: 2, Status: http.StatusForbidden})
	for i, want := range []int{http.StatusForbidden, http.StatusForbidden, http.StatusNotFound} {
		err := getMissingControlPlane(sdkCalls(c))
		if got := statusOf(err); got != want {
			t.Fatalf("call %d: got %v, want HTTP %d", i+1, err, want)
		}
	}
	if c.auth.isHeld() || c.reach.Load().isHeld() {
		t.Error("held after 403s")
	}
}

// TestAValidatedTokenRetiresTheRejectedOneItReplaces: the check of a new
// token of the organisation (its configuration names it now) releases
// whoever waits on the rejected one; the rejected one is not probed any
// more, and what still uses it is refused without a request, until a
// configuration names it again and checks it.
func TestAValidatedTokenRetiresTheRejectedOneItReplaces(t *testing.T) {
	const replacement = "kpat_replacement"
	w := newHoldWorld(t, nil, Options{})
	old := w.client(testToken)
	w.sim.RevokeToken(testToken)
	_ = getMissingControlPlane(sdkCalls(old))
	held := w.held(old, getMissingControlPlane)

	w.sim.AddToken(replacement, simOrg)
	if _, err := w.factory.Organization(context.Background(), w.sim.URL, replacement); err != nil {
		t.Fatal(err)
	}
	if !isReleased(held) {
		t.Fatal("whoever waited on the rejected token was not released when its replacement was validated")
	}
	before := w.sent()
	w.clock.Step(10 * maxProbeDelay)
	time.Sleep(50 * time.Millisecond) // a probe, were one due, has had time to go
	retired := w.held(old, getMissingControlPlane)
	if !IsAuth(retired) || isReleased(retired) {
		t.Errorf("a request with the replaced token: %v, want it refused for the rejected token", retired)
	}
	for _, r := range w.sim.Requests()[before:] {
		if r.Credential == konnectsim.CredentialOf(testToken) {
			t.Errorf("a request with the replaced token after its replacement: %+v", r)
		}
	}
	if got := w.heldSeries()[old.OrganizationID()+"/"+HoldUnauthorized]; got != 0 {
		t.Errorf("%s{reason=unauthorized} = %v for a replaced token, want 0", MetricHeld, got)
	}

	// A configuration names it again: its check goes, and it is probed
	// again while Konnect rejects it.
	if _, err := w.factory.Organization(context.Background(), w.sim.URL, testToken); !IsAuth(err) {
		t.Fatalf("the check of the named token: %v, want Konnect's 401", err)
	}
	if got := w.sent() - before; got != 1 {
		t.Fatalf("%d requests for the check, want 1", got)
	}
	w.awaitProbeTimer()
	w.clock.Step(maxProbeDelay + maxProbeDelay/4)
	w.awaitLogged(before + 2)
}

// TestForgettingATokenEndsItsHold: a token the operator forgets (replaced
// in its Secret) is neither held nor checked any more.
func TestForgettingATokenEndsItsHold(t *testing.T) {
	w := newHoldWorld(t, nil, Options{})
	c := w.client(testToken)
	w.sim.RevokeToken(testToken)
	_ = getMissingControlPlane(sdkCalls(c))
	held := w.held(c, getMissingControlPlane)
	w.factory.Forget(w.sim.URL, testToken)
	if !isReleased(held) {
		t.Fatal("still held once forgotten")
	}
	before := w.sent()
	w.clock.Step(10 * maxProbeDelay)
	time.Sleep(50 * time.Millisecond)
	if n := w.sent() - before; n != 0 {
		t.Errorf("%d requests after the token was forgotten", n)
	}
}
