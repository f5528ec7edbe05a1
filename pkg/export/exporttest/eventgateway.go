package exporttest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/testkeys"
)

// EventGatewayFamily says whose event gateway SeedEventGateway makes: its
// entities carry identity labels as an operator writes them for objects
// of Namespace, and, with Cluster, the label of that cluster's operator
// (Kong Operator writes none).
type EventGatewayFamily struct {
	// Name is the gateway's name in Konnect; its object is called
	// Name+"-gw", so that names are seen to come from the labels.
	Name, Namespace, Cluster string
}

// VaultPassword is the password of the seeded backend cluster that
// names it by a vault reference, which Konnect answers as it keeps it.
const VaultPassword = "${vault.env['KAFKA_PASSWORD']}"

// SeededEventGateway is what SeedEventGateway made.
type SeededEventGateway struct {
	GatewayID string
	// Objects are the IDs of the entities, by the object that takes each
	// back (Kind/name): the one its identity labels name, or, for the
	// data-plane certificate, which carries no labels, the one named after
	// its Konnect name.
	Objects map[string]string
}

// EventGatewayEntities is how many entities SeedEventGateway makes: the
// gateway, a backend cluster authenticating with SASL/PLAIN and a TLS
// client certificate, another with SASL/SCRAM and a password given as a
// vault reference, a schema registry with a password, a listener, a
// data-plane certificate, a virtual cluster with a SASL/PLAIN principal,
// the listener's TLS and forwarding policies, and the virtual cluster's
// ACL, consume (validating with the schema registry) and produce policies.
const EventGatewayEntities = 12

// SeedEventGateway creates, through Konnect's API, an event gateway with
// an entity of every kind it holds, as an operator wrote them for its
// objects: what an operator's cluster lost leaves in Konnect.
func SeedEventGateway(ctx context.Context, api konnect.API, family EventGatewayFamily) (SeededEventGateway, error) {
	pair, err := testkeys.SelfSigned(family.Name+".events.example.com", true)
	if err != nil {
		return SeededEventGateway{}, err
	}
	s := &egSeeder{api: api, family: family, out: SeededEventGateway{Objects: map[string]string{}}}
	gw, err := s.create("KonnectEventGateway", family.Name+"-gw", map[string]any{
		"name": family.Name, "description": "Event Gateway of " + family.Name, "labels": map[string]any{"team": "payments"},
	}, &components.CreateGatewayRequest{}, func(body any) (any, error) {
		r, err := api.EventGateways.CreateEventGateway(ctx, *body.(*components.CreateGatewayRequest))
		return r.GetEventGatewayInfo(), err
	})
	if err != nil {
		return s.out, err
	}
	s.out.GatewayID = gw
	backend, err := s.create("EventGatewayBackendCluster", "kafka", map[string]any{
		"name": family.Name + "-kafka", "bootstrap_servers": []any{"kafka-0.kafka:9092", "kafka-1.kafka:9092"},
		"authentication": map[string]any{"type": "sasl_plain", "username": "gateway", "password": "kafka-s3cret"},
		"tls":            map[string]any{"enabled": true, "client_identity": map[string]any{"certificate": pair.Cert, "key": pair.Key}},
	}, &components.CreateBackendClusterRequest{}, func(body any) (any, error) {
		r, err := api.EventGatewayBackendClusters.CreateEventGatewayBackendCluster(ctx, gw, body.(*components.CreateBackendClusterRequest))
		return r.GetBackendCluster(), err
	})
	if err != nil {
		return s.out, err
	}
	if _, err := s.create("EventGatewayBackendCluster", "kafka-by-reference", map[string]any{
		"name": family.Name + "-kafka-by-reference", "bootstrap_servers": []any{"kafka-2.kafka:9093"},
		"authentication": map[string]any{"type": "sasl_scram", "algorithm": "sha512", "username": "gateway", "password": VaultPassword},
		"tls":            map[string]any{"enabled": false},
	}, &components.CreateBackendClusterRequest{}, func(body any) (any, error) {
		r, err := api.EventGatewayBackendClusters.CreateEventGatewayBackendCluster(ctx, gw, body.(*components.CreateBackendClusterRequest))
		return r.GetBackendCluster(), err
	}); err != nil {
		return s.out, err
	}
	registry, err := s.create("EventGatewaySchemaRegistry", "registry", map[string]any{
		"type": "confluent", "name": family.Name + "-registry", "labels": map[string]any{"team": "payments"},
		"config": map[string]any{
			"schema_type": "avro", "endpoint": "https://registry.example.com",
			"authentication": map[string]any{"type": "basic", "username": "reader", "password": "registry-s3cret"},
		},
	}, &components.SchemaRegistryCreate{}, func(body any) (any, error) {
		r, err := api.EventGatewaySchemaRegistries.CreateEventGatewaySchemaRegistry(ctx, gw, body.(*components.SchemaRegistryCreate))
		return r.GetSchemaRegistry(), err
	})
	if err != nil {
		return s.out, err
	}
	listener, err := s.create("EventGatewayListener", "listener", map[string]any{
		"name": family.Name + "-listener", "addresses": []any{"0.0.0.0"}, "ports": []any{9092, "19092-19095"},
	}, &components.CreateEventGatewayListenerRequest{}, func(body any) (any, error) {
		r, err := api.EventGatewayListeners.CreateEventGatewayListener(ctx, gw, body.(*components.CreateEventGatewayListenerRequest))
		return r.GetEventGatewayListener(), err
	})
	if err != nil {
		return s.out, err
	}
	if _, err := s.create("EventGatewayDataPlaneCertificate", family.Name+"-data-plane", map[string]any{
		"name": family.Name + "-data-plane", "description": "the data planes' certificate", "certificate": pair.Cert,
	}, &components.CreateEventGatewayDataPlaneCertificateRequest{}, func(body any) (any, error) {
		r, err := api.EventGatewayDataPlaneCerts.CreateEventGatewayDataPlaneCertificate(ctx, gw, body.(*components.CreateEventGatewayDataPlaneCertificateRequest))
		return r.GetEventGatewayDataPlaneCertificate(), err
	}); err != nil {
		return s.out, err
	}
	cluster, err := s.create("EventGatewayVirtualCluster", "orders", map[string]any{
		"name": family.Name + "-orders", "destination": map[string]any{"id": backend}, "dns_label": "orders", "acl_mode": "enforce_on_gateway",
		"authentication": []any{map[string]any{
			"type": "sasl_plain", "mediation": "terminate", "principals": []any{map[string]any{"username": "alice", "password": "alice-s3cret"}},
		}},
		"namespace": map[string]any{"mode": "hide_prefix", "prefix": "orders-"},
	}, &components.CreateVirtualClusterRequest{}, func(body any) (any, error) {
		r, err := api.EventGatewayVirtualClusters.CreateEventGatewayVirtualCluster(ctx, gw, body.(*components.CreateVirtualClusterRequest))
		return r.GetVirtualCluster(), err
	})
	if err != nil {
		return s.out, err
	}
	return s.out, s.policies(ctx, gw, listener, cluster, registry, pair)
}

