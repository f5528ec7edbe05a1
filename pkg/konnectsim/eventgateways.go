package konnectsim

import (
	"fmt"
	"slices"
	"strings"
)

// The Event Gateway (/v1/event-gateways): gateways, and what each holds:
// backend clusters, listeners, virtual clusters, schema registries and
// data-plane certificates; listeners hold policies, virtual clusters hold
// cluster-level, consume and produce policies. Konnect keeps the names of
// a gateway's listeners, backend clusters, virtual clusters and schema
// registries unique in the gateway (and virtual clusters' DNS labels),
// gateways' names in the organisation, and data-plane certificates once
// per gateway. Policies' names are not: the document declares no conflict
// for a policy, and Kong Operator's samples give two policies of one
// virtual cluster the same name. Every
// entity but a certificate carries labels. Answers leave passwords and a
// listener policy's private keys out, unless they are given as a
// reference to a vault (${vault…}), which is answered as it is kept (a
// backend cluster's TLS client key is answered: Konnect's document
// requires it in answers). Deleting a gateway deletes what it holds; a backend
// cluster that a virtual cluster maps to cannot be deleted.

// Collections of the Event Gateway.
var (
	eventGatewayKind = &apiKind{
		collection: "event-gateways", singular: "event gateway", unique: []string{"name"},
		create: createEventGateway, check: checkLabelled,
	}
	egBackendClusterKind = &apiKind{
		collection: "event-gateway-backend-clusters", singular: "backend cluster", parent: "event-gateways", unique: []string{"name"},
		create: createBackendCluster, check: checkLabelled, render: renderBackendCluster,
	}
	egListenerKind = &apiKind{
		collection: "event-gateway-listeners", singular: "listener", parent: "event-gateways", unique: []string{"name"},
		create: createLabelled, check: checkLabelled,
	}
	egVirtualClusterKind = &apiKind{
		collection: "event-gateway-virtual-clusters", singular: "virtual cluster", parent: "event-gateways", unique: []string{"name", "dns_label"},
		create: createLabelled, check: checkLabelled, render: renderVirtualCluster,
	}
	egSchemaRegistryKind = &apiKind{
		collection: "event-gateway-schema-registries", singular: "schema registry", parent: "event-gateways", unique: []string{"name"},
		create: createSchemaRegistry, check: checkLabelled, render: renderSchemaRegistry,
	}
	egDataPlaneCertificateKind = &apiKind{
		collection: "event-gateway-data-plane-certificates", singular: "data-plane certificate", parent: "event-gateways", unique: []string{"certificate"},
	}
	egListenerPolicyKind = &apiKind{
		collection: "event-gateway-listener-policies", singular: "listener policy", parent: "event-gateway-listeners",
		create: createPolicy, check: checkLabelled, render: renderListenerPolicy,
	}
	egClusterPolicyKind = &apiKind{
		collection: "event-gateway-cluster-policies", singular: "cluster policy", parent: "event-gateway-virtual-clusters",
		create: createPolicy, check: checkLabelled,
	}
	egConsumePolicyKind = &apiKind{
		collection: "event-gateway-consume-policies", singular: "consume policy", parent: "event-gateway-virtual-clusters",
		create: createPolicy, check: checkLabelled,
	}
	egProducePolicyKind = &apiKind{
		collection: "event-gateway-produce-policies", singular: "produce policy", parent: "event-gateway-virtual-clusters",
		create: createPolicy, check: checkLabelled,
	}
)

// eventGatewayKinds are the collections of the Event Gateway.
var eventGatewayKinds = []*apiKind{
	eventGatewayKind, egBackendClusterKind, egListenerKind, egVirtualClusterKind, egSchemaRegistryKind,
	egDataPlaneCertificateKind, egListenerPolicyKind, egClusterPolicyKind, egConsumePolicyKind, egProducePolicyKind,
}

