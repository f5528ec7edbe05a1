package inventory

import "testing"

func TestObjectsAreNamedAsKubectlNamesThem(t *testing.T) {
	cases := []struct {
		arg  string
		kind string // "" when refused
	}{
		{"KongService/orders", "KongService"},
		{"kongservices/orders", "KongService"},
		{"kongservice/orders", "KongService"},
		{"kc/alice", "KongConsumer"},
		{"kv/env", "KongVault"},
		{"konnectgatewaycontrolplane/prod", "KonnectGatewayControlPlane"},
		{"portalpage/getting-started", "PortalPage"},
		{"konnectconfigstores/tls-cert-keys", "KonnectConfigStore"},
		{"kongplugin/rate-limiting", ""}, // not an entity: its bindings are
		{"deployment/web", ""},
		{"orders", ""},
		{"kongservice/", ""},
	}
	for _, tc := range cases {
		targets, err := ParseTargets([]string{tc.arg})
		switch {
		case tc.kind == "" && err == nil:
			t.Errorf("%s: taken as %s, want refused", tc.arg, targets[0].Kind.Name)
		case tc.kind != "" && err != nil:
			t.Errorf("%s: %v", tc.arg, err)
		case tc.kind != "" && targets[0].Kind.Name != tc.kind:
			t.Errorf("%s: taken as %s, want %s", tc.arg, targets[0].Kind.Name, tc.kind)
		}
	}
}
