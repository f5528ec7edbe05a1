package konnectsim

import (
	"math"
	"slices"
	"strings"
)

// Plugins, checked the way Konnect checks them and the OpenAPI document does
// not say: the name must be a plugin Konnect knows, and for the plugins
// that the samples, the README and the tests use, the configuration must
// match the plugin's schema (field names, types, allowed values), with
// Kong's messages. Other known plugins' configurations are taken as they
// are.

// knownPlugins are the plugins bundled with Kong Gateway (open source and
// Enterprise), which Konnect control planes accept without a custom
// schema.
var knownPlugins = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`
		acl acme ai-aws-guardrails ai-azure-content-safety ai-gcp-model-armor ai-lakera-guard
		ai-llm-as-judge ai-mcp-oauth2 ai-mcp-proxy ai-prompt-compressor ai-prompt-decorator
		ai-prompt-guard ai-prompt-template ai-proxy ai-proxy-advanced ai-rag-injector
		ai-rate-limiting-advanced ai-request-transformer ai-response-transformer ai-sanitizer
		ai-semantic-cache ai-semantic-prompt-guard ai-semantic-response-guard app-dynamics
		application-registration aws-lambda azure-functions basic-auth bot-detection canary
		confluent confluent-consume correlation-id cors datadog datakit degraphql exit-transformer
		file-log forward-proxy graphql-proxy-cache-advanced graphql-rate-limiting-advanced
		grpc-gateway grpc-web header-cert-auth hmac-auth http-log injection-protection
		ip-restriction jq json-threat-protection jwe-decrypt jwt jwt-signer kafka-consume kafka-log
		kafka-upstream key-auth key-auth-enc konnect-application-auth ldap-auth ldap-auth-advanced
		loggly metering-and-billing mocking mtls-auth oas-validation oauth2 oauth2-introspection opa
		openid-connect opentelemetry post-function pre-function prometheus proxy-cache
		proxy-cache-advanced rate-limiting rate-limiting-advanced redirect request-callout
		request-size-limiting request-termination request-transformer request-transformer-advanced
		request-validator response-ratelimiting response-transformer response-transformer-advanced
		route-by-header route-transformer-advanced saml service-protection session solace-consume
		solace-log solace-upstream standard-webhooks statsd statsd-advanced syslog tcp-log
		tls-handshake-modifier tls-metadata-headers udp-log upstream-oauth upstream-timeout
		vault-auth websocket-size-limit websocket-validator xml-threat-protection zipkin`) {
		knownPlugins[name] = true
	}
}

// configType is the type of one configuration field in a plugin schema.
type configType int

const (
	cString configType = iota
	cNumber
	cInteger
	cBool
	cStrings // array of strings
	cRecord
)

// configField is one field of a plugin's configuration.
type configField struct {
	typ configType
	// oneOf lists the allowed values of a string (or of each string of an
	// array).
	oneOf []string
	// positive: a number must be greater than 0.
	positive bool
	// fields of a record.
	fields map[string]configField
}

// pluginSchema is what is checked of one plugin's configuration.
type pluginSchema struct {
	fields map[string]configField
	// atLeastOneOf names config fields of which one must be set.
	atLeastOneOf []string
}

var (
	transformHeadersAndJSON = map[string]configField{"headers": {typ: cStrings}, "json": {typ: cStrings}}
	transformWithJSONTypes  = map[string]configField{
		"headers": {typ: cStrings}, "json": {typ: cStrings},
		"json_types": {typ: cStrings, oneOf: []string{"boolean", "number", "string"}},
	}
	redisFields = map[string]configField{
		"host": {typ: cString}, "port": {typ: cInteger}, "timeout": {typ: cInteger}, "username": {typ: cString},
		"password": {typ: cString}, "database": {typ: cInteger}, "ssl": {typ: cBool}, "ssl_verify": {typ: cBool},
		"server_name": {typ: cString},
	}
)

