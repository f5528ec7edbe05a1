package konnect

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// NormalizeServerURL turns the server URL of a KonnectAPIAuthConfiguration
// into the base URL the client uses and the operator writes into status:
// "eu.api.konghq.com", "host:port" and "https://host[:port][/]" all become
// "https://host[:port]" with the host in lower case and the default port
// dropped. Konnect only speaks HTTPS, so any other scheme is rejected, as are
// paths, queries, fragments and credentials, which the client could not honour.
func NormalizeServerURL(raw string) (string, error) {
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" {
		return "", fmt.Errorf("server URL is empty")
	}
	if strings.ContainsAny(trimmed, " \t\r\n") {
		return "", fmt.Errorf("server URL %q contains white space", raw)
	}
	withScheme := trimmed
	if !strings.Contains(trimmed, "://") {
		withScheme = "https://" + trimmed
	}
	u, err := url.Parse(withScheme)
	if err != nil {
		return "", fmt.Errorf("server URL %q is not a valid URL: %w", raw, err)
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return "", fmt.Errorf("server URL %q: only https is supported", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("server URL %q must not contain credentials", raw)
	}
	if u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", fmt.Errorf("server URL %q must be a host name, optionally with a port, and no path or query", raw)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", fmt.Errorf("server URL %q has no host", raw)
	}
	if strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") || strings.Contains(host, "..") {
		return "", fmt.Errorf("server URL %q has an invalid host name", raw)
	}
	port := u.Port()
	if strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("server URL %q has an empty port", raw)
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("server URL %q has an invalid port %q", raw, port)
		}
		if n == 443 {
			port = ""
		}
	}
	if port == "" {
		if strings.Contains(host, ":") {
			return "https://[" + host + "]", nil
		}
		return "https://" + host, nil
	}
	return "https://" + net.JoinHostPort(host, port), nil
}
