package entities

import (
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// cloudControlPlane puts a Programmed control plane created with
// cloud_gateway set to cloud.
func cloudControlPlane(t *testing.T, refs *Refs, name, id string, cloud bool) {
	t.Helper()
	cp := programmedControlPlane(t, refs, name, id)
	cp.Spec.CreateControlPlaneRequest = &konnectv1alpha2.CreateControlPlaneRequest{CloudGateway: &cloud}
	put(t, refs.ControlPlanes, cp)
}

// testNetwork is a network object in state, Programmed when ready.
func testNetwork(namespace, name, id, state string) network {
	n := &konnectv1alpha1.KonnectCloudGatewayNetwork{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	n.Status.ID, n.Status.State = id, state
	status := metav1.ConditionFalse
	if state == "ready" {
		status = metav1.ConditionTrue
	}
	n.Status.Conditions = []metav1.Condition{{Type: commonv1alpha1.ConditionProgrammed, Status: status, Reason: "x"}}
	return n
}

func testConfiguration(refs ...konnectv1alpha1.NetworkRef) dpGroupConfig {
	cfg := &konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfiguration{ObjectMeta: objectMeta("dcgw")}
	cfg.Spec.Version = "3.9"
	cfg.Spec.ControlPlaneRef = *konnectRef("cp")
	for _, ref := range refs {
		cfg.Spec.DataplaneGroups = append(cfg.Spec.DataplaneGroups, konnectv1alpha1.KonnectConfigurationDataPlaneGroup{
			Provider: "aws", Region: "eu-central-1", NetworkRef: ref,
			Autoscale: konnectv1alpha1.ConfigurationDataPlaneGroupAutoscale{
				Type: konnectv1alpha1.AutoscaleAutopilot, Autopilot: &konnectv1alpha1.ConfigurationDataPlaneGroupAutoscaleAutopilot{BaseRps: 100},
			},
		})
	}
	return cfg
}

func byName(name, namespace string) konnectv1alpha1.NetworkRef {
	return konnectv1alpha1.NetworkRef{Type: konnectv1alpha1.NetworkRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: name, Namespace: namespace}}
}

func TestDataPlaneGroupConfigurationResolvesItsReferences(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cloud     bool
		ref       konnectv1alpha1.NetworkRef
		condition string
		status    metav1.ConditionStatus
		reason    string
		ready     bool
	}{
		{name: "every reference usable", cloud: true, ref: byName("ready", ""),
			condition: commonv1alpha1.ConditionKonnectNetworkRefsValid, status: metav1.ConditionTrue, ready: true},
		{name: "a network by Konnect ID needs no object", cloud: true, ref: konnectv1alpha1.NetworkRef{Type: konnectv1alpha1.NetworkRefKonnectID, KonnectID: ptr("net-x")},
			condition: commonv1alpha1.ConditionKonnectNetworkRefsValid, status: metav1.ConditionTrue, ready: true},
		{name: "a control plane without cloud_gateway", cloud: false, ref: byName("ready", ""),
			condition: commonv1alpha1.ConditionControlPlaneRefValid, status: metav1.ConditionFalse, reason: commonv1alpha1.ReasonInvalid},
		{name: "a missing network", cloud: true, ref: byName("absent", ""),
			condition: commonv1alpha1.ConditionKonnectNetworkRefsValid, status: metav1.ConditionFalse, reason: commonv1alpha1.ReasonRefNotFound},
		{name: "a network still initializing", cloud: true, ref: byName("initializing", ""),
			condition: commonv1alpha1.ConditionKonnectNetworkRefsValid, status: metav1.ConditionFalse, reason: commonv1alpha1.ReasonNotProgrammed},
		{name: "a network in another namespace", cloud: true, ref: byName("ready", "other"),
			condition: commonv1alpha1.ConditionKonnectNetworkRefsValid, status: metav1.ConditionFalse, reason: commonv1alpha1.ReasonRefNotPermitted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refs := testRefs()
			networks := cacheOf[network]("konnectcloudgatewaynetworks")
			cloudControlPlane(t, refs, "cp", "cp-1", tc.cloud)
			put(t, networks, testNetwork(testNamespace, "ready", "net-1", "ready"), testNetwork(testNamespace, "initializing", "net-2", "initializing"),
				testNetwork("other", "ready", "net-3", "ready"))
			kind := DataPlaneGroupConfigurationKind(refs, networks)
			res, err := kind.Resolve(t.Context(), testConfiguration(tc.ref), controller.ForSync)
			if err != nil {
				t.Fatal(err)
			}
			if got := findCondition(res, tc.condition); got == nil || got.Status != tc.status || (tc.reason != "" && got.Reason != tc.reason) {
				t.Fatalf("%s = %+v, want %s/%s", tc.condition, got, tc.status, tc.reason)
			}
			if res.Ready != tc.ready {
				t.Fatalf("ready %v, want %v", res.Ready, tc.ready)
			}
			// Deleting needs only the control plane and its credentials.
			del, err := kind.Resolve(t.Context(), testConfiguration(tc.ref), controller.ForDelete)
			if err != nil || !del.Ready || del.Placement.ControlPlaneID != "cp-1" {
				t.Fatalf("for delete: %+v, %v", del, err)
			}
		})
	}
}

