package konnect

import (
	"fmt"
	"slices"
	"strings"
)

// DefaultAllowedHosts are Konnect's public API hosts: the regional ones and
// the global one of organisation-level APIs. They are where an auth
// configuration may send its token unless the operator is told otherwise
// (--konnect-allowed-hosts).
var DefaultAllowedHosts = []string{
	"us.api.konghq.com",
	"eu.api.konghq.com",
	"au.api.konghq.com",
	"me.api.konghq.com",
	"in.api.konghq.com",
	"sg.api.konghq.com",
	"global.api.konghq.com",
}

// AllowedHosts are the servers a token may be sent to, as normalised
// server URLs (https://host, or https://host:port for another port than
// 443). The zero value allows every server: what the operator starts with
// is always a list (ParseAllowedHosts).
type AllowedHosts struct {
	servers []string
}

// ParseAllowedHosts reads a list of hosts, each written as a server URL may
// be ("eu.api.konghq.com", "host:port", "https://host"). A host without a
// port allows port 443 only.
func ParseAllowedHosts(hosts []string) (AllowedHosts, error) {
	var out AllowedHosts
	for _, h := range hosts {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		normalized, err := NormalizeServerURL(h)
		if err != nil {
			return AllowedHosts{}, fmt.Errorf("allowed host %q: %w", h, err)
		}
		if !slices.Contains(out.servers, normalized) {
			out.servers = append(out.servers, normalized)
		}
	}
	if len(out.servers) == 0 {
		return AllowedHosts{}, fmt.Errorf("the list of allowed hosts is empty")
	}
	return out, nil
}

// Allows reports whether a token may be sent to serverURL, in any form
// NormalizeServerURL accepts.
func (a AllowedHosts) Allows(serverURL string) bool {
	if a.servers == nil {
		return true
	}
	normalized, err := NormalizeServerURL(serverURL)
	return err == nil && slices.Contains(a.servers, normalized)
}

// String lists the allowed hosts as the flag takes them.
func (a AllowedHosts) String() string {
	if a.servers == nil {
		return "(any)"
	}
	hosts := make([]string, len(a.servers))
	for i, s := range a.servers {
		hosts[i] = strings.TrimPrefix(s, "https://")
	}
	return strings.Join(hosts, ",")
}

// NotAllowedError is a server URL outside the allowed hosts: nothing is
// sent there.
type NotAllowedError struct {
	ServerURL string
	Allowed   AllowedHosts
	// Setting names what widens the list: the flag, or the chart value.
	Setting string
}

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("%s is not among the Konnect API hosts this operator may send a token to (%s); a cluster administrator can add it with %s",
		e.ServerURL, e.Allowed, e.Setting)
}