// pluginSchemas are the configurations checked field by field.
var pluginSchemas = map[string]pluginSchema{
	"rate-limiting": {
		fields: map[string]configField{
			"second": {typ: cNumber, positive: true}, "minute": {typ: cNumber, positive: true},
			"hour": {typ: cNumber, positive: true}, "day": {typ: cNumber, positive: true},
			"month": {typ: cNumber, positive: true}, "year": {typ: cNumber, positive: true},
			"limit_by":            {typ: cString, oneOf: []string{"consumer", "credential", "ip", "service", "header", "path", "consumer-group"}},
			"header_name":         {typ: cString},
			"path":                {typ: cString},
			"policy":              {typ: cString, oneOf: []string{"local", "cluster", "redis"}},
			"fault_tolerant":      {typ: cBool},
			"redis":               {typ: cRecord, fields: redisFields},
			"hide_client_headers": {typ: cBool},
			"error_code":          {typ: cNumber, positive: true},
			"error_message":       {typ: cString},
			"sync_rate":           {typ: cNumber},
			// Deprecated spellings of the redis record's fields, still accepted.
			"redis_host": {typ: cString}, "redis_port": {typ: cInteger}, "redis_password": {typ: cString},
			"redis_username": {typ: cString}, "redis_ssl": {typ: cBool}, "redis_ssl_verify": {typ: cBool},
			"redis_server_name": {typ: cString}, "redis_timeout": {typ: cInteger}, "redis_database": {typ: cInteger},
		},
		atLeastOneOf: []string{"second", "minute", "hour", "day", "month", "year"},
	},
	"correlation-id": {fields: map[string]configField{
		"header_name":     {typ: cString},
		"generator":       {typ: cString, oneOf: []string{"uuid", "uuid#counter", "tracker"}},
		"echo_downstream": {typ: cBool},
	}},
	"response-transformer": {fields: map[string]configField{
		"remove":  {typ: cRecord, fields: transformHeadersAndJSON},
		"rename":  {typ: cRecord, fields: transformHeadersAndJSON},
		"replace": {typ: cRecord, fields: transformWithJSONTypes},
		"add":     {typ: cRecord, fields: transformWithJSONTypes},
		"append":  {typ: cRecord, fields: transformWithJSONTypes},
	}},
	"cors": {fields: map[string]configField{
		"origins": {typ: cStrings}, "headers": {typ: cStrings}, "exposed_headers": {typ: cStrings},
		"methods":             {typ: cStrings, oneOf: []string{"GET", "HEAD", "PUT", "PATCH", "POST", "DELETE", "OPTIONS", "TRACE", "CONNECT"}},
		"max_age":             {typ: cNumber},
		"credentials":         {typ: cBool},
		"private_network":     {typ: cBool},
		"preflight_continue":  {typ: cBool},
		"allow_origin_absent": {typ: cBool},
	}},
}

// checkPlugin checks a plugin's name and, when its schema is known here,
// its configuration.
func checkPlugin(e map[string]any) []fieldError {
	name := str(e["name"])
	if name == "" {
		return nil // reported as a missing required field
	}
	if !knownPlugins[name] {
		return []fieldError{errField("name", "plugin '%s' not enabled; add it to the 'plugins' configuration property", name)}
	}
	schema, ok := pluginSchemas[name]
	if !ok {
		return nil
	}
	config, _ := e["config"].(map[string]any)
	errs := checkRecord("config", config, schema.fields)
	if len(schema.atLeastOneOf) > 0 && !slices.ContainsFunc(schema.atLeastOneOf, func(f string) bool { return config[f] != nil }) {
		quoted := make([]string, len(schema.atLeastOneOf))
		for i, f := range schema.atLeastOneOf {
			quoted[i] = "'config." + f + "'"
		}
		errs = append(errs, errEntity("at least one of these fields must be non-empty: "+strings.Join(quoted, ", ")))
	}
	return errs
}

// checkRecord checks the fields of a record, named under path.
func checkRecord(path string, record map[string]any, fields map[string]configField) []fieldError {
	var errs []fieldError
	for _, name := range sortedKeys(record) {
		v := record[name]
		field := path + "." + name
		spec, known := fields[name]
		switch {
		case !known:
			errs = append(errs, errField(field, "unknown field"))
		case v == nil:
			// null is "unset"
		default:
			errs = append(errs, checkConfigValue(field, v, spec)...)
		}
	}
	return errs
}

func checkConfigValue(field string, v any, spec configField) []fieldError {
	switch spec.typ {
	case cString:
		s, ok := v.(string)
		if !ok {
			return []fieldError{errField(field, "expected a string")}
		}
		return checkOneOf(field, s, spec.oneOf)
	case cNumber, cInteger:
		f, ok := v.(float64)
		switch {
		case !ok:
			return []fieldError{errField(field, "expected a number")}
		case spec.typ == cInteger && f != math.Trunc(f):
			return []fieldError{errField(field, "expected an integer")}
		case spec.positive && f <= 0:
			return []fieldError{errField(field, "value must be greater than 0")}
		}
	case cBool:
		if _, ok := v.(bool); !ok {
			return []fieldError{errField(field, "expected a boolean")}
		}
	case cStrings:
		arr, ok := v.([]any)
		if !ok {
			return []fieldError{errField(field, "expected an array")}
		}
		var errs []fieldError
		for _, item := range arr {
			s, ok := item.(string)
			if !ok {
				return []fieldError{errField(field, "expected a string")}
			}
			errs = append(errs, checkOneOf(field, s, spec.oneOf)...)
		}
		return errs
	case cRecord:
		record, ok := v.(map[string]any)
		if !ok {
			return []fieldError{errField(field, "expected a record")}
		}
		return checkRecord(field, record, spec.fields)
	}
	return nil
}

func checkOneOf(field, s string, allowed []string) []fieldError {
	if allowed == nil || slices.Contains(allowed, s) {
		return nil
	}
	return []fieldError{errField(field, "expected one of: %s", strings.Join(allowed, ", "))}
}
