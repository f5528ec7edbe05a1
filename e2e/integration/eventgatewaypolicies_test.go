package integration

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// The Event Gateway's policies through the shared per-kind harness, and
// a policy union refused at admission.

func egMeta(name string) configurationv1alpha1.EventGatewayPolicyMeta {
	return configurationv1alpha1.EventGatewayPolicyMeta{Name: name}
}

func egHeaderPolicy(name string) *configurationv1alpha1.EventGatewayModifyHeadersPolicy {
	return &configurationv1alpha1.EventGatewayModifyHeadersPolicy{
		EventGatewayConditionalPolicyMeta: configurationv1alpha1.EventGatewayConditionalPolicyMeta{EventGatewayPolicyMeta: egMeta(name)},
		Config: configurationv1alpha1.EventGatewayModifyHeadersConfig{Actions: []configurationv1alpha1.EventGatewayModifyHeaderAction{{
			Op: "set", Set: &configurationv1alpha1.EventGatewayHeaderValue{Key: "x-" + name, Value: "v"},
		}}},
	}
}

var egListenerPolicies = kindCase[egListenerPolObj]{
	kind: "EventGatewayListenerPolicy", collection: "event-gateway-listener-policies", path: "/policies", labelled: true,
	client: func(e *env) objectClient[egListenerPolObj] {
		return e.cs.ConfigurationV1alpha1().EventGatewayListenerPolicies(e.ns)
	},
	setup: func(e *env) { e.egListener() },
	object: func(_ *env, name string) egListenerPolObj {
		return &configurationv1alpha1.EventGatewayListenerPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: configurationv1alpha1.EventGatewayListenerPolicySpec{
				EventGatewayListenerRef: egRef("listener"),
				APISpec: configurationv1alpha1.EventGatewayListenerPolicyAPISpec{Type: "forwardToVirtualCluster", ForwardToVirtualCluster: &configurationv1alpha1.EventGatewayForwardToVirtualClusterPolicy{
					EventGatewayPolicyMeta: egMeta(name),
					Config:                 &configurationv1alpha1.EventGatewayForwardConfig{Type: "sni", SNI: &configurationv1alpha1.EventGatewayForwardBySNI{SNISuffix: ".events.example.com"}},
				}},
			},
		}
	},
	change:  func(p egListenerPolObj) { p.Spec.APISpec.ForwardToVirtualCluster.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift:   egDrift("event-gateway-listener-policies", "description", egListenerID),
	lookup:  egPolicyEntity[egListenerPolObj]("event-gateway-listener-policies"),
}

func TestEventGatewayListenerPolicy(t *testing.T) { egListenerPolicies.test(t) }

var egClusterPolicies = kindCase[egClusterPolObj]{
	kind: "EventGatewayVirtualClusterPolicy", collection: "event-gateway-cluster-policies", path: "/cluster-policies", labelled: true,
	client: func(e *env) objectClient[egClusterPolObj] {
		return e.cs.ConfigurationV1alpha1().EventGatewayVirtualClusterPolicies(e.ns)
	},
	setup: func(e *env) { e.egVirtualCluster() },
	object: func(_ *env, name string) egClusterPolObj {
		return &configurationv1alpha1.EventGatewayVirtualClusterPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: configurationv1alpha1.EventGatewayVirtualClusterPolicySpec{
				EventGatewayVirtualClusterRef: egRef("vc"),
				APISpec: configurationv1alpha1.EventGatewayVirtualClusterPolicyAPISpec{Type: "acls", ACLs: &configurationv1alpha1.EventGatewayACLsPolicy{
					EventGatewayConditionalPolicyMeta: configurationv1alpha1.EventGatewayConditionalPolicyMeta{EventGatewayPolicyMeta: egMeta(name)},
					Config: configurationv1alpha1.EventGatewayACLsConfig{Rules: []configurationv1alpha1.EventGatewayACLRule{{
						Action: "allow", ResourceType: "topic",
						Operations:    []configurationv1alpha1.EventGatewayACLOperation{{Name: "read"}},
						ResourceNames: &configurationv1alpha1.EventGatewayACLResourceNames{Type: "stat", Stat: []configurationv1alpha1.EventGatewayMatch{{Match: "orders.*"}}},
					}}},
				}},
			},
		}
	},
	change:  func(p egClusterPolObj) { p.Spec.APISpec.ACLs.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift:   egDrift("event-gateway-cluster-policies", "description", egVirtualID),
	lookup:  egPolicyEntity[egClusterPolObj]("event-gateway-cluster-policies"),
}

