package konnectsim

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp/syntax"
	"strconv"
	"strings"
)

// Host names and paths, checked the way Kong's schema checks them (its
// typedefs host, host_with_optional_port, wildcard_host, sni, path and
// router_path), with Kong's messages. The OpenAPI document only says
// "string" for all of them.

// kongAddress checks an address the way Kong's normalize_ip does: an IPv4
// or IPv6 address or a name, each with an optional port. It returns
// whether a port was given, whether the address is an IP, and Kong's
// complaint ("" when it is valid).
func kongAddress(s string) (hasPort, isIP bool, problem string) {
	withoutColons := strings.ReplaceAll(s, ":", "")
	switch {
	case strings.Count(s, ":") > 1:
		return ipv6Address(s)
	case withoutColons != "" && strings.Trim(withoutColons, "0123456789.") == "":
		return ipv4Address(s)
	}
	name, hasPort := s, false
	if i := strings.LastIndex(s, ":"); i >= 0 && i < len(s)-1 && allDigits(s[i+1:]) {
		name, hasPort = s[:i], true
		if !validPort(s[i+1:]) {
			return true, false, "invalid port number"
		}
	}
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") != "" {
		return hasPort, false, "invalid hostname: " + s
	}
	labels := strings.Split(name, ".")
	for i, label := range labels {
		// A trailing dot (a fully qualified name) is allowed; Kong lets a
		// label start with a dash (punycode) but not end with one.
		if strings.HasSuffix(label, "-") || (label == "" && i != len(labels)-1) {
			return hasPort, false, "invalid hostname: " + s
		}
	}
	return hasPort, false, ""
}

func ipv4Address(s string) (hasPort, isIP bool, problem string) {
	addr, port, found := strings.Cut(s, ":")
	if found {
		if !allDigits(port) || port == "" {
			return true, true, "invalid ipv4 address: " + s
		}
		if !validPort(port) {
			return true, true, "invalid port number"
		}
	}
	octets := strings.Split(addr, ".")
	if len(octets) != 4 {
		return found, true, "invalid ipv4 address: " + s
	}
	for _, o := range octets {
		if n, err := strconv.Atoi(o); o == "" || err != nil || n > 255 {
			return found, true, "invalid ipv4 address: " + s
		}
	}
	return found, true, ""
}

func ipv6Address(s string) (hasPort, isIP bool, problem string) {
	addr := s
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 {
			return false, true, "invalid ipv6 address: " + s
		}
		addr = s[1:end]
		if rest := s[end+1:]; rest != "" {
			if !strings.HasPrefix(rest, ":") || !allDigits(rest[1:]) || rest == ":" {
				return false, true, "invalid ipv6 address: " + s
			}
			if !validPort(rest[1:]) {
				return true, true, "invalid port number"
			}
			hasPort = true
		}
	}
	if ip, err := netip.ParseAddr(addr); err != nil || !ip.Is6() || ip.Zone() != "" {
		return hasPort, true, "invalid ipv6 address: " + s
	}
	return hasPort, true, ""
}

func allDigits(s string) bool { return strings.Trim(s, "0123456789") == "" }

func validPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n <= 65535
}

// checkHost is Kong's host (of a service): an address without a port.
func checkHost(v any) []fieldError {
	const field = "host"
	s, ok := v.(string)
	if !ok {
		return nil
	}
	hasPort, _, problem := kongAddress(s)
	switch {
	case problem != "" && problem != "invalid port number":
		return []fieldError{errField(field, "invalid value: %s", s)}
	case hasPort:
		return []fieldError{errField(field, "must not have a port")}
	}
	return nil
}

// checkRouteHosts is Kong's hosts of a route: at most one wildcard, as the
// leftmost or rightmost label, and an address with an optional port.
func checkRouteHosts(v any) []fieldError {
	hosts, _ := v.([]any)
	var errs []fieldError
	for _, h := range hosts {
		s, _ := h.(string)
		switch {
		case strings.Count(s, "*") > 1:
			errs = append(errs, errField("hosts", "invalid wildcard: must have at most one wildcard"))
		case strings.Contains(s, "*") && !strings.HasPrefix(s, "*.") && !strings.HasSuffix(s, ".*"):
			errs = append(errs, errField("hosts", "invalid wildcard: must be placed at leftmost or rightmost label"))
		default:
			if _, _, problem := kongAddress(strings.ReplaceAll(s, "*", "abc")); problem != "" {
				errs = append(errs, errField("hosts", "%s", problem))
			}
		}
	}
	return errs
}

