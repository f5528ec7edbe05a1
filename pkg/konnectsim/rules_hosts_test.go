package konnectsim

import (
	"strings"
	"testing"
)

func TestKongAddress(t *testing.T) {
	for _, tc := range []struct {
		address        string
		hasPort, isIP  bool
		problemContent string // "" when valid
	}{
		{address: "echo.example.com"},
		{address: "echo.example.com.", problemContent: ""}, // fully qualified
		{address: "under_score.example"},
		{address: "-punycode.example"},
		{address: "localhost:8080", hasPort: true},
		{address: "10.0.0.1", isIP: true},
		{address: "10.0.0.1:80", hasPort: true, isIP: true},
		{address: "::1", isIP: true},
		{address: "[2001:db8::1]:443", hasPort: true, isIP: true},
		{address: "bad host!!", problemContent: "invalid hostname: bad host!!"},
		{address: "trailing-.example", problemContent: "invalid hostname"},
		{address: "double..dot", problemContent: "invalid hostname"},
		{address: "", problemContent: "invalid hostname"},
		{address: "300.1.1.1", isIP: true, problemContent: "invalid ipv4 address: 300.1.1.1"},
		{address: "1.2.3", isIP: true, problemContent: "invalid ipv4 address"},
		{address: "example.com:99999", hasPort: true, problemContent: "invalid port number"},
		{address: "fe80::zz", isIP: true, problemContent: "invalid ipv6 address"},
	} {
		t.Run(tc.address, func(t *testing.T) {
			hasPort, isIP, problem := kongAddress(tc.address)
			if tc.problemContent == "" && problem != "" || tc.problemContent != "" && !strings.Contains(problem, tc.problemContent) {
				t.Fatalf("problem %q, want %q", problem, tc.problemContent)
			}
			if problem == "" && (hasPort != tc.hasPort || isIP != tc.isIP) {
				t.Fatalf("port %v, IP %v; want %v, %v", hasPort, isIP, tc.hasPort, tc.isIP)
			}
		})
	}
}

func TestHostAndPathChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		errs []fieldError
		want string // the one message, "" for none
	}{
		{"service host name", checkHost("echo.example.com"), ""},
		{"service host with a port", checkHost("echo.example.com:80"), "must not have a port"},
		{"service host with spaces", checkHost("bad host!!"), "invalid value: bad host!!"},
		{"route host wildcard", checkRouteHosts([]any{"*.example.com", "example.*", "api.example.com:8443"}), ""},
		{"route host with two wildcards", checkRouteHosts([]any{"*.*.example.com"}), "invalid wildcard: must have at most one wildcard"},
		{"route host with a wildcard inside", checkRouteHosts([]any{"api.*.example.com"}), "invalid wildcard: must be placed at leftmost or rightmost label"},
		{"route host invalid", checkRouteHosts([]any{"bad host"}), "invalid hostname: bad host"},
		{"SNI name", checkSNIName("*.example.com"), ""},
		{"SNI IP", checkSNIName("10.0.0.1"), "must not be an IP"},
		{"SNI wildcard inside", checkSNIName("a.*.example.com"), "wildcard must be leftmost or rightmost character"},
		{"service path", checkServicePath("/api/v1"), ""},
		{"service path relative", checkServicePath("api"), "should start with: /"},
		{"service path empty segment", checkServicePath("/api//v1"), "must not have empty segments"},
		{"service path space", checkServicePath("/a b"), "invalid path: '/a b' (characters outside of the reserved list of RFC 3986 found)"},
		{"service path bad escape", checkServicePath("/a%zz"), "invalid url-encoded value: '%zz'"},
		{"route paths", checkRoutePaths([]any{"/echo", "~/api/v[0-9]+$", "/a%2Fb"}), ""},
		{"route path relative", checkRoutePaths([]any{"echo"}), "should start with: / (fixed path) or ~/ (regex path)"},
		{"route regex path without slash", checkRoutePaths([]any{"~api"}), "should start with: / (fixed path) or ~/ (regex path)"},
		{"route regex unclosed group", checkRoutePaths([]any{"~/api/(unclosed"}), "invalid regex: '/api/(unclosed' (PCRE returned: missing closing parenthesis)"},
		{"route regex unclosed class", checkRoutePaths([]any{"~/api/[a-z"}), "invalid regex: '/api/[a-z' (PCRE returned: missing terminating ] for character class)"},
		// RE2 cannot compile a lookahead, PCRE can: Konnect accepts it.
		{"route regex with lookahead", checkRoutePaths([]any{"~/api/(?!internal)"}), ""},
		{"route path with dot segments", checkRoutePaths([]any{"/a/./b/../c"}), "non-normalized path, consider use '/a/c' instead"},
		{"route path with escaped letter", checkRoutePaths([]any{"/%61pi"}), "non-normalized path, consider use '/api' instead"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			switch {
			case tc.want == "" && len(tc.errs) > 0:
				t.Fatalf("refused: %+v", tc.errs)
			case tc.want != "" && (len(tc.errs) != 1 || tc.errs[0].messages[0] != tc.want):
				t.Fatalf("errors %+v, want one saying %q", tc.errs, tc.want)
			}
		})
	}
}

func TestPluginChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		plugin map[string]any
		field  string // of the one error; "" for none
		want   string
	}{
		{name: "rate-limiting as the samples have it", plugin: map[string]any{"name": "rate-limiting", "config": map[string]any{"minute": 5.0, "policy": "local"}}},
		{name: "a word for a number", plugin: map[string]any{"name": "rate-limiting", "config": map[string]any{"minute": "five"}},
			field: "config.minute", want: "expected a number"},
		{name: "no limit", plugin: map[string]any{"name": "rate-limiting", "config": map[string]any{"policy": "local"}},
			want: "at least one of these fields must be non-empty: 'config.second', 'config.minute', 'config.hour', 'config.day', 'config.month', 'config.year'"},
		{name: "a limit of zero", plugin: map[string]any{"name": "rate-limiting", "config": map[string]any{"second": 0.0}},
			field: "config.second", want: "value must be greater than 0"},
		{name: "an unknown policy", plugin: map[string]any{"name": "rate-limiting", "config": map[string]any{"minute": 1.0, "policy": "memory"}},
			field: "config.policy", want: "expected one of: local, cluster, redis"},
		{name: "a misspelt field", plugin: map[string]any{"name": "rate-limiting", "config": map[string]any{"minute": 5.0, "minutes": 5.0}},
			field: "config.minutes", want: "unknown field"},
		{name: "a redis record", plugin: map[string]any{"name": "rate-limiting", "config": map[string]any{"minute": 5.0, "redis": map[string]any{"port": "6379"}}},
			field: "config.redis.port", want: "expected a number"},
		{name: "correlation-id generator", plugin: map[string]any{"name": "correlation-id", "config": map[string]any{"generator": "random"}},
			field: "config.generator", want: "expected one of: uuid, uuid#counter, tracker"},
		{name: "response-transformer headers", plugin: map[string]any{"name": "response-transformer", "config": map[string]any{"add": map[string]any{"headers": "X-A:b"}}},
			field: "config.add.headers", want: "expected an array"},
		{name: "cors methods", plugin: map[string]any{"name": "cors", "config": map[string]any{"methods": []any{"GET", "FETCH"}}},
			field: "config.methods", want: "expected one of: GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS, TRACE, CONNECT"},
		{name: "a plugin without a schema here", plugin: map[string]any{"name": "key-auth", "config": map[string]any{"key_names": []any{"apikey"}}}},
		{name: "an unknown plugin", plugin: map[string]any{"name": "rate-limitting", "config": map[string]any{}},
			field: "name", want: "plugin 'rate-limitting' not enabled; add it to the 'plugins' configuration property"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := checkPlugin(tc.plugin)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Fatalf("refused: %+v", errs)
			case tc.want != "" && (len(errs) != 1 || errs[0].field != tc.field || errs[0].messages[0] != tc.want):
				t.Fatalf("errors %+v, want one on %q saying %q", errs, tc.field, tc.want)
			}
		})
	}
}