// createEventGateway fills in a gateway's defaults: the latest runtime
// when none is pinned, no nodes yet.
func createEventGateway(s *Server, parent, g entity) []invalidParam {
	setDefaults(g, map[string]any{"min_runtime_version": "1.1", "nodes_total": 0, "virtual_clusters_total": 0, "version": "1"})
	return createLabelled(s, parent, g)
}

// createLabelled fills in the defaults every labelled entity shares.
func createLabelled(_ *Server, _, e entity) []invalidParam {
	setDefaults(e, map[string]any{"description": "", "labels": map[string]any{}})
	e["labels"] = mergeLabels(nil, e["labels"])
	return nil
}

// checkLabelled refuses labels Konnect does not allow.
func checkLabelled(e entity) []invalidParam { return checkLabels(e["labels"]) }

// createBackendCluster fills in a backend cluster's defaults.
func createBackendCluster(s *Server, parent, c entity) []invalidParam {
	setDefaults(c, map[string]any{"insecure_allow_anonymous_virtual_cluster_auth": false, "metadata_update_interval_seconds": 60})
	if tls, ok := c["tls"].(map[string]any); ok {
		setDefaults(tls, map[string]any{"insecure_skip_verify": false, "tls_versions": []any{"tls12", "tls13"}})
	}
	return createLabelled(s, parent, c)
}

// hideSecret leaves a sensitive value (Konnect's GatewaySecret) of an
// answer out, unless it is a template expression (${vault…}), which
// Konnect answers as it keeps it.
func hideSecret(in map[string]any, key string) {
	if value, ok := in[key].(string); !ok || !strings.HasPrefix(value, "${") {
		delete(in, key)
	}
}

// renderBackendCluster leaves the authentication's password out.
func renderBackendCluster(c entity) entity {
	if auth, ok := c["authentication"].(map[string]any); ok {
		hideSecret(auth, "password")
	}
	return c
}

// renderVirtualCluster leaves the principals' passwords out.
func renderVirtualCluster(v entity) entity {
	schemes, _ := v["authentication"].([]any)
	for _, scheme := range schemes {
		principals, _ := asMap(scheme)["principals"].([]any)
		for _, p := range principals {
			hideSecret(asMap(p), "password")
		}
	}
	return v
}

// createSchemaRegistry fills in a schema registry's defaults.
func createSchemaRegistry(s *Server, parent, r entity) []invalidParam {
	if config, ok := r["config"].(map[string]any); ok {
		setDefaults(config, map[string]any{"timeout_seconds": 10})
	}
	return createLabelled(s, parent, r)
}

// renderSchemaRegistry leaves the authentication's password out.
func renderSchemaRegistry(r entity) entity {
	config, _ := r["config"].(map[string]any)
	if auth, ok := config["authentication"].(map[string]any); ok {
		hideSecret(auth, "password")
	}
	return r
}

// createPolicy fills in the defaults every policy shares: enabled, under
// no parent policy. A policy of the parsed record (decrypt_fields,
// encrypt_fields) belongs under a schema_validation policy.
func createPolicy(s *Server, parent, p entity) []invalidParam {
	setDefaults(p, map[string]any{"enabled": true, "parent_policy_id": nil})
	if slices.Contains([]string{"decrypt_fields", "encrypt_fields"}, str(p["type"])) && p["parent_policy_id"] == nil {
		return []invalidParam{{Field: "parent_policy_id", Rule: "required", Reason: fmt.Sprintf("a %s policy belongs under a schema_validation policy", p["type"])}}
	}
	if _, hasCondition := p["condition"]; !hasCondition && p["type"] != "tls_server" && p["type"] != "forward_to_virtual_cluster" {
		p["condition"] = ""
	}
	return createLabelled(s, parent, p)
}

// renderListenerPolicy leaves the certificates' private keys out.
func renderListenerPolicy(p entity) entity {
	config, _ := p["config"].(map[string]any)
	certificates, _ := config["certificates"].([]any)
	for _, c := range certificates {
		hideSecret(asMap(c), "key")
	}
	return p
}
