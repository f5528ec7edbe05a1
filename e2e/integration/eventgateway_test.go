package integration

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

// The Event Gateway kinds through the shared per-kind harness
// (kindcase_test.go): their entities live in the simulator's store of
// Konnect's newer APIs, found by lookup below the gateway, listener or
// virtual cluster their object records. What a kind refers to is made once
// per test: the gateway "gw", its backend cluster "backend", listener
// "listener" and virtual cluster "vc".

type (
	eventGatewayObj   = *konnectv1alpha1.KonnectEventGateway
	egBackendObj      = *configurationv1alpha1.EventGatewayBackendCluster
	egListenerObj     = *configurationv1alpha1.EventGatewayListener
	egVirtualObj      = *configurationv1alpha1.EventGatewayVirtualCluster
	egRegistryObj     = *configurationv1alpha1.EventGatewaySchemaRegistry
	egCertificateObj  = *configurationv1alpha1.EventGatewayDataPlaneCertificate
	egListenerPolObj  = *configurationv1alpha1.EventGatewayListenerPolicy
	egClusterPolObj   = *configurationv1alpha1.EventGatewayVirtualClusterPolicy
	egConsumePolObj   = *configurationv1alpha1.EventGatewayVirtualClusterConsumePolicy
	egProducePolObj   = *configurationv1alpha1.EventGatewayVirtualClusterProducePolicy
	egRecordingObject = interface {
		konnectObject
		EventGatewayRecords() configurationv1alpha1.EventGatewayRecords
	}
)

func egRef(name string) commonv1alpha1.ObjectRef {
	return commonv1alpha1.ObjectRef{Type: commonv1alpha1.ObjectRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: name}}
}

func eventGatewayObject(name string) eventGatewayObj {
	return &konnectv1alpha1.KonnectEventGateway{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectEventGatewaySpec{
			KonnectConfiguration: konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: "auth"}},
			APISpec:              konnectv1alpha1.KonnectEventGatewayAPISpec{Name: name, Description: "gateway " + name},
		},
	}
}

func egBackendObject(name string) egBackendObj {
	return &configurationv1alpha1.EventGatewayBackendCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.EventGatewayBackendClusterSpec{
			GatewayRef: egRef("gw"),
			APISpec: configurationv1alpha1.EventGatewayBackendClusterAPISpec{
				Name: name, BootstrapServers: []string{"kafka:9092"},
				Authentication: &configurationv1alpha1.EventGatewayBackendClusterAuthentication{Type: "anonymous", Anonymous: &configurationv1alpha1.EventGatewayEmpty{}},
				TLS:            configurationv1alpha1.EventGatewayBackendClusterTLS{Enabled: konnectv1alpha1.Disabled},
			},
		},
	}
}

func egListenerObject(name string) egListenerObj {
	return &configurationv1alpha1.EventGatewayListener{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.EventGatewayListenerSpec{
			GatewayRef: egRef("gw"),
			APISpec:    configurationv1alpha1.EventGatewayListenerAPISpec{Name: name, Addresses: []string{"0.0.0.0"}, Ports: []intstr.IntOrString{intstr.FromInt32(9092)}},
		},
	}
}

func egVirtualObject(name string) egVirtualObj {
	return &configurationv1alpha1.EventGatewayVirtualCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.EventGatewayVirtualClusterSpec{
			EventGatewayBackendClusterRef: egRef("backend"),
			APISpec: configurationv1alpha1.EventGatewayVirtualClusterAPISpec{
				Name: name, DNSLabel: name, ACLMode: "passthrough",
				Authentication: []configurationv1alpha1.EventGatewayVirtualClusterAuthentication{{Type: "anonymous"}},
			},
		},
	}
}

// createOnce creates obj in the test's namespace unless it is there, and
// waits until it is Programmed.
func createOnce[T konnectObject](e *env, k kindCase[T], obj T) {
	e.t.Helper()
	if _, err := k.client(e).Get(e.ctx, obj.GetName(), metav1.GetOptions{}); err != nil {
		k.create(e, obj)
	}
	k.programmed(e, obj.GetName())
}

