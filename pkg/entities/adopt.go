package entities

import (
	"net/url"
	"strconv"
)

// diff collects the names of the fields in which two entities differ.
type diff []string

func (d *diff) check(field string, equal bool) {
	if !equal {
		*d = append(*d, field)
	}
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// urlParts splits a service URL into protocol, host, port and path,
// applying Konnect's defaults.
func urlParts(raw string) (protocol, host string, port int, path string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", 0, ""
	}
	protocol, host, path = u.Scheme, u.Hostname(), u.Path
	port = 80
	if protocol == "https" {
		port = 443
	}
	if p, err := strconv.Atoi(u.Port()); err == nil {
		port = p
	}
	return protocol, host, port, orDefault(path, "/")
}
