package apis

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
}

// servedVersionsAssumed names, for kinds whose rules differ between
// versions, the only versions rulesByKind was written for. A CRD serving
// another version needs that version's rules added above.
var servedVersionsAssumed = map[string][]string{
	"KonnectGatewayControlPlane": {"v1alpha2"},
}
