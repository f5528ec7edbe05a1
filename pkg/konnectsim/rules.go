package konnectsim

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// fieldError is one problem with a request body, reported Kong-admin style:
// a field error names the field, an entity error does not.
type fieldError struct {
	field    string
	messages []string
	// rule classifies the error in problem bodies' invalid_parameters;
	// "" means "invalid".
	rule string
}

func errField(field, format string, args ...any) fieldError {
	return fieldError{field: field, messages: []string{fmt.Sprintf(format, args...)}}
}

func errEntity(message string) fieldError {
	return fieldError{messages: []string{message}}
}

// checkFields applies the doc-independent checks every kind shares: unknown
// fields, coarse JSON types, required fields and tag syntax. Nulls are
// dropped (Konnect treats them as "unset").
func checkFields(k *kind, body map[string]any) []fieldError {
	var errs []fieldError
	for _, name := range sortedKeys(body) {
		v := body[name]
		ft, known := k.fields[name]
		if !known {
			errs = append(errs, errField(name, "unknown field"))
			continue
		}
		if v == nil {
			delete(body, name)
			continue
		}
		if msg := typeMismatch(ft, v); msg != "" {
			errs = append(errs, errField(name, "%s", msg))
		}
	}
	for _, name := range k.required {
		if s, ok := body[name].(string); (ok && s == "") || body[name] == nil {
			errs = append(errs, errField(name, "required field missing"))
		}
	}
	if tags, ok := body["tags"].([]any); ok {
		for _, t := range tags {
			s, _ := t.(string)
			if s == "" || strings.ContainsAny(s, ",/") || !isPrintable(s) {
				errs = append(errs, errField("tags", "invalid tag '%s': expected printable ascii (except `,` and `/`) or valid utf-8 sequences", s))
			}
		}
	}
	return errs
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func typeMismatch(ft fieldType, v any) string {
	switch ft {
	case tString:
		if _, ok := v.(string); !ok {
			return "expected a string"
		}
	case tInt:
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) {
			return "expected an integer"
		}
	case tNumber:
		if _, ok := v.(float64); !ok {
			return "expected a number"
		}
	case tBool:
		if _, ok := v.(bool); !ok {
			return "expected a boolean"
		}
	case tStrings:
		arr, ok := v.([]any)
		if !ok {
			return "expected an array"
		}
		for _, item := range arr {
			if _, ok := item.(string); !ok {
				return "expected an array of strings"
			}
		}
	case tArray:
		if _, ok := v.([]any); !ok {
			return "expected an array"
		}
	case tObject:
		if _, ok := v.(map[string]any); !ok {
			return "expected an object"
		}
	case tRef:
		obj, ok := v.(map[string]any)
		if !ok {
			return "expected an object"
		}
		if id, ok := obj["id"].(string); !ok || id == "" {
			return "missing primary key 'id'"
		}
	}
	return ""
}

func checkEnum(field string, v any, allowed []string) []fieldError {
	s, ok := v.(string)
	if v == nil || (ok && slices.Contains(allowed, s)) {
		return nil
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = strconv.Quote(a)
	}
	return []fieldError{errField(field, "value must be one of %s", strings.Join(quoted, ", "))}
}

func checkRange(field string, v any, minimum, maximum float64) []fieldError {
	f, ok := v.(float64)
	if !ok || (f >= minimum && f <= maximum) {
		return nil
	}
	return []fieldError{errField(field, "value should be between %v and %v", minimum, maximum)}
}

