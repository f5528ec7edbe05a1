package konnectsim

// fieldType is the JSON type the simulator accepts for a top-level field of a
// core entity. It is deliberately coarse: the OpenAPI document (when present)
// checks the details; these checks keep the simulator honest without it.
type fieldType int

const (
	tString fieldType = iota
	tInt
	tNumber
	tBool
	tStrings // array of strings
	tArray   // array of anything
	tObject  // object of anything
	tRef     // {"id": "..."} reference to another entity
)

// onDelete says what happens to a child when its parent is deleted.
type onDelete int

const (
	// restrict refuses to delete a parent that still has such children.
	restrict onDelete = iota
	// cascade deletes the children with the parent.
	cascade
)

// foreignKey is a reference from one kind to another ({"service": {"id": …}}).
type foreignKey struct {
	field      string // body field, e.g. "service"
	collection string // referenced collection, e.g. "services"
	required   bool
	onDelete   onDelete
}

// kind describes one core-entity collection: what it stores, what must be
// unique, what it references and which defaults Konnect fills in.
type kind struct {
	collection string // flat collection name under core-entities, e.g. "services"
	singular   string // for messages: "service"
	fields     map[string]fieldType
	required   []string
	// endpointKeys are fields that a path segment may name instead of an id.
	endpointKeys []string
	// uniques lists unique constraints; each is a list of fields, foreign
	// keys written as the field name (their id is used).
	uniques [][]string
	foreign []foreignKey
	// hasUpdatedAt is false for kinds whose schema has no updated_at (the
	// schemas forbid additional properties, so it must not be sent).
	hasUpdatedAt bool
	// writeOnly fields are accepted in requests but never returned.
	writeOnly []string
	// floatTimes: targets carry created_at/updated_at as numbers with milliseconds.
	floatTimes bool
	defaults   map[string]any
	// prepare fills computed fields and checks kind-specific rules; it may
	// return field errors. It runs after defaults are applied.
	prepare func(e map[string]any) []fieldError
}

var tagsField = map[string]fieldType{"id": tString, "tags": tStrings, "created_at": tNumber, "updated_at": tNumber}

