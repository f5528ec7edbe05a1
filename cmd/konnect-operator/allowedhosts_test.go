package main

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

func TestAllowedHostsFlagDefaultsToKonnectsHostsAndRefusesWhatIsNoHost(t *testing.T) {
	o, err := parseFlags(flag.NewFlagSet("test", flag.ContinueOnError), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := splitList(o.allowedHosts); !slices.Equal(got, konnect.DefaultAllowedHosts) {
		t.Errorf("by default tokens go to %v, want Konnect's hosts %v", got, konnect.DefaultAllowedHosts)
	}
	o, err = parseFlags(flag.NewFlagSet("test", flag.ContinueOnError), []string{"--konnect-allowed-hosts=eu.api.konghq.com, proxy.example.com:8443"})
	if err != nil {
		t.Fatal(err)
	}
	if got := splitList(o.allowedHosts); !slices.Equal(got, []string{"eu.api.konghq.com", "proxy.example.com:8443"}) {
		t.Errorf("allowed hosts %v", got)
	}
	for _, bad := range []string{"--konnect-allowed-hosts=", "--konnect-allowed-hosts=https://proxy.example.com/konnect"} {
		if _, err := parseFlags(flag.NewFlagSet("test", flag.ContinueOnError), []string{bad}); err == nil || !strings.Contains(err.Error(), "--konnect-allowed-hosts") {
			t.Errorf("%s was not refused with a message naming the flag: %v", bad, err)
		}
	}
}
