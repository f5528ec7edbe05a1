package konnect

import (
	"net/http"
	"net/url"
	"strings"

	sdkkonnectgo "github.com/Kong/sdk-konnect-go"
)

// API is Konnect as the operator uses it: one interface of Kong's SDK per
// collection. Code that calls Konnect takes an API and uses the one field it
// needs, so that a test fills in only that field with a fake.
type API struct {
	Me                 sdkkonnectgo.MeSDK
	ControlPlanes      sdkkonnectgo.ControlPlanesSDK
	ControlPlaneGroups sdkkonnectgo.ControlPlaneGroupsSDK
	Services           sdkkonnectgo.ServicesSDK
	Routes             sdkkonnectgo.RoutesSDK
	Consumers          sdkkonnectgo.ConsumersSDK
	ConsumerGroups     sdkkonnectgo.ConsumerGroupsSDK
	Plugins            sdkkonnectgo.PluginsSDK
	Upstreams          sdkkonnectgo.UpstreamsSDK
	Targets            sdkkonnectgo.TargetsSDK
	Certificates       sdkkonnectgo.CertificatesSDK
	CACertificates     sdkkonnectgo.CACertificatesSDK
	SNIs               sdkkonnectgo.SNIsSDK
	Keys               sdkkonnectgo.KeysSDK
	KeySets            sdkkonnectgo.KeySetsSDK
	Vaults             sdkkonnectgo.VaultsSDK
	BasicAuths         sdkkonnectgo.BasicAuthCredentialsSDK
	APIKeys            sdkkonnectgo.APIKeysSDK
	ACLs               sdkkonnectgo.ACLsSDK
	JWTs               sdkkonnectgo.JWTsSDK
	HMACAuths          sdkkonnectgo.HMACAuthCredentialsSDK
	DPCertificates     sdkkonnectgo.DPCertificatesSDK
	CloudGateways      sdkkonnectgo.CloudGatewaysSDK
	ConfigStores       sdkkonnectgo.ConfigStoresSDK
	// The Dev Portal (v3): portals and what they hold.
	Portals             sdkkonnectgo.PortalsSDK
	PortalPages         sdkkonnectgo.PortalPagesSDK
	PortalTeams         sdkkonnectgo.PortalTeamsSDK
	PortalCustomization sdkkonnectgo.PortalCustomizationSDK
	PortalCustomDomains sdkkonnectgo.PortalCustomDomainsSDK
	PortalEmails        sdkkonnectgo.PortalEmailsSDK
	PortalAuthSettings  sdkkonnectgo.PortalAuthSettingsSDK
	PortalIPAllowLists  sdkkonnectgo.PortalsIPAllowListSDK
	// The Event Gateway: gateways and what they hold.
	EventGateways                sdkkonnectgo.EventGatewaysSDK
	EventGatewayBackendClusters  sdkkonnectgo.EventGatewayBackendClustersSDK
	EventGatewayListeners        sdkkonnectgo.EventGatewayListenersSDK
	EventGatewayListenerPolicies sdkkonnectgo.EventGatewayListenerPoliciesSDK
	EventGatewayVirtualClusters  sdkkonnectgo.EventGatewayVirtualClustersSDK
	EventGatewayClusterPolicies  sdkkonnectgo.EventGatewayVirtualClusterPoliciesSDK
	EventGatewayConsumePolicies  sdkkonnectgo.EventGatewayVirtualClusterConsumePoliciesSDK
	EventGatewayProducePolicies  sdkkonnectgo.EventGatewayVirtualClusterProducePoliciesSDK
	EventGatewaySchemaRegistries sdkkonnectgo.EventGatewaySchemaRegistriesSDK
	EventGatewayDataPlaneCerts   sdkkonnectgo.EventGatewayDataPlaneCertificatesSDK
	// Pages reads core-entity list pages without the SDK's decoding (see
	// PageReader); nil in fakes, where callers use the SDK.
	Pages PageReader
	// JSON reads answers that the SDK's types would not keep whole (see
	// JSONReader); nil in fakes.
	JSON JSONReader
}

