package entities

import (
	"slices"
	"testing"
)

// released records the clients released, as "server token".
type released []string

func (r *released) Forget(serverURL, token string) { *r = append(*r, serverURL+" "+token) }

// A token a configuration stops using has its clients released, unless
// another configuration still uses the same token on the same server.
func TestReplacedTokensAreReleased(t *testing.T) {
	for _, tc := range []struct {
		name string
		// change happens to the configuration "auth" of the tenant, which
		// reads the Secret tenant/token.
		change func(t *testing.T, r *AuthConfigReconciler, before authConfig)
		want   []string
	}{
		{name: "its Secret's token replaced", change: func(t *testing.T, r *AuthConfigReconciler, _ authConfig) {
			old := tokenSecretOf(tenant, "token", "kpat_tenant", tokenLabel)
			put(t, r.Refs.Secrets, tokenSecretOf(tenant, "token", "kpat_rotated", tokenLabel))
			r.releaseSecret(old)
		}, want: []string{tenantHost + " kpat_tenant"}},
		{name: "another Secret named", change: func(t *testing.T, r *AuthConfigReconciler, before authConfig) {
			after := before.DeepCopy()
			after.Spec.SecretRef.Name = "other"
			put(t, r.Refs.Secrets, tokenSecretOf(tenant, "other", "kpat_other", tokenLabel))
			r.releaseConfig(before, after)
		}, want: []string{tenantHost + " kpat_tenant"}},
		{name: "another server named", change: func(_ *testing.T, r *AuthConfigReconciler, before authConfig) {
			after := before.DeepCopy()
			after.Spec.ServerURL = "eu.api.konghq.com"
			r.releaseConfig(before, after)
		}, want: []string{tenantHost + " kpat_tenant"}},
		{name: "the configuration deleted", change: func(_ *testing.T, r *AuthConfigReconciler, before authConfig) {
			r.releaseConfig(before, nil)
		}, want: []string{tenantHost + " kpat_tenant"}},
		{name: "only its status written", change: func(_ *testing.T, r *AuthConfigReconciler, before authConfig) {
			after := before.DeepCopy()
			after.Status.OrganizationID = "org"
			r.releaseConfig(before, after)
		}},
		{name: "deleted while another configuration uses the same token", change: func(_ *testing.T, r *AuthConfigReconciler, before authConfig) {
			twin := before.DeepCopy()
			twin.Name, twin.UID = "twin", "uid-twin"
			r.Refs.Validations.record(subjectOf(twin, tenantHost, "kpat_tenant"), "org")
			r.releaseConfig(before, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refs := credentialRefs(t, &proofs{})
			ac := validAuthConfig(tenant, fromSecret("", "token"))
			put(t, refs.AuthConfigs, ac)
			var got released
			r := &AuthConfigReconciler{Refs: refs, KonnectClients: &got}
			// Its own proof of the token does not keep the clients.
			refs.Validations.record(subjectOf(ac, tenantHost, "kpat_tenant"), "org")
			tc.change(t, r, ac)
			if !slices.Equal(got, tc.want) {
				t.Errorf("released %q, want %q", got, tc.want)
			}
		})
	}
}

// The token of another namespace's Secret that no grant lets the
// configuration read was never used: there is nothing of it to release.
func TestATokenNeverAllowedIsNotReadToBeReleased(t *testing.T) {
	refs := credentialRefs(t, &proofs{})
	ac := validAuthConfig(tenant, fromSecret(victim, "token"))
	put(t, refs.AuthConfigs, ac)
	var got released
	r := &AuthConfigReconciler{Refs: refs, KonnectClients: &got}
	r.releaseConfig(ac, nil)
	r.releaseSecret(tokenSecretOf(victim, "token", "kpat_victim", tokenLabel))
	if len(got) != 0 {
		t.Fatalf("released %q", got)
	}
	if _, ok := refs.Validations.current(subjectOf(ac, tenantHost, "kpat_victim")); ok {
		t.Fatal("a proof exists for a token never allowed")
	}
}
