package konnectsim

import (
	"net/http"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// cloudSim starts a simulator whose cloud-gateway entities take a minute to
// provision and half a minute to terminate on a fake clock.
func cloudSim(t *testing.T) (*TestServer, *apiClient, *clocktesting.FakeClock) {
	t.Helper()
	clock := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	ts, c := startSim(t, Options{Clock: clock, CloudGateways: CloudGatewayOptions{
		ProvisioningTime: time.Minute, TerminationTime: 30 * time.Second,
		ProviderAccounts: []ProviderAccount{{ID: "1234", Provider: "aws", CloudAccountID: "123456789012"}},
	}})
	return ts, c, clock
}

const networksURL = "/v2/cloud-gateways/networks"

func networkBody(name string) map[string]any {
	return map[string]any{
		"name": name, "cloud_gateway_provider_account_id": "1234", "region": "eu-central-1",
		"availability_zones": []any{"euc1-az1", "euc1-az2"}, "cidr_block": "10.1.0.0/16",
	}
}

// TestNetworkProvisioningFollowsTheClock: a network is initializing for its
// provisioning time, then ready with provider metadata; deleting it makes
// it terminating for the termination time, then it is gone.
func TestNetworkProvisioningFollowsTheClock(t *testing.T) {
	ts, c, clock := cloudSim(t)
	created := c.do("POST", networksURL, networkBody("net-a")).must(t, http.StatusCreated)
	id := created["id"].(string)
	if created["state"] != "initializing" || created["entity_version"] != 1.0 || created["default"] != false {
		t.Fatalf("created = %v", created)
	}
	clock.Step(59 * time.Second)
	if got := c.do("GET", networksURL+"/"+id, nil).must(t, 200)["state"]; got != "initializing" {
		t.Errorf("state before the provisioning time = %v, want initializing", got)
	}
	clock.Step(time.Second)
	ready := c.do("GET", networksURL+"/"+id, nil).must(t, 200)
	if ready["state"] != "ready" || ready["provider_metadata"].(map[string]any)["vpc_id"] == nil {
		t.Errorf("after the provisioning time = %v, want ready with a VPC", ready)
	}
	if n := ts.Count("org-a"); n != 1 {
		t.Errorf("Count = %d, want the network", n)
	}
	c.do("DELETE", networksURL+"/"+id, nil).must(t, http.StatusNoContent)
	if got := c.do("GET", networksURL+"/"+id, nil).must(t, 200)["state"]; got != "terminating" {
		t.Errorf("state after delete = %v, want terminating", got)
	}
	c.do("DELETE", networksURL+"/"+id, nil).must(t, http.StatusBadRequest)
	clock.Step(30 * time.Second)
	c.do("GET", networksURL+"/"+id, nil).must(t, http.StatusNotFound)
	if n := ts.Count("org-a"); n != 0 {
		t.Errorf("Count after termination = %d, want 0", n)
	}
}

// TestNetworkRules: names are unique in the organisation, the provider
// account must be linked, CIDR blocks must be private IPv4 ranges, zones
// distinct; a network created offline stays offline.
func TestNetworkRules(t *testing.T) {
	_, c, clock := cloudSim(t)
	c.do("POST", networksURL, networkBody("net-a")).must(t, http.StatusCreated)
	c.do("POST", networksURL, networkBody("net-a")).must(t, http.StatusConflict)
	cases := map[string]struct {
		change map[string]any
		field  string
	}{
		"unknown provider account": {map[string]any{"cloud_gateway_provider_account_id": "929b2449-c69f-44c4-b6ad-9ecec6f811ae"}, "cloud_gateway_provider_account_id"},
		"public CIDR block":        {map[string]any{"cidr_block": "8.8.0.0/16"}, "cidr_block"},
		"not a CIDR block":         {map[string]any{"cidr_block": "10.1.0.0"}, "cidr_block"},
		"zone twice":               {map[string]any{"availability_zones": []any{"a", "a"}}, "availability_zones"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			body := networkBody("net-" + name)
			for k, v := range tc.change {
				body[k] = v
			}
			bad := c.do("POST", networksURL, body).must(t, http.StatusBadRequest)
			params, _ := bad["invalid_parameters"].([]any)
			if len(params) != 1 || params[0].(map[string]any)["field"] != tc.field {
				t.Errorf("invalid_parameters = %v, want one about %s", params, tc.field)
			}
		})
	}
	body := networkBody("net-offline")
	body["state"] = "offline"
	id := c.do("POST", networksURL, body).must(t, http.StatusCreated)["id"].(string)
	clock.Step(time.Hour)
	if got := c.do("GET", networksURL+"/"+id, nil).must(t, 200)["state"]; got != "offline" {
		t.Errorf("network created offline = %v after an hour, want offline", got)
	}
	renamed := c.do("PATCH", networksURL+"/"+id, map[string]any{"name": "net-renamed"}).must(t, 200)
	if renamed["name"] != "net-renamed" || renamed["entity_version"] != 2.0 {
		t.Errorf("renamed = %v", renamed)
	}
	c.do("PATCH", networksURL+"/"+id, map[string]any{"name": "net-a"}).must(t, http.StatusConflict)
}

