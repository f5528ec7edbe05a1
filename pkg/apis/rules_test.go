package apis

import (
	"strings"
	"testing"
)

// rulesByKind lists, per kind, the validation rules of the rule catalogue
// (api-reference §2.14) that apply to its served versions. Each needs at
// least one invalid manifest in testdata/<kind-lowercase>/.
//
// KonnectGatewayControlPlane is served as v1alpha2 only, so the v1alpha1-only
// rules V93–V104 apply to no kind.
var rulesByKind = map[string][]string{
	"KonnectAPIAuthConfiguration": {"V68", "V69", "V70", "V71", "V72", "V73", "V74", "V75", "V76"},
	"KonnectGatewayControlPlane": {"V77", "V78", "V79", "V80", "V81", "V82", "V83", "V84", "V85", "V86",
		"V87", "V88", "V89", "V90", "V91", "V92"},
	"KongService": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V14", "V15",
		"V16c", "V17"},
	"KongRoute": {"V01", "V02", "V03", "V04", "V05", "V07", "V10", "V11", "V12", "V13", "V14", "V15",
		"V16b", "V17", "V22", "V24"},
	"KongUpstream": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V14", "V15",
		"V16", "V25", "V26", "V27", "V28", "V29", "V30", "V31", "V32", "V33", "V34", "V35", "V36", "V37"},
	"KongTarget": {"V01", "V02", "V03", "V04", "V05", "V19"},
	"KongCertificate": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V14",
		"V15", "V16", "V38", "V39", "V40b", "V41", "V42", "V43"},
	"KongCACertificate": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V14",
		"V15", "V16", "V38", "V40", "V44"},
	"KongSNI": {"V01", "V02", "V03", "V04", "V05", "V20"},
	"KongKey": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V14", "V15", "V16",
		"V22", "V23", "V45"},
	"KongKeySet": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V14", "V16"},
	"KongVault": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V15", "V16e",
		"V46", "V47"},
	"KongPluginBinding": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V15",
		"V16", "V48", "V49", "V50", "V51", "V52", "V53", "V54", "V55", "V56"},
	"KongDataPlaneClientCertificate": {"V02", "V03", "V04", "V08", "V10", "V11", "V12", "V13", "V14",
		"V15", "V16d", "V21"},
	"KongCredentialBasicAuth": {"V01", "V02", "V03", "V04", "V05", "V18"},
	"KongCredentialAPIKey":    {"V01", "V02", "V03", "V04", "V05", "V18"},
	"KongCredentialACL":       {"V01", "V02", "V03", "V04", "V05", "V18"},
	"KongCredentialJWT":       {"V01", "V02", "V03", "V04", "V05", "V18", "V57"},
	"KongCredentialHMAC":      {"V01", "V02", "V03", "V04", "V05", "V18"},
	"KongReferenceGrant":      {"V62", "V63", "V64", "V65", "V66", "V67"},
	"KongConsumer": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V15b",
		"V16b", "V58"},
	"KongPlugin":        {"V01", "V59", "V60", "V61"},
	"KongClusterPlugin": {"V01", "V59", "V60", "V61"},
	"KongConsumerGroup": {"V01", "V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12", "V13", "V15b",
		"V16f"},
	// The Dedicated Cloud Gateway kinds are outside api-reference §2.14;
	// their own rules are numbered CGnn (cloudGatewayRules).
	"KonnectCloudGatewayNetwork": {"V02", "V03", "V04", "V05", "CG01", "CG02", "CG03", "CG04", "CG05", "CG06",
		"CG07", "CG08"},
	"KonnectCloudGatewayDataPlaneGroupConfiguration": {"V02", "V03", "V04", "V05", "V06", "V10", "V11", "V12",
		"V13", "V14", "V16", "CG10", "CG11", "CG12", "CG13", "CG14", "CG15", "CG16"},
	"KonnectCloudGatewayTransitGateway": {"V02", "V03", "V04", "V05", "CG10", "CG11", "CG12", "CG13", "CG20",
		"CG21", "CG22", "CG23", "CG24", "CG25", "CG26", "CG27", "CG28"},
	// The kinds of Konnect's newer APIs name their parents with an
	// ObjectRef (ORnn); config stores have CSnn rules, the Dev Portal
	// kinds PTnn.
	"KonnectConfigStore":            {"OR01", "OR02", "OR03", "OR04", "CS01"},
	"Portal":                        {"OR01", "OR02", "OR03", "OR04", "PT01"},
	"PortalPage":                    {"OR01", "OR02", "OR03", "OR04", "PT02", "PT03"},
	"PortalTeam":                    {"OR01", "OR02", "OR03", "OR04", "PT02"},
	"PortalCustomization":           {"OR01", "OR02", "OR03", "OR04", "PT02"},
	"PortalEmailConfig":             {"OR01", "OR02", "OR03", "OR04", "PT02"},
	"PortalIPAllowList":             {"OR01", "OR02", "OR03", "OR04", "PT02"},
	"PortalCustomDomain":            {"OR01", "OR02", "OR03", "OR04", "PT02", "PT04", "PT05", "PT06", "PT07"},
	"PortalIdentityProviderRequest": {"OR01", "OR02", "OR03", "OR04", "PT02", "PT08", "PT09", "PT10", "PT11", "PT12"},
	// The Event Gateway kinds: EGnn.
	"EventGatewayBackendCluster":       {"OR01", "OR02", "OR03", "OR04", "EG01", "EG02", "EG03", "EG10", "EG11"},
	"EventGatewayDataPlaneCertificate": {"OR01", "OR02", "OR03", "OR04", "EG01", "EG02", "EG03"},
	"EventGatewayListener":             {"OR01", "OR02", "OR03", "OR04", "EG01"},
	"EventGatewayListenerPolicy": {"OR01", "OR02", "OR03", "OR04", "EG01", "EG02", "EG03", "EG12", "EG13", "EG14",
		"EG15"},
	"EventGatewaySchemaRegistry":              {"OR01", "OR02", "OR03", "OR04", "EG01", "EG02", "EG03", "EG16", "EG18"},
	"EventGatewayVirtualCluster":              {"OR01", "OR02", "OR03", "OR04", "EG01", "EG20", "EG21", "EG22", "EG23"},
	"EventGatewayVirtualClusterPolicy":        {"OR01", "OR02", "OR03", "OR04", "EG01", "EG24", "EG26", "EG27"},
	"EventGatewayVirtualClusterConsumePolicy": {"OR01", "OR02", "OR03", "OR04", "EG01", "EG28", "EG29", "EG37", "EG40"},
	"EventGatewayVirtualClusterProducePolicy": {"OR01", "OR02", "OR03", "OR04", "EG01", "EG30", "EG31", "EG32", "EG33",
		"EG34", "EG35", "EG36", "EG38", "EG39"},
}

