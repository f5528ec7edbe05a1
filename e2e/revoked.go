package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// mostRequestsPerMinuteRevoked bounds the requests a revoked token costs
// in any minute once Konnect's first 401 has come back.
const mostRequestsPerMinuteRevoked = 10

// mostRequestsBeforeTheFirst401 bounds the requests sent with the revoked
// token before Konnect's first 401 came back: nothing can call back what
// is already on its way, and the changes made at once go out up to the
// limiter's burst (konnect.DefaultBurst) while the first answers travel.
const mostRequestsBeforeTheFirst401 = konnect.DefaultBurst

// TokenRevoked revokes the token of the world's Secret in Konnect while a
// third of the services change, waits outageLength, then puts a new token
// in the Secret. Judged by the simulator's log: at most a burst of the
// limiter (20) sent before Konnect's first 401 came back, at most 10 a
// minute after it while the token is revoked, each with that token; none with the
// revoked token once the new one was used; every object converged within
// 30s of the replacement. Meanwhile the changed objects said that Konnect
// rejects the token (or that their auth configuration is blocked), and
// the leader's metrics said the token's organisation is held.
func TokenRevoked(t *testing.T) {
	ctx := t.Context()
	w := newOutageWorld(ctx, t, suite.cluster, "revoked", outageServices)
	w.start()
	w.start()
	lead, _ := w.leader(ctx, nil)
	w.apply(ctx)
	w.waitConverged(ctx, patience)
	orgs, err := w.sim.ownOrganizations(ctx)
	if err != nil || len(orgs) != 1 {
		t.Fatalf("the world's organisations: %v, %v", orgs, err)
	}

	revoked := w.token
	if err := w.sim.do(ctx, http.MethodPost, "/_sim/revoked-tokens", false, map[string]string{"token": revoked}, nil); err != nil {
		t.Fatal(err)
	}
	revokedAt := time.Now()
	var changed []int
	for i := range len(w.versions) / 3 {
		w.versions[i]++
		changed = append(changed, i)
	}
	w.apply(ctx)

	// What the user sees meanwhile: the changed objects say that Konnect
	// rejects the token (once its auth configuration is checked again, that
	// they are blocked by it, for the same reason), and the leader's
	// metrics that the token is held. The token stays revoked until they
	// do, if that is longer.
	err = waitFor(ctx, patience, func(ctx context.Context) error {
		if err := w.sayWhy(ctx, changed, commonv1alpha1.ReasonKonnectTokenRejected, "rejected", commonv1alpha1.ReasonBlockedByReference); err != nil {
			return err
		}
		return heldIn(ctx, lead, konnect.HoldUnauthorized)
	})
	if err != nil {
		t.Errorf("while the token is revoked: %v", err)
	}
	time.Sleep(time.Until(revokedAt.Add(outageLength)))

	replacement, err := randomToken()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.sim.do(ctx, http.MethodPost, "/_sim/tokens", false, map[string]string{"token": replacement, "organization": orgs[0].ID}, nil); err != nil {
		t.Fatal(err)
	}
	replaced := time.Now()
	// The test reads Konnect with the new token too.
	w.token, w.sim.token = replacement, replacement
	w.apply(ctx)
	convergedSeen := w.waitConverged(ctx, patience)

	log, err := w.sim.requestLog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	during := log.between(revokedAt, replaced)
	rejected := during.where(func(r requestEntry) bool { return r.Status == http.StatusUnauthorized })
	// The first 401 that came back: what was sent before it, the operator
	// could not have known of.
	var firstRejection requestEntry
	for _, r := range rejected {
		if firstRejection.Time.IsZero() || r.ended().Before(firstRejection.ended()) {
			firstRejection = r
		}
	}
	sentBlind := during.between(revokedAt, firstRejection.ended())
	afterRejection := during.between(firstRejection.ended(), replaced)
	others := during.where(func(r requestEntry) bool { return !r.withToken(revoked) })
	var seen requestEntry
	for _, r := range log.where(func(r requestEntry) bool { return r.withToken(replacement) }) {
		if seen.Time.IsZero() || r.Time.Before(seen.Time) {
			seen = r
		}
	}
	if seen.Time.IsZero() {
		t.Fatal("no request carried the new token")
	}
	stale := log.between(seen.ended(), time.Now().Add(time.Hour)).where(func(r requestEntry) bool { return r.withToken(revoked) })
	last, ok := log.between(replaced, convergedSeen).lastWrite()
	if !ok {
		t.Fatal("no write after the replacement")
	}
	took := last.ended().Sub(replaced)
	t.Logf("token revoked for %s (%s): %d requests (%d answered 401), %d of them sent before the first 401 came back, then at most %d in a minute; the new token was first used %s after the Secret changed (%s %s); "+
		"the last write needed %s after the Secret changed; %d requests with the revoked token after the new one was used",
		outageLength, w.answering(), during.count(), rejected.count(), sentBlind.count(), afterRejection.mostInAMinute(), seen.Time.Sub(replaced).Round(time.Millisecond), seen.Method, seen.Path,
		took.Round(time.Millisecond), stale.count())
	t.Logf("the requests while the token was revoked, from its revocation:%s", during.timeline(revokedAt))
	if rejected.count() == 0 {
		t.Error("Konnect rejected no request: the token was not revoked")
	}
	if n := sentBlind.count(); n > mostRequestsBeforeTheFirst401 {
		t.Errorf("%d requests sent with the revoked token before Konnect's first 401 came back, want at most %d (the limiter's burst)", n, mostRequestsBeforeTheFirst401)
	}
	if most := afterRejection.mostInAMinute(); most > mostRequestsPerMinuteRevoked {
		t.Errorf("%d requests within a minute after Konnect's first 401 came back, want at most %d", most, mostRequestsPerMinuteRevoked)
	}
	for _, r := range others {
		t.Errorf("a request with another token than the current, revoked one: %s %s", r.Method, r.Path)
	}
	for _, r := range stale {
		t.Errorf("a request with the revoked token after the new one was used: %s %s at %s", r.Method, r.Path, r.Time.Format(time.RFC3339Nano))
	}
	if took > convergedAfterReturn {
		t.Errorf("the last write needed came %s after the token was replaced, want at most %s", took.Round(time.Millisecond), convergedAfterReturn)
	}
	w.checkOneEventPerObject(ctx, commonv1alpha1.ReasonKonnectTokenRejected)
	w.checkAnsweredLate(log)
	w.checkNoViolations(ctx)
}