func findCondition(res controller.Resolution, conditionType string) *metav1.Condition {
	for i := range res.Conditions {
		if res.Conditions[i].Type == conditionType {
			c := res.Conditions[i]
			// The last one set wins, as the loop applies them in order.
			for _, later := range res.Conditions[i+1:] {
				if later.Type == conditionType {
					c = later
				}
			}
			return &c
		}
	}
	return nil
}

func TestConfigurationBodyComesFromTheSpec(t *testing.T) {
	networks := cacheOf[network]("konnectcloudgatewaynetworks")
	put(t, networks, testNetwork(testNamespace, "ready", "net-1", "ready"))
	cfg := testConfiguration(byName("ready", ""), konnectv1alpha1.NetworkRef{Type: konnectv1alpha1.NetworkRefKonnectID, KonnectID: ptr("net-x")})
	cfg.Spec.DataplaneGroups[1].Region = "eu-west-1"
	cfg.Spec.DataplaneGroups[1].Autoscale = konnectv1alpha1.ConfigurationDataPlaneGroupAutoscale{
		Type: konnectv1alpha1.AutoscaleStatic, Static: &konnectv1alpha1.ConfigurationDataPlaneGroupAutoscaleStatic{InstanceType: "small", RequestedInstances: 2},
	}
	cfg.Spec.DataplaneGroups[1].Environment = []konnectv1alpha1.ConfigurationDataPlaneGroupEnvironmentField{{Name: "KONG_LOG_LEVEL", Value: "debug"}}
	p := controller.Placement{ControlPlaneID: "cp-1", Auth: controller.Auth{ServerURL: "https://eu.api.konghq.com"}}
	body, err := configurationDesired(cfg, p, networks)
	if err != nil {
		t.Fatal(err)
	}
	if body.ControlPlaneID != "cp-1" || body.ControlPlaneGeo != components.ControlPlaneGeoEu || deref(body.Version) != "3.9" ||
		deref(body.APIAccess) != components.APIAccessPrivatePlusPublic || len(body.DataplaneGroups) != 2 {
		t.Fatalf("body %+v", body)
	}
	first, second := body.DataplaneGroups[0], body.DataplaneGroups[1]
	if deref(first.CloudGatewayNetworkID) != "net-1" || first.Autoscale.ConfigurationDataPlaneGroupAutoscaleAutopilot.GetBaseRps() != 100 {
		t.Fatalf("first group %+v", first)
	}
	if deref(second.CloudGatewayNetworkID) != "net-x" || second.Autoscale.ConfigurationDataPlaneGroupAutoscaleStatic.RequestedInstances != 2 ||
		len(second.Environment) != 1 || second.Environment[0].Name != "KONG_LOG_LEVEL" {
		t.Fatalf("second group %+v", second)
	}
	// A network without a Konnect ID yet cannot be written.
	put(t, networks, testNetwork(testNamespace, "ready", "", "ready"))
	if _, err := configurationDesired(cfg, p, networks); err == nil {
		t.Fatal("a body was made with a network that has no Konnect ID")
	}
	if geo := controlPlaneGeo("https://127.0.0.1:8443"); geo != components.ControlPlaneGeoUs {
		t.Fatalf("a server that is not Konnect's is geo %s, want us", geo)
	}
}