// newAPI builds Kong's SDK for one server, sending every request through
// do. The SDK's own retries stay off (none is configured): the work queues
// retry, with the limiter's knowledge of the organisation's budget.
func newAPI(serverURL string, do sdkkonnectgo.HTTPClient) API {
	sdk := sdkkonnectgo.New(sdkkonnectgo.WithServerURL(serverURL), sdkkonnectgo.WithClient(do))
	return API{
		Me:                  sdk.Me,
		ControlPlanes:       sdk.ControlPlanes,
		ControlPlaneGroups:  sdk.ControlPlaneGroups,
		Services:            sdk.Services,
		Routes:              sdk.Routes,
		Consumers:           sdk.Consumers,
		ConsumerGroups:      sdk.ConsumerGroups,
		Plugins:             sdk.Plugins,
		Upstreams:           sdk.Upstreams,
		Targets:             sdk.Targets,
		Certificates:        sdk.Certificates,
		CACertificates:      sdk.CACertificates,
		SNIs:                sdk.SNIs,
		Keys:                sdk.Keys,
		KeySets:             sdk.KeySets,
		Vaults:              sdk.Vaults,
		BasicAuths:          sdk.BasicAuthCredentials,
		APIKeys:             sdk.APIKeys,
		ACLs:                sdk.ACLs,
		JWTs:                sdk.JWTs,
		HMACAuths:           sdk.HMACAuthCredentials,
		DPCertificates:      sdk.DPCertificates,
		CloudGateways:       sdk.CloudGateways,
		ConfigStores:        sdk.ConfigStores,
		Portals:             sdk.Portals,
		PortalPages:         sdk.PortalPages,
		PortalTeams:         sdk.PortalTeams,
		PortalCustomization: sdk.PortalCustomization,
		PortalCustomDomains: sdk.PortalCustomDomains,
		PortalEmails:        sdk.PortalEmails,
		PortalAuthSettings:  sdk.PortalAuthSettings,
		PortalIPAllowLists:  sdk.PortalsIPAllowList,

		EventGateways:                sdk.EventGateways,
		EventGatewayBackendClusters:  sdk.EventGatewayBackendClusters,
		EventGatewayListeners:        sdk.EventGatewayListeners,
		EventGatewayListenerPolicies: sdk.EventGatewayListenerPolicies,
		EventGatewayVirtualClusters:  sdk.EventGatewayVirtualClusters,
		EventGatewayClusterPolicies:  sdk.EventGatewayVirtualClusterPolicies,
		EventGatewayConsumePolicies:  sdk.EventGatewayVirtualClusterConsumePolicies,
		EventGatewayProducePolicies:  sdk.EventGatewayVirtualClusterProducePolicies,
		EventGatewaySchemaRegistries: sdk.EventGatewaySchemaRegistries,
		EventGatewayDataPlaneCerts:   sdk.EventGatewayDataPlaneCertificates,
		Pages:                        pageReader{server: serverURL, do: do},
		JSON:                         jsonReader{server: serverURL, do: do},
	}
}

// konnectDomains are the domains of Konnect's own API hosts.
var konnectDomains = []string{".konghq.com", ".konghq.tech"}

func isKonnectHost(host string) bool {
	for _, d := range konnectDomains {
		if strings.HasSuffix(host, d) {
			return true
		}
	}
	return false
}

// keepOnServer undoes the SDK's move of organisation-level requests (such as
// GET /v3/organizations/me) to Konnect's global host when the client talks
// to a server that is not Konnect's (a simulator, a proxy): those requests
// belong to the configured server like every other. For Konnect's regional
// hosts the global host is right and is kept.
func keepOnServer(req *http.Request, server *url.URL) {
	if isKonnectHost(server.Hostname()) || !isKonnectHost(req.URL.Hostname()) {
		return
	}
	req.URL.Scheme = server.Scheme
	req.URL.Host = server.Host
	req.Host = server.Host
}