func (e *env) eventGateway() { createOnce(e, eventGateways, eventGatewayObject("gw")) }
func (e *env) egBackend()    { e.eventGateway(); createOnce(e, egBackends, egBackendObject("backend")) }
func (e *env) egListener() {
	e.eventGateway()
	createOnce(e, egListeners, egListenerObject("listener"))
}
func (e *env) egVirtualCluster() { e.egBackend(); createOnce(e, egVirtuals, egVirtualObject("vc")) }

// egGatewayEntity finds an entity that lives directly in a gateway;
// egPolicyEntity one below its listener or virtual cluster.
func egGatewayEntity[T egRecordingObject](collection string) func(e *env, _ string, obj T) (map[string]any, bool) {
	return func(e *env, _ string, obj T) (map[string]any, bool) {
		return e.sim.APIEntity(e.orgID, collection, obj.EventGatewayRecords().RecordedGatewayID(), obj.KonnectStatus(false).GetKonnectID())
	}
}

func egPolicyEntity[T egRecordingObject](collection string) func(e *env, _ string, obj T) (map[string]any, bool) {
	return func(e *env, _ string, obj T) (map[string]any, bool) {
		return e.sim.APIEntity(e.orgID, collection, obj.EventGatewayRecords().RecordedParentID(), obj.KonnectStatus(false).GetKonnectID())
	}
}

// egDrift writes "drifted" over field of the entity ent, below parentID.
func egDrift(collection, field string, parentID func(e *env) string) func(e *env, _ string, ent map[string]any) {
	return func(e *env, _ string, ent map[string]any) {
		e.reputAPI(collection, parentID(e), map[string]any{"id": ent["id"], field: "drifted"})
	}
}

// egStatusIDs read the Konnect IDs the objects made once record.
func egGatewayID(e *env) string {
	e.t.Helper()
	return eventGateways.get(e, "gw").Status.ID
}

func egListenerID(e *env) string { return egListeners.get(e, "listener").Status.ID }
func egVirtualID(e *env) string  { return egVirtuals.get(e, "vc").Status.ID }