// cloudGatewayRules describes the CGnn rules of the Dedicated Cloud Gateway
// kinds, which the §2.14 catalogue does not cover. Kong Operator enforces
// the same constraints, keyed on the Programmed condition; this project also
// keeps them once status.id is set. Where the rule is Kong Operator's, so is
// the message.
var cloudGatewayRules = map[string]string{
	"CG01": "network: spec.name is fixed once the network is Programmed or exists in Konnect",
	"CG02": "network: spec.cloud_gateway_provider_account_id is fixed once the network is Programmed or exists",
	"CG03": "network: spec.region is fixed once the network is Programmed or exists",
	"CG04": "network: spec.availability_zones are fixed once the network is Programmed or exists",
	"CG05": "network: spec.cidr_block is fixed once the network is Programmed or exists",
	"CG06": "network: spec.state (the initial state) is fixed once the network exists",
	"CG07": "network: spec.konnect.authRef is fixed once the network exists",
	"CG08": "network: each availability zone is named once",
	"CG10": "networkRef of type namespacedRef needs namespacedRef",
	"CG11": "networkRef of type namespacedRef has no konnectID",
	"CG12": "networkRef of type konnectID needs konnectID",
	"CG13": "networkRef of type konnectID has no namespacedRef",
	"CG14": "data-plane group autoscale: static and autopilot are exclusive",
	"CG15": "data-plane group autoscale of type static needs static",
	"CG16": "data-plane group autoscale of type autopilot needs autopilot",
	"CG20": "transit gateway: networkRef must be a namespacedRef",
	"CG21": "transit gateway: spec.type never changes",
	"CG22": "transit gateway of type AWSTransitGateway needs awsTransitGateway",
	"CG23": "transit gateway: awsTransitGateway only with type AWSTransitGateway",
	"CG24": "transit gateway of type AzureTransitGateway needs azureTransitGateway",
	"CG25": "transit gateway: azureTransitGateway only with type AzureTransitGateway",
	"CG26": "transit gateway: awsTransitGateway.name is fixed once it is Programmed or exists in Konnect",
	"CG27": "transit gateway: azureTransitGateway.name is fixed once it is Programmed or exists in Konnect",
	"CG28": "transit gateway: spec.networkRef is fixed once it exists in Konnect",
}

// objectRefRules describe the ORnn rules of ObjectRef, with which the kinds
// of Konnect's newer APIs name their parents. The messages are Kong
// Operator's.
var objectRefRules = map[string]string{
	"OR01": "an ObjectRef of type namespacedRef needs namespacedRef",
	"OR02": "an ObjectRef of type namespacedRef has no konnectID",
	"OR03": "an ObjectRef of type konnectID needs konnectID",
	"OR04": "an ObjectRef of type konnectID has no namespacedRef",
}

// configStoreRules describe the CSnn rules of KonnectConfigStore.
var configStoreRules = map[string]string{
	"CS01": "config store: spec.controlPlaneRef is fixed once the store is Programmed",
}