func TestProgressFollowsKonnectsStates(t *testing.T) {
	offlineAsked := &konnectv1alpha1.KonnectCloudGatewayNetwork{}
	offline := konnectv1alpha1.NetworkCreateStateOffline
	offlineAsked.Spec.State = &offline
	plain := &konnectv1alpha1.KonnectCloudGatewayNetwork{}
	reason := "no capacity"
	for _, tc := range []struct {
		name string
		got  controller.Progress
		want controller.Phase
	}{
		{"network initializing", networkProgress(plain, components.NetworkStateInitializing, nil), controller.Transient},
		{"network ready", networkProgress(plain, components.NetworkStateReady, nil), controller.Settled},
		{"network terminating", networkProgress(plain, components.NetworkStateTerminating, nil), controller.Transient},
		{"network offline with a reason", networkProgress(plain, components.NetworkStateOffline, &components.NetworkStateMetadata{Reason: &reason}), controller.Failed},
		{"network offline without being asked", networkProgress(plain, components.NetworkStateOffline, nil), controller.Failed},
		{"network offline as asked", networkProgress(offlineAsked, components.NetworkStateOffline, nil), controller.Settled},
		{"transit gateway ready", transitGatewayProgress(transitGatewayAnswer{state: components.TransitGatewayStateReady}), controller.Settled},
		{"transit gateway in error", transitGatewayProgress(transitGatewayAnswer{state: components.TransitGatewayStateError}), controller.Failed},
		{"transit gateway pending acceptance", transitGatewayProgress(transitGatewayAnswer{state: components.TransitGatewayStatePendingAcceptance}), controller.Transient},
		{"groups all ready", groupsProgress([]string{"ready", "ready"}), controller.Settled},
		{"no groups", groupsProgress(nil), controller.Settled},
		{"one group initializing", groupsProgress([]string{"ready", "initializing"}), controller.Transient},
		{"one group terminating", groupsProgress([]string{"terminating", "ready"}), controller.Transient},
		{"a state this SDK does not know", groupsProgress([]string{"ready", "resizing"}), controller.Transient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got.Phase != tc.want {
				t.Fatalf("phase %v (%+v), want %v", tc.got.Phase, tc.got, tc.want)
			}
		})
	}
	if p := networkProgress(plain, components.NetworkStateOffline, &components.NetworkStateMetadata{Reason: &reason}); p.Message != reason {
		t.Fatalf("a failed network says %q, want Konnect's reason", p.Message)
	}
}