// TestNetworkProvisioningFailure: a network whose provisioning a fault
// fails ends offline, with Konnect's reason in state_metadata.
func TestNetworkProvisioningFailure(t *testing.T) {
	ts, c, clock := cloudSim(t)
	ts.Faults().FailProvisioning("net-bad", "insufficient capacity in eu-central-1")
	id := c.do("POST", networksURL, networkBody("net-bad")).must(t, http.StatusCreated)["id"].(string)
	clock.Step(time.Minute)
	failed := c.do("GET", networksURL+"/"+id, nil).must(t, 200)
	meta, _ := failed["state_metadata"].(map[string]any)
	if failed["state"] != "offline" || meta["reported_status"] != "ERROR" || meta["reason"] != "insufficient capacity in eu-central-1" {
		t.Errorf("failed network = %v", failed)
	}
	// A failed network can be deleted.
	c.do("DELETE", networksURL+"/"+id, nil).must(t, http.StatusNoContent)

	// The same fault through the inspection API, then removed again.
	c.do("PUT", "/_sim/provisioning-failures/net-http", map[string]any{"reason": "quota exceeded"}).must(t, http.StatusNoContent)
	viaHTTP := c.do("POST", networksURL, networkBody("net-http")).must(t, http.StatusCreated)["id"].(string)
	c.do("DELETE", "/_sim/provisioning-failures/net-http", nil).must(t, http.StatusNoContent)
	body := networkBody("net-http-2")
	recovered := c.do("POST", networksURL, body).must(t, http.StatusCreated)["id"].(string)
	clock.Step(time.Minute)
	if got := c.do("GET", networksURL+"/"+viaHTTP, nil).must(t, 200)["state_metadata"]; got.(map[string]any)["reason"] != "quota exceeded" {
		t.Errorf("state_metadata = %v", got)
	}
	if got := c.do("GET", networksURL+"/"+recovered, nil).must(t, 200)["state"]; got != "ready" {
		t.Errorf("a network of another name = %v, want ready", got)
	}
	c.do("PUT", "/_sim/provisioning-failures/x", map[string]any{}).must(t, http.StatusBadRequest)
}

func cloudCP(c *apiClient, name string, cloudGateway bool) string {
	return c.newCP(name, map[string]any{"cloud_gateway": cloudGateway})
}

func configBody(cpID, networkID string, instances int) map[string]any {
	return map[string]any{
		"control_plane_id": cpID, "control_plane_geo": "eu", "version": "3.9",
		"dataplane_groups": []any{map[string]any{
			"provider": "aws", "region": "eu-central-1", "cloud_gateway_network_id": networkID,
			"autoscale": map[string]any{"kind": "static", "instance_type": "small", "requested_instances": instances},
		}},
	}
}

// TestConfigurationReplacesGroups: a PUT creates the configuration of a
// control plane; its groups wait for their network, then provision; the
// same configuration again is a 409; a PUT without groups terminates them;
// a network in use cannot be deleted.
func TestConfigurationReplacesGroups(t *testing.T) {
	ts, c, clock := cloudSim(t)
	cp := cloudCP(c, "cloud", true)
	netID := c.do("POST", networksURL, networkBody("net-a")).must(t, http.StatusCreated)["id"].(string)
	cfg := c.do("PUT", "/v2/cloud-gateways/configurations", configBody(cp, netID, 2)).must(t, 200)
	cfgID := cfg["id"].(string)
	group := cfg["dataplane_groups"].([]any)[0].(map[string]any)
	if group["state"] != "initializing" || cfg["api_access"] != "private+public" || cfg["kind"] != "dedicated.v0" {
		t.Fatalf("configuration = %v", cfg)
	}
	c.do("PUT", "/v2/cloud-gateways/configurations", configBody(cp, netID, 2)).must(t, http.StatusConflict)
	// The group waits for the network (a minute), then takes a minute itself.
	clock.Step(90 * time.Second)
	if got := groupState(t, c, cfgID); got != "initializing" {
		t.Errorf("group state before its network was ready for a minute = %s", got)
	}
	clock.Step(30 * time.Second)
	if got := groupState(t, c, cfgID); got != "ready" {
		t.Errorf("group state = %s, want ready", got)
	}
	refused := c.do("DELETE", networksURL+"/"+netID, nil).must(t, http.StatusBadRequest)
	if refused["detail"] == nil {
		t.Errorf("in-use refusal = %v", refused)
	}
	scaled := c.do("PUT", "/v2/cloud-gateways/configurations", configBody(cp, netID, 3)).must(t, 200)
	if scaled["id"] != cfgID || scaled["dataplane_groups"].([]any)[0].(map[string]any)["id"] != group["id"] {
		t.Errorf("a changed group keeps its configuration and group IDs: %v", scaled)
	}
	emptied := configBody(cp, netID, 3)
	emptied["dataplane_groups"] = []any{}
	c.do("PUT", "/v2/cloud-gateways/configurations", emptied).must(t, 200)
	if got := groupState(t, c, cfgID); got != "terminating" {
		t.Errorf("dropped group = %s, want terminating", got)
	}
	c.do("DELETE", networksURL+"/"+netID, nil).must(t, http.StatusBadRequest)
	clock.Step(30 * time.Second)
	if groups := c.do("GET", "/v2/cloud-gateways/configurations/"+cfgID, nil).must(t, 200)["dataplane_groups"].([]any); len(groups) != 0 {
		t.Errorf("groups after termination = %v", groups)
	}
	c.do("DELETE", networksURL+"/"+netID, nil).must(t, http.StatusNoContent)
	listed := c.do("GET", "/v2/cloud-gateways/configurations?filter[control_plane_id][eq]="+cp, nil).must(t, 200)
	if data := listed["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != cfgID {
		t.Errorf("list by control plane = %v", listed)
	}
	if ts.Configuration("org-a", cp)["id"] != cfgID {
		t.Errorf("Configuration() does not find the control plane's configuration")
	}
}