// portalRules describe the PTnn rules of the Dev Portal kinds. Where the
// rule is Kong Operator's, so is the message; the union rules (PT04–PT12)
// are this project's, refusing what Konnect would refuse.
var portalRules = map[string]string{
	"PT01": "portal: spec.apiSpec.name never changes",
	"PT02": "portal entity: spec.portalRef is fixed once the object is Programmed",
	"PT03": "page: spec.apiSpec.parentPageIDRef cannot be set",
	"PT04": "custom domain: ssl.type standard needs ssl.standard",
	"PT05": "custom domain: ssl.type withCustomCertificate needs ssl.withCustomCertificate",
	"PT06": "custom domain: ssl.standard only with ssl.type standard",
	"PT07": "custom domain: ssl.withCustomCertificate only with ssl.type withCustomCertificate",
	"PT08": "identity provider: config.type oIDC needs config.oIDC",
	"PT09": "identity provider: config.type portalSAML needs config.portalSAML",
	"PT10": "identity provider: config.oIDC only with config.type oIDC",
	"PT11": "identity provider: config.portalSAML only with config.type portalSAML",
	"PT12": "identity provider: type oidc goes with config.type oIDC, saml with portalSAML",
}

// eventGatewayRules describe the EGnn rules of the Event Gateway kinds.
// Where the rule is Kong Operator's, so is the message; the union rules
// (EG10–EG40) are this project's, one per member of each union, refusing
// what Konnect would refuse.
var eventGatewayRules = map[string]string{
	"EG01": "event gateway entity: the reference to its parent is fixed once the object is Programmed",
	"EG02": "sensitive value: type inline needs value, type secretRef needs secretRef",
	"EG03": "sensitive value: value and secretRef exclude each other",
	"EG10": "backend cluster authentication: type saslPlain or saslScram needs its member",
	"EG11": "backend cluster authentication: a member only with its type",
	"EG12": "listener policy: its type needs its member",
	"EG13": "listener policy: a member only with its type",
	"EG14": "forwarding to a virtual cluster: type portMapping needs portMapping",
	"EG15": "forwarding to a virtual cluster: a member only with its type",
	"EG16": "schema registry: type confluent needs confluent",
	"EG18": "schema registry authentication: type basic needs basic",
	"EG20": "virtual cluster authentication: a type with settings needs its member",
	"EG21": "virtual cluster authentication: a member only with its type",
	"EG22": "topic or consumer group selector: type glob needs glob",
	"EG23": "topic or consumer group selector: a member only with its type",
	"EG24": "virtual cluster policy: type acls needs acls",
	"EG26": "ACL resource names: their type needs its member",
	"EG27": "ACL resource names: a member only with its type",
	"EG28": "consume policy: a type with settings needs its member",
	"EG29": "consume policy: a member only with its type",
	"EG30": "produce policy: a type with settings needs its member",
	"EG31": "produce policy: a member only with its type",
	"EG32": "header change: its op needs its member",
	"EG33": "header change: a member only with its op",
	"EG34": "encryption key: aws and static each only, and always, with their type",
	"EG35": "field paths: their type needs its member",
	"EG36": "field paths: a member only with its type",
	"EG37": "schema validation: a member only with its type",
	"EG38": "schema registry reference: type id needs the ID, type name the name",
	"EG39": "schema registry reference: a member only with its type",
	"EG40": "key source: a member only with its type",
}

// describedRules are the rule families outside the §2.14 catalogue, by the
// prefix of their IDs.
var describedRules = map[string]map[string]string{
	"CG": cloudGatewayRules,
	"OR": objectRefRules,
	"CS": configStoreRules,
	"PT": portalRules,
	"EG": eventGatewayRules,
}

// servedVersionsAssumed names, for kinds whose rules differ between
// versions, the only versions rulesByKind was written for. A CRD serving
// another version needs that version's rules added above.
var servedVersionsAssumed = map[string][]string{
	"KonnectGatewayControlPlane": {"v1alpha2"},
}

// TestRuleFamiliesAreDescribed keeps rulesByKind and describedRules in
// step: every rule of a family outside the catalogue that a kind lists is
// described, and every described rule applies to some kind.
func TestRuleFamiliesAreDescribed(t *testing.T) {
	used := map[string]bool{}
	for kind, rules := range rulesByKind {
		for _, rule := range rules {
			family, ok := describedRules[rule[:2]]
			if !ok {
				continue
			}
			used[rule] = true
			if family[rule] == "" {
				t.Errorf("%s lists %s, which describedRules[%q] does not describe", kind, rule, rule[:2])
			}
		}
	}
	for prefix, family := range describedRules {
		for rule := range family {
			if !strings.HasPrefix(rule, prefix) {
				t.Errorf("%s is described among the %s rules", rule, prefix)
			}
			if !used[rule] {
				t.Errorf("%s is described but no kind lists it", rule)
			}
		}
	}
}