func TestEventGatewayVirtualClusterPolicy(t *testing.T) { egClusterPolicies.test(t) }

var egConsumePolicies = kindCase[egConsumePolObj]{
	kind: "EventGatewayVirtualClusterConsumePolicy", collection: "event-gateway-consume-policies", path: "/consume-policies", labelled: true,
	client: func(e *env) objectClient[egConsumePolObj] {
		return e.cs.ConfigurationV1alpha1().EventGatewayVirtualClusterConsumePolicies(e.ns)
	},
	setup: func(e *env) { e.egVirtualCluster() },
	object: func(_ *env, name string) egConsumePolObj {
		return &configurationv1alpha1.EventGatewayVirtualClusterConsumePolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: configurationv1alpha1.EventGatewayVirtualClusterConsumePolicySpec{
				EventGatewayVirtualClusterRef: egRef("vc"),
				APISpec:                       configurationv1alpha1.EventGatewayVirtualClusterConsumePolicyAPISpec{Type: "modifyHeaders", ModifyHeaders: egHeaderPolicy(name)},
			},
		}
	},
	change:  func(p egConsumePolObj) { p.Spec.APISpec.ModifyHeaders.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift:   egDrift("event-gateway-consume-policies", "description", egVirtualID),
	lookup:  egPolicyEntity[egConsumePolObj]("event-gateway-consume-policies"),
}

func TestEventGatewayVirtualClusterConsumePolicy(t *testing.T) { egConsumePolicies.test(t) }

var egProducePolicies = kindCase[egProducePolObj]{
	kind: "EventGatewayVirtualClusterProducePolicy", collection: "event-gateway-produce-policies", path: "/produce-policies", labelled: true,
	client: func(e *env) objectClient[egProducePolObj] {
		return e.cs.ConfigurationV1alpha1().EventGatewayVirtualClusterProducePolicies(e.ns)
	},
	setup: func(e *env) { e.egVirtualCluster() },
	object: func(_ *env, name string) egProducePolObj {
		return &configurationv1alpha1.EventGatewayVirtualClusterProducePolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: configurationv1alpha1.EventGatewayVirtualClusterProducePolicySpec{
				EventGatewayVirtualClusterRef: egRef("vc"),
				APISpec:                       configurationv1alpha1.EventGatewayVirtualClusterProducePolicyAPISpec{Type: "modifyHeaders", ModifyHeaders: egHeaderPolicy(name)},
			},
		}
	},
	change:  func(p egProducePolObj) { p.Spec.APISpec.ModifyHeaders.Description = "changed" },
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift:   egDrift("event-gateway-produce-policies", "description", egVirtualID),
	lookup:  egPolicyEntity[egProducePolObj]("event-gateway-produce-policies"),
}

func TestEventGatewayVirtualClusterProducePolicy(t *testing.T) { egProducePolicies.test(t) }

// TestEventGatewayPolicyUnionRefusedAtAdmission: a consume policy whose
// type names one member while it sets another is refused by the API
// server, with a message that says which member to remove or which type to
// set; nothing is stored.
func TestEventGatewayPolicyUnionRefusedAtAdmission(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	policy := &configurationv1alpha1.EventGatewayVirtualClusterConsumePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "mixed"},
		Spec: configurationv1alpha1.EventGatewayVirtualClusterConsumePolicySpec{
			EventGatewayVirtualClusterRef: egRef("vc"),
			APISpec: configurationv1alpha1.EventGatewayVirtualClusterConsumePolicyAPISpec{
				Type:       "skipRecord",
				SkipRecord: &configurationv1alpha1.EventGatewayConditionalPolicyMeta{EventGatewayPolicyMeta: egMeta("mixed")},
				// A second member, for another type.
				ModifyHeaders: egHeaderPolicy("mixed"),
			},
		},
	}
	client := e.cs.ConfigurationV1alpha1().EventGatewayVirtualClusterConsumePolicies(e.ns)
	_, err := client.Create(e.ctx, policy, metav1.CreateOptions{})
	const want = "modifyHeaders is only for type modifyHeaders: remove it or change the type"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("creating a policy of type skipRecord with modifyHeaders: %v, want a refusal saying %q", err, want)
	}
	if _, err := client.Get(e.ctx, "mixed", metav1.GetOptions{}); err == nil {
		t.Fatal("the refused policy was stored")
	}
}