func groupState(t *testing.T, c *apiClient, cfgID string) any {
	t.Helper()
	cfg := c.do("GET", "/v2/cloud-gateways/configurations/"+cfgID, nil).must(t, 200)
	groups := cfg["dataplane_groups"].([]any)
	if len(groups) != 1 {
		t.Fatalf("groups = %v", groups)
	}
	return groups[0].(map[string]any)["state"]
}

// TestConfigurationRefusals: the control plane must exist and be a cloud
// gateway; networks must exist and match the group's region and provider.
func TestConfigurationRefusals(t *testing.T) {
	_, c, _ := cloudSim(t)
	plain := cloudCP(c, "plain", false)
	cloud := cloudCP(c, "cloud", true)
	netID := c.do("POST", networksURL, networkBody("net-a")).must(t, http.StatusCreated)["id"].(string)
	c.do("PUT", "/v2/cloud-gateways/configurations", configBody("5f3c7a0e-2b6d-4c1e-9a8f-0d4e6b7c8a91", netID, 1)).must(t, http.StatusNotFound)
	cases := map[string]struct {
		body  map[string]any
		field string
	}{
		"not a cloud gateway": {configBody(plain, netID, 1), "control_plane_id"},
		"unknown network":     {configBody(cloud, "36ae63d3-efd1-4bec-b246-62aa5d3f5695", 1), "dataplane_groups[0].cloud_gateway_network_id"},
	}
	wrongRegion := configBody(cloud, netID, 1)
	wrongRegion["dataplane_groups"].([]any)[0].(map[string]any)["region"] = "us-east-2"
	cases["region of another network"] = struct {
		body  map[string]any
		field string
	}{wrongRegion, "dataplane_groups[0].region"}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			params, _ := c.do("PUT", "/v2/cloud-gateways/configurations", tc.body).must(t, http.StatusBadRequest)["invalid_parameters"].([]any)
			if len(params) != 1 || params[0].(map[string]any)["field"] != tc.field {
				t.Errorf("invalid_parameters = %v, want one about %s", params, tc.field)
			}
		})
	}
}

// TestDeletingAControlPlaneEndsItsConfiguration: the groups of a deleted
// control plane terminate and then release their network.
func TestDeletingAControlPlaneEndsItsConfiguration(t *testing.T) {
	ts, c, clock := cloudSim(t)
	cp := cloudCP(c, "cloud", true)
	netID := c.do("POST", networksURL, networkBody("net-a")).must(t, http.StatusCreated)["id"].(string)
	c.do("PUT", "/v2/cloud-gateways/configurations", configBody(cp, netID, 1)).must(t, 200)
	c.do("DELETE", "/v2/control-planes/"+cp, nil).must(t, http.StatusNoContent)
	c.do("DELETE", networksURL+"/"+netID, nil).must(t, http.StatusBadRequest)
	clock.Step(30 * time.Second)
	c.do("DELETE", networksURL+"/"+netID, nil).must(t, http.StatusNoContent)
	clock.Step(30 * time.Second)
	if n := ts.Count("org-a"); n != 0 {
		t.Errorf("Count = %d, want nothing left", n)
	}
}

func transitURL(netID string) string { return networksURL + "/" + netID + "/transit-gateways" }