func prepareService(e map[string]any) []fieldError {
	if raw, ok := e["url"].(string); ok {
		delete(e, "url")
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return []fieldError{errEntity("missing properties: 'host'")}
		}
		e["protocol"] = u.Scheme
		e["host"] = u.Hostname()
		port := 80
		if u.Scheme == "https" || u.Scheme == "grpcs" || u.Scheme == "wss" {
			port = 443
		}
		if p := u.Port(); p != "" {
			port, _ = strconv.Atoi(p)
		}
		e["port"] = float64(port)
		if u.Path != "" {
			e["path"] = u.Path
		}
	}
	var errs []fieldError
	if h, _ := e["host"].(string); h == "" {
		errs = append(errs, errField("host", "required field missing"))
	} else {
		errs = append(errs, checkHost(h)...)
	}
	errs = append(errs, checkEnum("protocol", e["protocol"], protocols)...)
	errs = append(errs, checkRange("port", e["port"], 0, 65535)...)
	for _, f := range []string{"connect_timeout", "read_timeout", "write_timeout"} {
		errs = append(errs, checkRange(f, e[f], 1, 2147483646)...)
	}
	errs = append(errs, checkRange("retries", e["retries"], 0, 32767)...)
	errs = append(errs, checkServicePath(e["path"])...)
	if e["client_certificate"] != nil && e["protocol"] != "https" {
		errs = append(errs, errEntity("client_certificate can be set only when protocol is `https`"))
	}
	return errs
}

func prepareRoute(e map[string]any) []fieldError {
	var errs []fieldError
	if arr, ok := e["protocols"].([]any); ok {
		for _, p := range arr {
			errs = append(errs, checkEnum("protocols", p, protocols)...)
		}
		if len(arr) == 0 {
			errs = append(errs, errField("protocols", "length must be at least 1"))
		}
	}
	errs = append(errs, checkEnum("path_handling", e["path_handling"], []string{"v0", "v1"})...)
	if _, expression := e["expression"]; expression {
		for _, f := range []string{"methods", "hosts", "paths", "headers", "snis", "sources", "destinations", "regex_priority"} {
			if _, set := e[f]; set {
				errs = append(errs, errField(f, "cannot be set on an expression route"))
			}
		}
		if _, ok := e["priority"]; !ok {
			e["priority"] = float64(0)
		}
		return errs
	}
	if _, set := e["priority"]; set {
		errs = append(errs, errField("priority", "can only be set on an expression route"))
	}
	if _, ok := e["regex_priority"]; !ok {
		e["regex_priority"] = float64(0)
	}
	matchers := []string{"methods", "hosts", "headers", "paths", "snis", "sources", "destinations"}
	if !slices.ContainsFunc(matchers, func(f string) bool { return !isEmpty(e[f]) }) {
		errs = append(errs, errEntity("must set one of 'methods', 'hosts', 'headers', 'paths', 'snis' when 'protocols' is 'https'"))
	}
	errs = append(errs, checkRoutePaths(e["paths"])...)
	return append(errs, checkRouteHosts(e["hosts"])...)
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	case string:
		return t == ""
	}
	return false
}

func preparePlugin(e map[string]any) []fieldError {
	var errs []fieldError
	if arr, ok := e["protocols"].([]any); ok {
		for _, p := range arr {
			errs = append(errs, checkEnum("protocols", p, protocols)...)
		}
	}
	return append(errs, checkPlugin(e)...)
}

func prepareSNI(e map[string]any) []fieldError { return checkSNIName(e["name"]) }

func prepareConsumer(e map[string]any) []fieldError {
	if isEmpty(e["username"]) && isEmpty(e["custom_id"]) {
		return []fieldError{errEntity("at least one of these fields must be non-empty: 'custom_id', 'username'")}
	}
	return nil
}

func prepareTarget(e map[string]any) []fieldError {
	t, _ := e["target"].(string)
	if t == "" {
		return nil // reported as a missing required field
	}
	if _, _, problem := kongAddress(t); problem != "" {
		return []fieldError{errField("target", "Invalid target; not a valid hostname or ip address")}
	}
	// Kong stores targets as host:port, adding the default port 8000.
	if _, _, err := splitHostPort(t); err != nil {
		e["target"] = t + ":8000"
	}
	return checkRange("weight", e["weight"], 0, 65535)
}

func splitHostPort(s string) (string, string, error) {
	i := strings.LastIndex(s, ":")
	if i < 0 || strings.HasSuffix(s, "]") {
		return "", "", fmt.Errorf("no port in %q", s)
	}
	if _, err := strconv.Atoi(s[i+1:]); err != nil {
		return "", "", fmt.Errorf("bad port in %q", s)
	}
	return s[:i], s[i+1:], nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