func fieldsWith(extra map[string]fieldType) map[string]fieldType {
	out := make(map[string]fieldType, len(extra)+len(tagsField))
	for k, v := range tagsField {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

var protocols = []string{"grpc", "grpcs", "http", "https", "tcp", "tls", "tls_passthrough", "udp", "ws", "wss"}

// kinds is every core-entity collection the simulator serves, keyed by its
// flat collection name.
var kinds = map[string]*kind{}

func register(k *kind) { kinds[k.collection] = k }

func init() {
	register(&kind{
		collection: "services", singular: "service",
		fields: fieldsWith(map[string]fieldType{
			"name": tString, "host": tString, "port": tInt, "protocol": tString, "path": tString, "url": tString,
			"retries": tInt, "connect_timeout": tInt, "read_timeout": tInt, "write_timeout": tInt, "enabled": tBool,
			"client_certificate": tRef, "ca_certificates": tStrings, "tls_verify": tBool, "tls_verify_depth": tInt,
			"tls_sans": tObject,
		}),
		endpointKeys: []string{"name"},
		uniques:      [][]string{{"name"}},
		foreign:      []foreignKey{{field: "client_certificate", collection: "certificates", onDelete: restrict}},
		hasUpdatedAt: true,
		defaults: map[string]any{
			"connect_timeout": 60000, "read_timeout": 60000, "write_timeout": 60000, "retries": 5,
			"port": 80, "protocol": "http", "enabled": true,
		},
		prepare: prepareService,
	})
	register(&kind{
		collection: "routes", singular: "route",
		fields: fieldsWith(map[string]fieldType{
			"name": tString, "protocols": tStrings, "methods": tStrings, "hosts": tStrings, "paths": tStrings,
			"headers": tObject, "snis": tStrings, "sources": tArray, "destinations": tArray, "expression": tString,
			"https_redirect_status_code": tInt, "regex_priority": tInt, "priority": tInt, "strip_path": tBool,
			"path_handling": tString, "preserve_host": tBool, "request_buffering": tBool, "response_buffering": tBool,
			"service": tRef,
		}),
		endpointKeys: []string{"name"},
		uniques:      [][]string{{"name"}},
		foreign:      []foreignKey{{field: "service", collection: "services", onDelete: restrict}},
		hasUpdatedAt: true,
		defaults: map[string]any{
			"https_redirect_status_code": 426, "path_handling": "v0", "preserve_host": false,
			"protocols": []any{"https"}, "request_buffering": true, "response_buffering": true, "strip_path": true,
		},
		prepare: prepareRoute,
	})
	register(&kind{
		collection: "plugins", singular: "plugin",
		fields: fieldsWith(map[string]fieldType{
			"name": tString, "instance_name": tString, "config": tObject, "enabled": tBool, "protocols": tStrings,
			"condition": tString, "ordering": tObject, "partials": tArray,
			"service": tRef, "route": tRef, "consumer": tRef, "consumer_group": tRef,
		}),
		required:     []string{"name"},
		endpointKeys: []string{"instance_name"},
		uniques:      [][]string{{"instance_name"}, {"name", "service", "route", "consumer", "consumer_group"}},
		foreign: []foreignKey{
			{field: "service", collection: "services", onDelete: cascade},
			{field: "route", collection: "routes", onDelete: cascade},
			{field: "consumer", collection: "consumers", onDelete: cascade},
			{field: "consumer_group", collection: "consumer_groups", onDelete: cascade},
		},
		hasUpdatedAt: true,
		defaults:     map[string]any{"enabled": true, "protocols": []any{"grpc", "grpcs", "http", "https"}, "config": map[string]any{}},
		prepare:      preparePlugin,
	})
	register(&kind{
		collection: "consumers", singular: "consumer",
		fields:       fieldsWith(map[string]fieldType{"username": tString, "custom_id": tString}),
		endpointKeys: []string{"username"},
		uniques:      [][]string{{"username"}, {"custom_id"}},
		hasUpdatedAt: true,
		prepare:      prepareConsumer,
	})
	register(&kind{
		collection: "consumer_groups", singular: "consumer_group",
		fields:       fieldsWith(map[string]fieldType{"name": tString}),
		required:     []string{"name"},
		endpointKeys: []string{"name"},
		uniques:      [][]string{{"name"}},
		hasUpdatedAt: true,
	})
	register(&kind{
		collection: "upstreams", singular: "upstream",
		fields: fieldsWith(map[string]fieldType{
			"name": tString, "algorithm": tString, "hash_on": tString, "hash_fallback": tString,
			"hash_on_header": tString, "hash_fallback_header": tString, "hash_on_cookie": tString,
			"hash_on_cookie_path": tString, "hash_on_query_arg": tString, "hash_fallback_query_arg": tString,
			"hash_on_uri_capture": tString, "hash_fallback_uri_capture": tString, "slots": tInt,
			"healthchecks": tObject, "host_header": tString, "client_certificate": tRef, "use_srv_name": tBool,
			"sticky_sessions_cookie": tString, "sticky_sessions_cookie_path": tString,
		}),
		required:     []string{"name"},
		endpointKeys: []string{"name"},
		uniques:      [][]string{{"name"}},
		foreign:      []foreignKey{{field: "client_certificate", collection: "certificates", onDelete: restrict}},
		hasUpdatedAt: true,
		defaults: map[string]any{
			"algorithm": "round-robin", "hash_on": "none", "hash_fallback": "none", "hash_on_cookie_path": "/",
			"slots": 10000, "sticky_sessions_cookie_path": "/", "use_srv_name": false,
			"healthchecks": defaultHealthchecks(),
		},
	})
	register(&kind{
		collection: "targets", singular: "target",
		fields:       fieldsWith(map[string]fieldType{"target": tString, "weight": tInt, "failover": tBool, "upstream": tRef}),
		required:     []string{"target"},
		endpointKeys: []string{"target"},
		uniques:      [][]string{{"upstream", "target"}},
		foreign:      []foreignKey{{field: "upstream", collection: "upstreams", required: true, onDelete: restrict}},
		hasUpdatedAt: true,
		floatTimes:   true,
		defaults:     map[string]any{"weight": 100, "failover": false},
		prepare:      prepareTarget,
	})
	register(&kind{
		collection: "certificates", singular: "certificate",
		fields: fieldsWith(map[string]fieldType{
			"cert": tString, "key": tString, "cert_alt": tString, "key_alt": tString, "snis": tStrings,
			"description": tString, "managed_by": tObject, "vault": tString, "vault_alt": tString,
		}),
		writeOnly:    []string{"description", "managed_by", "vault", "vault_alt"},
		hasUpdatedAt: true,
		prepare:      prepareCertificate,
	})
	register(&kind{
		collection: "ca_certificates", singular: "ca_certificate",
		fields:       fieldsWith(map[string]fieldType{"cert": tString, "cert_digest": tString}),
		required:     []string{"cert"},
		uniques:      [][]string{{"cert_digest"}},
		hasUpdatedAt: true,
		prepare:      prepareCACertificate,
	})
	register(&kind{
		collection: "snis", singular: "sni",
		fields:       fieldsWith(map[string]fieldType{"name": tString, "certificate": tRef}),
		required:     []string{"name"},
		endpointKeys: []string{"name"},
		uniques:      [][]string{{"name"}},
		foreign:      []foreignKey{{field: "certificate", collection: "certificates", required: true, onDelete: restrict}},
		hasUpdatedAt: true,
		prepare:      prepareSNI,
	})
	register(&kind{
		collection: "keys", singular: "key",
		fields: fieldsWith(map[string]fieldType{
			"kid": tString, "name": tString, "jwk": tString, "pem": tObject, "set": tRef, "x5t": tString,
		}),
		required:     []string{"kid"},
		endpointKeys: []string{"name"},
		uniques:      [][]string{{"name"}, {"set", "kid"}},
		foreign:      []foreignKey{{field: "set", collection: "key-sets", onDelete: cascade}},
		hasUpdatedAt: true,
		prepare:      prepareKey,
	})
	register(&kind{
		collection: "key-sets", singular: "key-set",
		fields:       fieldsWith(map[string]fieldType{"name": tString}),
		endpointKeys: []string{"name"},
		uniques:      [][]string{{"name"}},
		hasUpdatedAt: true,
	})
	register(&kind{
		collection: "vaults", singular: "vault",
		fields:       fieldsWith(map[string]fieldType{"name": tString, "prefix": tString, "config": tObject, "description": tString}),
		required:     []string{"name", "prefix"},
		endpointKeys: []string{"prefix"},
		uniques:      [][]string{{"prefix"}},
		hasUpdatedAt: true,
		defaults:     map[string]any{"config": map[string]any{}},
		prepare:      prepareVault,
	})
	credential := func(collection, singular string, extra map[string]fieldType, required []string, unique [][]string, endpointKeys []string, prepare func(map[string]any) []fieldError) {
		fields := fieldsWith(extra)
		delete(fields, "updated_at")
		fields["consumer"] = tRef
		register(&kind{
			collection: collection, singular: singular, fields: fields, required: required,
			endpointKeys: endpointKeys, uniques: unique,
			foreign: []foreignKey{{field: "consumer", collection: "consumers", required: true, onDelete: restrict}},
			prepare: prepare,
		})
	}
	credential("key-auths", "key-auth", map[string]fieldType{"key": tString, "ttl": tInt}, nil,
		[][]string{{"key"}}, []string{"key"}, prepareKeyAuth)
	credential("basic-auths", "basic-auth", map[string]fieldType{"username": tString, "password": tString},
		[]string{"username", "password"}, [][]string{{"username"}}, []string{"username"}, prepareBasicAuth)
	credential("acls", "acl", map[string]fieldType{"group": tString}, []string{"group"},
		[][]string{{"consumer", "group"}}, nil, nil)
	credential("jwts", "jwt", map[string]fieldType{"key": tString, "secret": tString, "algorithm": tString, "rsa_public_key": tString},
		nil, [][]string{{"key"}}, []string{"key"}, prepareJWT)
	credential("hmac-auths", "hmac-auth", map[string]fieldType{"username": tString, "secret": tString},
		[]string{"username"}, [][]string{{"username"}}, []string{"username"}, prepareHMAC)
}

// referencingKinds returns, for a collection, the kinds and foreign keys that
// point at it (computed once; the table above is static).
func referencingKinds(collection string) []struct {
	kind *kind
	fk   foreignKey
} {
	var out []struct {
		kind *kind
		fk   foreignKey
	}
	for _, name := range kindOrder {
		k := kinds[name]
		for _, fk := range k.foreign {
			if fk.collection == collection {
				out = append(out, struct {
					kind *kind
					fk   foreignKey
				}{k, fk})
			}
		}
	}
	return out
}

// kindOrder fixes an iteration order over kinds so that behaviour (which
// child is reported first) is deterministic.
var kindOrder = []string{
	"services", "routes", "plugins", "consumers", "consumer_groups", "upstreams", "targets",
	"certificates", "ca_certificates", "snis", "keys", "key-sets", "vaults",
	"key-auths", "basic-auths", "acls", "jwts", "hmac-auths",
}

// collectionAliases maps the nested URL segments and other spellings to the
// flat collection names used by the store.
var collectionAliases = map[string]string{
	"key-auth": "key-auths", "basic-auth": "basic-auths", "jwt": "jwts", "hmac-auth": "hmac-auths",
	"consumer-groups": "consumer_groups", "ca-certificates": "ca_certificates", "key_sets": "key-sets",
}

func canonicalCollection(name string) string {
	if c, ok := collectionAliases[name]; ok {
		return c
	}
	return name
}

func defaultHealthchecks() map[string]any {
	return map[string]any{
		"active": map[string]any{
			"concurrency": 10,
			"healthy":     map[string]any{"http_statuses": []any{200, 302}, "interval": 0, "successes": 0},
			"http_path":   "/", "https_verify_certificate": true, "timeout": 1, "type": "http",
			"unhealthy": map[string]any{
				"http_failures": 0, "http_statuses": []any{429, 404, 500, 501, 502, 503, 504, 505},
				"interval": 0, "tcp_failures": 0, "timeouts": 0,
			},
		},
		"passive": map[string]any{
			"healthy": map[string]any{
				"http_statuses": []any{200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 306, 307, 308},
				"successes":     0,
			},
			"type": "http",
			"unhealthy": map[string]any{
				"http_failures": 0, "http_statuses": []any{429, 500, 503}, "tcp_failures": 0, "timeouts": 0,
			},
		},
		"threshold": 0,
	}
}