// policies makes the listener's and the virtual cluster's policies.
func (s *egSeeder) policies(ctx context.Context, gw, listener, cluster, registry string, pair testkeys.Pair) error {
	api := s.api
	steps := []struct {
		kind, name string
		body       map[string]any
		into       any
		create     func(body any) (any, error)
	}{
		{"EventGatewayListenerPolicy", "tls", map[string]any{
			"type": "tls_server", "name": "tls", "config": map[string]any{"certificates": []any{map[string]any{"certificate": pair.Cert, "key": pair.Key}}},
		}, &components.EventGatewayListenerPolicyCreate{}, func(body any) (any, error) {
			r, err := api.EventGatewayListenerPolicies.CreateEventGatewayListenerPolicy(ctx, operations.CreateEventGatewayListenerPolicyRequest{
				GatewayID: gw, ListenerID: listener, EventGatewayListenerPolicyCreate: *body.(*components.EventGatewayListenerPolicyCreate),
			})
			return r.GetEventGatewayListenerPolicy(), err
		}},
		{"EventGatewayListenerPolicy", "forward", map[string]any{
			"type": "forward_to_virtual_cluster", "name": "forward",
			"config": map[string]any{"type": "port_mapping", "advertised_host": "events.example.com", "destination": map[string]any{"id": cluster}},
		}, &components.EventGatewayListenerPolicyCreate{}, func(body any) (any, error) {
			r, err := api.EventGatewayListenerPolicies.CreateEventGatewayListenerPolicy(ctx, operations.CreateEventGatewayListenerPolicyRequest{
				GatewayID: gw, ListenerID: listener, EventGatewayListenerPolicyCreate: *body.(*components.EventGatewayListenerPolicyCreate),
			})
			return r.GetEventGatewayListenerPolicy(), err
		}},
		{"EventGatewayVirtualClusterPolicy", "acls", map[string]any{
			"type": "acls", "name": "acls", "config": map[string]any{"rules": []any{map[string]any{
				"action": "allow", "resource_type": "topic", "operations": []any{map[string]any{"name": "read"}, map[string]any{"name": "write"}},
				"resource_names": []any{map[string]any{"match": "orders.*"}},
			}}},
		}, &components.EventGatewayClusterPolicyModify{}, func(body any) (any, error) {
			r, err := api.EventGatewayClusterPolicies.CreateEventGatewayVirtualClusterClusterLevelPolicy(ctx, operations.CreateEventGatewayVirtualClusterClusterLevelPolicyRequest{
				GatewayID: gw, VirtualClusterID: cluster, EventGatewayClusterPolicyModify: body.(*components.EventGatewayClusterPolicyModify),
			})
			return r.GetEventGatewayPolicy(), err
		}},
		{"EventGatewayVirtualClusterConsumePolicy", "validate", map[string]any{
			"type": "schema_validation", "name": "validate", "condition": "context.topic.name.startsWith('orders')",
			"config": map[string]any{"type": "confluent_schema_registry", "schema_registry": map[string]any{"id": registry}, "failure_mode": "mark"},
		}, &components.EventGatewayConsumePolicyCreate{}, func(body any) (any, error) {
			r, err := api.EventGatewayConsumePolicies.CreateEventGatewayVirtualClusterConsumePolicy(ctx, operations.CreateEventGatewayVirtualClusterConsumePolicyRequest{
				GatewayID: gw, VirtualClusterID: cluster, EventGatewayConsumePolicyCreate: body.(*components.EventGatewayConsumePolicyCreate),
			})
			return r.GetEventGatewayPolicy(), err
		}},
		{"EventGatewayVirtualClusterProducePolicy", "header", map[string]any{
			"type": "modify_headers", "name": "header", "enabled": false,
			"config": map[string]any{"actions": []any{map[string]any{"op": "set", "key": "x-gateway", "value": s.family.Name}}},
		}, &components.EventGatewayProducePolicyCreate{}, func(body any) (any, error) {
			r, err := api.EventGatewayProducePolicies.CreateEventGatewayVirtualClusterProducePolicy(ctx, operations.CreateEventGatewayVirtualClusterProducePolicyRequest{
				GatewayID: gw, VirtualClusterID: cluster, EventGatewayProducePolicyCreate: body.(*components.EventGatewayProducePolicyCreate),
			})
			return r.GetEventGatewayPolicy(), err
		}},
	}
	for _, step := range steps {
		if _, err := s.create(step.kind, step.name, step.body, step.into, step.create); err != nil {
			return err
		}
	}
	return nil
}