var eventGateways = kindCase[eventGatewayObj]{
	kind: "KonnectEventGateway", collection: "event-gateways", path: "/v1/event-gateways", labelled: true,
	client:  func(e *env) objectClient[eventGatewayObj] { return e.cs.KonnectV1alpha1().KonnectEventGateways(e.ns) },
	object:  func(_ *env, name string) eventGatewayObj { return eventGatewayObject(name) },
	change:  func(g eventGatewayObj) { g.Spec.APISpec.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift:   egDrift("event-gateways", "description", func(*env) string { return "" }),
	lookup: func(e *env, _ string, g eventGatewayObj) (map[string]any, bool) {
		return e.sim.APIEntity(e.orgID, "event-gateways", "", g.Status.ID)
	},
}

func TestKonnectEventGateway(t *testing.T) { eventGateways.test(t) }

var egBackends = kindCase[egBackendObj]{
	kind: "EventGatewayBackendCluster", collection: "event-gateway-backend-clusters", path: "/backend-clusters", labelled: true,
	client: func(e *env) objectClient[egBackendObj] {
		return e.cs.ConfigurationV1alpha1().EventGatewayBackendClusters(e.ns)
	},
	setup:  func(e *env) { e.eventGateway() },
	object: func(_ *env, name string) egBackendObj { return egBackendObject(name) },
	change: func(c egBackendObj) { c.Spec.APISpec.BootstrapServers = []string{"changed:9092"} },
	changed: func(ent map[string]any) error {
		return fieldIs(ent, "bootstrap_servers", []any{"changed:9092"})
	},
	drift: func(e *env, _ string, ent map[string]any) {
		e.reputAPI("event-gateway-backend-clusters", egGatewayID(e), map[string]any{"id": ent["id"], "bootstrap_servers": []any{"drifted:9092"}})
	},
	lookup: egGatewayEntity[egBackendObj]("event-gateway-backend-clusters"),
}

func TestEventGatewayBackendCluster(t *testing.T) { egBackends.test(t) }

var egListeners = kindCase[egListenerObj]{
	kind: "EventGatewayListener", collection: "event-gateway-listeners", path: "/listeners", labelled: true,
	client: func(e *env) objectClient[egListenerObj] {
		return e.cs.ConfigurationV1alpha1().EventGatewayListeners(e.ns)
	},
	setup:   func(e *env) { e.eventGateway() },
	object:  func(_ *env, name string) egListenerObj { return egListenerObject(name) },
	change:  func(l egListenerObj) { l.Spec.APISpec.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift:   egDrift("event-gateway-listeners", "description", egGatewayID),
	lookup:  egGatewayEntity[egListenerObj]("event-gateway-listeners"),
}

func TestEventGatewayListener(t *testing.T) { egListeners.test(t) }

var egVirtuals = kindCase[egVirtualObj]{
	kind: "EventGatewayVirtualCluster", collection: "event-gateway-virtual-clusters", path: "/virtual-clusters", labelled: true,
	client: func(e *env) objectClient[egVirtualObj] {
		return e.cs.ConfigurationV1alpha1().EventGatewayVirtualClusters(e.ns)
	},
	setup:   func(e *env) { e.egBackend() },
	object:  func(_ *env, name string) egVirtualObj { return egVirtualObject(name) },
	change:  func(v egVirtualObj) { v.Spec.APISpec.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift:   egDrift("event-gateway-virtual-clusters", "description", egGatewayID),
	lookup:  egGatewayEntity[egVirtualObj]("event-gateway-virtual-clusters"),
}

func TestEventGatewayVirtualCluster(t *testing.T) { egVirtuals.test(t) }

var egRegistries = kindCase[egRegistryObj]{
	kind: "EventGatewaySchemaRegistry", collection: "event-gateway-schema-registries", path: "/schema-registries", labelled: true,
	client: func(e *env) objectClient[egRegistryObj] {
		return e.cs.ConfigurationV1alpha1().EventGatewaySchemaRegistries(e.ns)
	},
	setup: func(e *env) { e.eventGateway() },
	object: func(_ *env, name string) egRegistryObj {
		return &configurationv1alpha1.EventGatewaySchemaRegistry{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: configurationv1alpha1.EventGatewaySchemaRegistrySpec{
				GatewayRef: egRef("gw"),
				APISpec: configurationv1alpha1.EventGatewaySchemaRegistryAPISpec{Type: "confluent", Confluent: &configurationv1alpha1.EventGatewayConfluentSchemaRegistry{
					Name:   name,
					Config: configurationv1alpha1.EventGatewayConfluentSchemaRegistryConfig{SchemaType: "json", Endpoint: "https://registry.example.com"},
				}},
			},
		}
	},
	change:  func(r egRegistryObj) { r.Spec.APISpec.Confluent.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift:   egDrift("event-gateway-schema-registries", "description", egGatewayID),
	lookup:  egGatewayEntity[egRegistryObj]("event-gateway-schema-registries"),
}

func TestEventGatewaySchemaRegistry(t *testing.T) { egRegistries.test(t) }

var egCertificates = kindCase[egCertificateObj]{
	kind: "EventGatewayDataPlaneCertificate", collection: "event-gateway-data-plane-certificates", path: "/data-plane-certificates", untagged: true,
	client: func(e *env) objectClient[egCertificateObj] {
		return e.cs.ConfigurationV1alpha1().EventGatewayDataPlaneCertificates(e.ns)
	},
	setup: func(e *env) { e.eventGateway() },
	object: func(_ *env, name string) egCertificateObj {
		// Konnect keys a certificate on its PEM within the gateway: each
		// object its own.
		pem := "-----BEGIN CERTIFICATE-----\n" + strings.Repeat("A", 64) + name + "\n-----END CERTIFICATE-----\n"
		return &configurationv1alpha1.EventGatewayDataPlaneCertificate{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: configurationv1alpha1.EventGatewayDataPlaneCertificateSpec{
				GatewayRef: egRef("gw"),
				APISpec: configurationv1alpha1.EventGatewayDataPlaneCertificateAPISpec{
					Name: name, Certificate: configurationv1alpha1.SensitiveDataSource{Type: configurationv1alpha1.SensitiveDataInline, Value: &pem},
				},
			},
		}
	},
	change:  func(c egCertificateObj) { c.Spec.APISpec.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift:   egDrift("event-gateway-data-plane-certificates", "description", egGatewayID),
	lookup:  egGatewayEntity[egCertificateObj]("event-gateway-data-plane-certificates"),
}

func TestEventGatewayDataPlaneCertificate(t *testing.T) { egCertificates.test(t) }
