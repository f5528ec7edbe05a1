package kubectlkonnect

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// The plugin sends a token where the operator would, and to a server its
// user names: never to a host an auth configuration alone names.
func TestThePluginSendsTokensOnlyToAllowedHosts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		server  string
		allowed bool
	}{
		{name: "Konnect's host", server: "eu.api.konghq.com", allowed: true},
		{name: "a host an auth configuration names", server: "tenant.example.com"},
		{name: "the host of --server-url", args: []string{"--server-url", "tenant.example.com"}, server: "tenant.example.com", allowed: true},
		{name: "a host of --konnect-allowed-hosts", args: []string{"--konnect-allowed-hosts", "proxy.example.com:8443"}, server: "proxy.example.com:8443", allowed: true},
		{name: "Konnect's host once the list is replaced", args: []string{"--konnect-allowed-hosts", "proxy.example.com:8443"}, server: "eu.api.konghq.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var access konnectFlags
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			access.add(fs, "server")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			factory, err := access.factory()
			if err != nil {
				t.Fatal(err)
			}
			_, err = factory.Client(tc.server, "kpat_user")
			if tc.allowed && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.allowed && !konnect.IsInvalidInput(err) {
				t.Fatalf("a client for %s: %v", tc.server, err)
			}
		})
	}
}