// The three kinds' calls against the simulator, with provisioning and
// termination that take no time: create, read, find again, a write that
// changes nothing, and delete until Konnect no longer shows the entity.
func TestCloudGatewayCallsAgainstTheSimulator(t *testing.T) {
	sim := konnectsim.Start(t, konnectsim.Options{
		Tokens:        map[string]string{"kpat_test": "acme"},
		CloudGateways: konnectsim.CloudGatewayOptions{ProviderAccounts: []konnectsim.ProviderAccount{{ID: "acct-1", Provider: "aws"}}},
	})
	api, err := konnect.NewClientFactory(konnect.Options{RootCAs: sim.CAPool, RequestsPerSecond: 1e6, Burst: 1e6}).API(sim.URL, "kpat_test")
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	refs := testRefs()
	networks := cacheOf[network]("konnectcloudgatewaynetworks")
	p := controller.Placement{Auth: controller.Auth{ServerURL: sim.URL}}

	// Network.
	netKind := NetworkKind(refs)
	n := &konnectv1alpha1.KonnectCloudGatewayNetwork{ObjectMeta: objectMeta("net")}
	n.Spec = konnectv1alpha1.KonnectCloudGatewayNetworkSpec{Name: "net", CloudGatewayProviderAccountID: "acct-1", Region: "eu-central-1",
		AvailabilityZones: []string{"euc1-az1"}, CidrBlock: "10.0.0.0/16"}
	desired, _ := netKind.Desired(ctx, n, p)
	netID, _, err := netKind.Create(ctx, api, n, p, desired)
	if err != nil || netID == "" {
		t.Fatalf("create network: %q, %v", netID, err)
	}
	if progress, err := netKind.Async.Read(ctx, api, n, p, netID); err != nil || progress.Phase != controller.Settled || n.Status.State != "ready" {
		t.Fatalf("read network: %+v, %v, state %q", progress, err, n.Status.State)
	}
	if found, err := netKind.FindByUID(ctx, api, n, p); err != nil || found != netID {
		t.Fatalf("find network: %q, %v; want %s", found, err, netID)
	}
	n.Status.ID = netID
	put(t, networks, testNetwork(testNamespace, "net", netID, "ready"))

	// Configuration on it.
	cp, err := api.ControlPlanes.CreateControlPlane(ctx, components.CreateControlPlaneRequest{Name: "cp", CloudGateway: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	cfgKind := DataPlaneGroupConfigurationKind(refs, networks)
	cfg := testConfiguration(byName("net", ""))
	cp1 := p
	cp1.ControlPlaneID = cp.GetControlPlane().GetID()
	body, err := cfgKind.Desired(ctx, cfg, cp1)
	if err != nil {
		t.Fatal(err)
	}
	cfgID, _, err := cfgKind.Create(ctx, api, cfg, cp1, body)
	if err != nil || cfgID == "" || len(cfg.Status.DataPlaneGroups) != 1 {
		t.Fatalf("create configuration: %q, %v, groups %+v", cfgID, err, cfg.Status.DataPlaneGroups)
	}
	if again, _, err := cfgKind.Create(ctx, api, testConfiguration(byName("net", "")), cp1, body); err != nil || again != cfgID {
		t.Fatalf("creating the same configuration again: %q, %v; want Konnect's refusal to lead to %s", again, err, cfgID)
	}
	puts := sim.CallCount("PUT", "/v2/cloud-gateways/configurations")
	if _, err := cfgKind.Update(ctx, api, cfg, cp1, cfgID, body); err != nil {
		t.Fatal(err)
	}
	if sim.CallCount("PUT", "/v2/cloud-gateways/configurations") != puts {
		t.Fatal("a configuration equal to Konnect's was written again")
	}
	if progress, err := cfgKind.Async.Read(ctx, api, cfg, cp1, cfgID); err != nil || progress.Phase != controller.Settled {
		t.Fatalf("read configuration: %+v, %v", progress, err)
	}
	// The network is in use: Konnect would refuse its deletion.
	if progress, _ := netKind.Async.Read(ctx, api, n, p, netID); progress.Blocked == "" {
		t.Fatal("a network in use by a configuration is not reported blocked")
	}
	if err := cfgKind.Delete(ctx, api, cfg, cp1, cfgID); err != nil {
		t.Fatal(err)
	}
	cfg.DeletionTimestamp = &metav1.Time{}
	if _, err := cfgKind.Async.Read(ctx, api, cfg, cp1, cfgID); !konnect.IsNotFound(err) {
		t.Fatalf("a configuration without groups, being deleted, reads %v; want not found", err)
	}

	// Network deleted, then gone.
	if err := netKind.Delete(ctx, api, n, p, netID); err != nil {
		t.Fatal(err)
	}
	if _, err := netKind.Async.Read(ctx, api, n, p, netID); !konnect.IsNotFound(err) {
		t.Fatalf("a deleted network reads %v; want not found", err)
	}
}