func awsTransitBody(name string) map[string]any {
	return map[string]any{
		"name": name, "cidr_blocks": []any{"10.10.0.0/16"}, "dns_config": []any{},
		"transit_gateway_attachment_config": map[string]any{
			"kind": "aws-transit-gateway-attachment", "transit_gateway_id": "tgw-1", "ram_share_arn": "arn:aws:ram::1:resource-share/x",
		},
	}
}

// TestTransitGatewayLifecycle: transit gateways attach to ready networks
// only, have unique names in their network, cannot be deleted while
// transitional, fail when a fault says so, and keep the network in use.
func TestTransitGatewayLifecycle(t *testing.T) {
	ts, c, clock := cloudSim(t)
	netID := c.do("POST", networksURL, networkBody("net-a")).must(t, http.StatusCreated)["id"].(string)
	c.do("POST", transitURL(netID), awsTransitBody("tgw")).must(t, http.StatusBadRequest)
	clock.Step(time.Minute)
	created := c.do("POST", transitURL(netID), awsTransitBody("tgw")).must(t, http.StatusCreated)
	tgwID := created["id"].(string)
	if created["state"] != "initializing" {
		t.Errorf("created = %v", created)
	}
	c.do("POST", transitURL(netID), awsTransitBody("tgw")).must(t, http.StatusConflict)
	c.do("DELETE", transitURL(netID)+"/"+tgwID, nil).must(t, http.StatusBadRequest)
	azure := awsTransitBody("peering")
	azure["transit_gateway_attachment_config"] = map[string]any{
		"kind": "azure-vnet-peering-attachment", "tenant_id": "t", "subscription_id": "s", "resource_group_name": "g", "vnet_name": "v",
	}
	delete(azure, "cidr_blocks")
	c.do("POST", transitURL(netID), azure).must(t, http.StatusBadRequest) // an AWS network
	clock.Step(time.Minute)
	ready := c.do("GET", transitURL(netID)+"/"+tgwID, nil).must(t, 200)
	if ready["state"] != "ready" || ready["transit_gateway_attachment_config"].(map[string]any)["attachment_id"] == nil {
		t.Errorf("ready = %v", ready)
	}
	patched := c.do("PATCH", transitURL(netID)+"/"+tgwID, map[string]any{"cidr_blocks": []any{"10.20.0.0/16"}}).must(t, 200)
	if blocks := patched["cidr_blocks"].([]any); len(blocks) != 1 || blocks[0] != "10.20.0.0/16" || patched["entity_version"] != 2.0 {
		t.Errorf("patched = %v", patched)
	}
	c.do("DELETE", networksURL+"/"+netID, nil).must(t, http.StatusBadRequest)

	ts.Faults().FailProvisioning("tgw-bad", "the RAM share was not accepted")
	badID := c.do("POST", transitURL(netID), awsTransitBody("tgw-bad")).must(t, http.StatusCreated)["id"].(string)
	clock.Step(time.Minute)
	bad := c.do("GET", transitURL(netID)+"/"+badID, nil).must(t, 200)
	if bad["state"] != "error" || bad["state_metadata"].(map[string]any)["reason"] != "the RAM share was not accepted" {
		t.Errorf("failed transit gateway = %v", bad)
	}
	for _, id := range []string{tgwID, badID} {
		c.do("DELETE", transitURL(netID)+"/"+id, nil).must(t, http.StatusNoContent)
	}
	clock.Step(30 * time.Second)
	if listed := c.do("GET", transitURL(netID), nil).must(t, 200)["data"].([]any); len(listed) != 0 {
		t.Errorf("transit gateways after termination = %v", listed)
	}
	c.do("DELETE", networksURL+"/"+netID, nil).must(t, http.StatusNoContent)
}

// TestProviderAccounts: each organisation has one account per provider
// plus those the options link, listed and read by ID, filtered by provider.
func TestProviderAccounts(t *testing.T) {
	_, c, _ := cloudSim(t)
	all := c.do("GET", "/v2/cloud-gateways/provider-accounts", nil).must(t, 200)
	if data := all["data"].([]any); len(data) != 4 {
		t.Errorf("accounts = %v, want aws, azure, gcp and the linked one", data)
	}
	aws := c.do("GET", "/v2/cloud-gateways/provider-accounts?filter[provider][eq]=aws", nil).must(t, 200)["data"].([]any)
	if len(aws) != 2 {
		t.Errorf("aws accounts = %v", aws)
	}
	if got := c.do("GET", "/v2/cloud-gateways/provider-accounts/1234", nil).must(t, 200); got["provider_account_id"] != "123456789012" {
		t.Errorf("account 1234 = %v", got)
	}
	c.do("GET", "/v2/cloud-gateways/provider-accounts/929b2449-c69f-44c4-b6ad-9ecec6f811ae", nil).must(t, http.StatusNotFound)
}
