package integration

import (
	"fmt"
	"strings"
	"testing"

	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// rotatedToken is a second token of the test's organisation.
const rotatedToken = "kpat_rotatedTestToken00000000000000000000000000000000"

// A token rotated in its Secret is used everywhere at once: once a request
// carried the new token, none carries the old one, on any path — the
// configuration's own check, entity writes, and the periodic listings of
// every kind, consumers and consumer groups among them.
func TestARotatedTokenIsUsedEverywhereAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{tokens: []string{rotatedToken}})
	e.readyFromSecret()
	e.createConsumerGroup("gold")
	e.programmedConsumerGroup("gold")
	e.createConsumer("alice", "gold")
	e.programmedConsumer("alice")
	e.createService("svc")
	e.programmedService("svc")
	// Every kind has listed once with the first token.
	e.step(e.opts.syncPeriod)
	e.step(e.opts.syncPeriod)
	oldToken, newToken := konnectsim.CredentialOf(testToken), konnectsim.CredentialOf(rotatedToken)
	before := len(e.sim.Requests())

	e.updateSecretData("token", map[string][]byte{"token": []byte(rotatedToken)})
	e.eventually("a request with the new token", func() error {
		for _, r := range e.sim.Requests()[before:] {
			if r.Credential == newToken {
				return nil
			}
		}
		return fmt.Errorf("none yet")
	})
	// Writes, and the listings of two more periods.
	e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Tags = append(s.Spec.Tags, "rotated") })
	e.updateConsumer("alice", func(c *configurationv1.KongConsumer) { c.Spec.Tags = append(c.Spec.Tags, "rotated") })
	e.programmedService("svc")
	e.programmedConsumer("alice")
	e.step(e.opts.syncPeriod)
	e.step(e.opts.syncPeriod)

	after := e.sim.Requests()[before:]
	first := -1
	for i, r := range after {
		if r.Credential == newToken && first < 0 {
			first = i
		}
		if first >= 0 && r.Credential == oldToken {
			t.Fatalf("%s %s carried the old token after the new one was used (%s %s)", r.Method, r.Path, after[first].Method, after[first].Path)
		}
	}
	// Every path was taken with the new token.
	for _, path := range []struct{ method, fragment string }{
		{"GET", "/organizations/me"},
		{"GET", "/consumers"},
		{"GET", "/consumer_groups"},
		{"GET", "/services"},
		{"GET", "/v2/control-planes"},
		{"PUT", "/services/"},
	} {
		found := false
		for _, r := range after[first:] {
			if r.Method == path.method && strings.Contains(r.Path, path.fragment) && r.Credential == newToken {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no %s %s with the new token after the rotation", path.method, path.fragment)
		}
	}
}