type egSeeder struct {
	api    konnect.API
	family EventGatewayFamily
	out    SeededEventGateway
}

// create makes one entity for the object kind/name from body, as Konnect
// writes it: labelled for that object (a data-plane certificate carries
// no labels), read into into, the SDK's request type, and sent with call.
func (s *egSeeder) create(kind, name string, body map[string]any, into any, call func(body any) (any, error)) (string, error) {
	if kind != "EventGatewayDataPlaneCertificate" {
		labels, _ := body["labels"].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
		}
		for k, v := range s.identity(kind, name) {
			labels[k] = v
		}
		body["labels"] = labels
	}
	raw, err := json.Marshal(body)
	if err == nil {
		err = json.Unmarshal(raw, into)
	}
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", kind, name, err)
	}
	answer, err := call(into)
	if err != nil {
		return "", fmt.Errorf("create %s %s: %w", kind, name, err)
	}
	var created struct {
		ID string `json:"id"`
	}
	if raw, err = json.Marshal(answer); err == nil {
		err = json.Unmarshal(raw, &created)
	}
	if err != nil {
		return "", fmt.Errorf("create %s %s: reading its answer: %w", kind, name, err)
	}
	if created.ID == "" {
		return "", fmt.Errorf("create %s %s answered no ID", kind, name)
	}
	s.out.Objects[kind+"/"+name] = created.ID
	return created.ID, nil
}

// identity are the labels an operator writes on the entity of an object.
func (s *egSeeder) identity(kind, name string) map[string]any {
	group := "configuration.konghq.com"
	if kind == "KonnectEventGateway" {
		group = "konnect.konghq.com"
	}
	labels := map[string]any{
		"k8s-kind": kind, "k8s-name": name, "k8s-namespace": s.family.Namespace, "k8s-uid": uuid.NewString(),
		"k8s-group": group, "k8s-version": "v1alpha1", "k8s-generation": "1", "managed-by": "kong-operator",
	}
	if s.family.Cluster != "" {
		labels["k8s-cluster"], labels["managed-by"] = s.family.Cluster, "konnect-operator"
	}
	return labels
}