// checkSNIName is Kong's wildcard_host, the name of an SNI: a name (not an
// IP) without a port, with at most one wildcard at either end.
func checkSNIName(v any) []fieldError {
	const field = "name"
	s, ok := v.(string)
	if !ok {
		return nil
	}
	name := s
	if i := strings.Index(s, "*"); i >= 0 {
		if i != 0 && i != len(s)-1 {
			return []fieldError{errField(field, "wildcard must be leftmost or rightmost character")}
		}
		if strings.Count(s, "*") > 1 {
			return []fieldError{errField(field, "only one wildcard must be specified")}
		}
		name = strings.ReplaceAll(s, "*", "wildcard")
	}
	hasPort, isIP, problem := kongAddress(name)
	switch {
	case problem != "" && problem != "invalid port number":
		return []fieldError{errField(field, "invalid value: %s", name)}
	case isIP:
		return []fieldError{errField(field, "must not be an IP")}
	case hasPort:
		return []fieldError{errField(field, "must not have a port")}
	}
	return nil
}

// pathCharacters are what Kong's path allows: RFC 3986 unreserved
// characters, sub-delimiters, ':', '@', '/' and '%'.
const pathCharacters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_~/%:@!$&'()*+,;="

// checkPercentEncoding finds a '%' not followed by two hex digits.
func checkPercentEncoding(field, p string) []fieldError {
	for i := 0; i < len(p); i++ {
		if p[i] != '%' {
			continue
		}
		if i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]) {
			i += 2
			continue
		}
		bad := p[i:min(i+3, len(p))]
		return []fieldError{errField(field, "invalid url-encoded value: '%s'", bad)}
	}
	return nil
}

func isHex(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }

// checkServicePath is Kong's path: it starts with '/', has no empty
// segment, only RFC 3986 characters and well-formed percent-encoding.
func checkServicePath(v any) []fieldError {
	p, ok := v.(string)
	switch {
	case !ok:
		return nil
	case !strings.HasPrefix(p, "/"):
		return []fieldError{errField("path", "should start with: /")}
	case strings.Contains(p, "//"):
		return []fieldError{errField("path", "must not have empty segments")}
	case strings.Trim(p, pathCharacters) != "":
		return []fieldError{errField("path", "invalid path: '%s' (characters outside of the reserved list of RFC 3986 found)", p)}
	}
	return checkPercentEncoding("path", p)
}

// checkRoutePaths is Kong's router_path: a fixed path in normal form, or
// '~' and a regular expression that compiles.
func checkRoutePaths(v any) []fieldError {
	paths, _ := v.([]any)
	var errs []fieldError
	for _, item := range paths {
		p, _ := item.(string)
		switch {
		case !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~/"):
			errs = append(errs, errField("paths", "should start with: / (fixed path) or ~/ (regex path)"))
		case strings.Contains(p, "//"):
			errs = append(errs, errField("paths", "must not have empty segments"))
		default:
			if perr := checkPercentEncoding("paths", p); perr != nil {
				errs = append(errs, perr...)
			} else if strings.HasPrefix(p, "~") {
				errs = append(errs, checkRegexPath(p[1:])...)
			} else if normal := normalizePath(p); normal != p {
				errs = append(errs, errField("paths", "non-normalized path, consider use '%s' instead", normal))
			}
		}
	}
	return errs
}

// pcreMessages are PCRE2's words for the mistakes that both PCRE and Go's
// regexp refuse.
var pcreMessages = map[syntax.ErrorCode]string{
	syntax.ErrMissingParen:          "missing closing parenthesis",
	syntax.ErrUnexpectedParen:       "unmatched closing parenthesis",
	syntax.ErrMissingBracket:        "missing terminating ] for character class",
	syntax.ErrMissingRepeatArgument: "quantifier does not follow a repeatable item",
	syntax.ErrTrailingBackslash:     "\\ at end of pattern",
	syntax.ErrInvalidCharRange:      "range out of order in character class",
}

// checkRegexPath compiles a regex path. Kong compiles it with PCRE; Go's
// RE2 syntax is close but not the same: RE2 lacks lookaround,
// backreferences, possessive quantifiers and atomic groups, and limits
// repeat counts to 1000. So only the mistakes that PCRE refuses too
// (pcreMessages) are refused here; a pattern that only RE2 cannot compile
// is accepted, as Konnect would accept it.
func checkRegexPath(re string) []fieldError {
	_, err := syntax.Parse(re, syntax.Perl)
	if err == nil {
		return nil
	}
	var serr *syntax.Error
	if !errors.As(err, &serr) {
		return nil
	}
	message, refused := pcreMessages[serr.Code]
	if !refused {
		return nil
	}
	return []fieldError{errField("paths", "invalid regex: '%s' (PCRE returned: %s)", re, message)}
}

// normalizePath is what Kong's normalize makes of a fixed path: percent-
// encoded unreserved characters decoded, the other escapes in upper case,
// and dot segments removed (RFC 3986 §6.2.2).
func normalizePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			n, err := strconv.ParseUint(p[i+1:i+3], 16, 8)
			if err == nil {
				if c := byte(n); strings.IndexByte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~", c) >= 0 {
					b.WriteByte(c)
				} else {
					fmt.Fprintf(&b, "%%%02X", c)
				}
				i += 2
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return removeDotSegments(b.String())
}

func removeDotSegments(p string) string {
	segments := strings.Split(p, "/")
	var out []string
	for i, s := range segments {
		last := i == len(segments)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return strings.Join(out, "/")
}
