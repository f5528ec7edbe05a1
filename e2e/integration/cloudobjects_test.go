package integration

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// The Dedicated Cloud Gateway objects of the integration tests, and the
// simulator settings they run against.

// testProviderAccount is the AWS provider account linked to the test
// organisation.
const testProviderAccount = "5e8f1c3a-7d41-4e0b-9c2a-0000000c10d1"

type (
	cloudNetwork   = konnectv1alpha1.KonnectCloudGatewayNetwork
	transitGateway = konnectv1alpha1.KonnectCloudGatewayTransitGateway
	dpConfig       = konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfiguration
)

// cloudOptions are a simulator where provisioning takes provisioning and
// termination takes terminating: seconds, where Konnect takes minutes.
func cloudOptions(provisioning, terminating time.Duration) envOptions {
	return envOptions{cloud: konnectsim.CloudGatewayOptions{
		ProvisioningTime: provisioning, TerminationTime: terminating,
		ProviderAccounts: []konnectsim.ProviderAccount{{ID: testProviderAccount, Provider: "aws", CloudAccountID: "123456789012"}},
	}}
}

// dialOnly dials the simulator at simURL whatever address is asked for.
func dialOnly(simURL string) func(ctx context.Context, network, address string) (net.Conn, error) {
	host := simURL
	if u, err := url.Parse(simURL); err == nil {
		host = u.Host
	}
	return func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, host)
	}
}

// networkObject is a network named name (in Konnect: the namespace and
// name) of the auth configuration authName.
func (e *env) networkObject(name, authName string) *cloudNetwork {
	return &cloudNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectCloudGatewayNetworkSpec{
			Name: e.ns + "-" + name, CloudGatewayProviderAccountID: testProviderAccount,
			Region: "eu-central-1", AvailabilityZones: []string{"euc1-az1", "euc1-az2"}, CidrBlock: "10.0.0.0/16",
			KonnectConfiguration: konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: authName}},
		},
	}
}

func (e *env) createNetwork(name, authName string, mutate ...func(*cloudNetwork)) {
	e.t.Helper()
	n := e.networkObject(name, authName)
	for _, m := range mutate {
		m(n)
	}
	if _, err := e.cs.KonnectV1alpha1().KonnectCloudGatewayNetworks(e.ns).Create(e.ctx, n, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) network(name string) (*cloudNetwork, error) {
	return e.cs.KonnectV1alpha1().KonnectCloudGatewayNetworks(e.ns).Get(e.ctx, name, metav1.GetOptions{})
}

// transitGatewayObject is an AWS transit gateway named name on the
// network networkName.
func transitGatewayObject(name, networkName string) *transitGateway {
	return &transitGateway{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectCloudGatewayTransitGatewaySpec{
			NetworkRef: konnectv1alpha1.NetworkRef{Type: konnectv1alpha1.NetworkRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: networkName}},
			KonnectTransitGatewayAPISpec: konnectv1alpha1.KonnectTransitGatewayAPISpec{
				Type: konnectv1alpha1.TransitGatewayTypeAWS,
				AWSTransitGateway: &konnectv1alpha1.AWSTransitGateway{
					Name: name, CIDRBlocks: []string{"192.168.0.0/16"},
					AttachmentConfig: konnectv1alpha1.AwsTransitGatewayAttachmentConfig{
						TransitGatewayID: "tgw-0123456789abcdef0", RAMShareArn: "arn:aws:ram:eu-central-1:123456789012:resource-share/test",
					},
				},
			},
		},
	}
}

func (e *env) createTransitGateway(name, networkName string, mutate ...func(*transitGateway)) {
	e.t.Helper()
	tg := transitGatewayObject(name, networkName)
	for _, m := range mutate {
		m(tg)
	}
	if _, err := e.cs.KonnectV1alpha1().KonnectCloudGatewayTransitGateways(e.ns).Create(e.ctx, tg, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) transitGateway(name string) (*transitGateway, error) {
	return e.cs.KonnectV1alpha1().KonnectCloudGatewayTransitGateways(e.ns).Get(e.ctx, name, metav1.GetOptions{})
}

// namespacedNetwork is a networkRef to the network name.
func namespacedNetwork(name string) konnectv1alpha1.NetworkRef {
	return konnectv1alpha1.NetworkRef{Type: konnectv1alpha1.NetworkRefNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: name}}
}

// createConfiguration creates the configuration configurationObject
// describes.
func (e *env) createConfiguration(name, cpName string, networkRef konnectv1alpha1.NetworkRef, mutate ...func(*dpConfig)) {
	e.t.Helper()
	cfg := configurationObject(name, cpName, networkRef)
	for _, m := range mutate {
		m(cfg)
	}
	if _, err := e.cs.KonnectV1alpha1().KonnectCloudGatewayDataPlaneGroupConfigurations(e.ns).Create(e.ctx, cfg, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// configurationObject is a configuration named name of one static group of
// two instances on networkRef, for the control plane cpName.
func configurationObject(name, cpName string, networkRef konnectv1alpha1.NetworkRef) *dpConfig {
	return &dpConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectCloudGatewayDataPlaneGroupConfigurationSpec{
			Version: "3.9",
			DataplaneGroups: []konnectv1alpha1.KonnectConfigurationDataPlaneGroup{{
				Provider: "aws", Region: "eu-central-1", NetworkRef: networkRef,
				Autoscale: konnectv1alpha1.ConfigurationDataPlaneGroupAutoscale{
					Type:   konnectv1alpha1.AutoscaleStatic,
					Static: &konnectv1alpha1.ConfigurationDataPlaneGroupAutoscaleStatic{InstanceType: "small", RequestedInstances: 2},
				},
				Environment: []konnectv1alpha1.ConfigurationDataPlaneGroupEnvironmentField{{Name: "KONG_LOG_LEVEL", Value: "debug"}},
			}},
			ControlPlaneRef: *cpRef(cpName),
		},
	}
}

func (e *env) configuration(name string) (*dpConfig, error) {
	return e.cs.KonnectV1alpha1().KonnectCloudGatewayDataPlaneGroupConfigurations(e.ns).Get(e.ctx, name, metav1.GetOptions{})
}

func (e *env) updateConfiguration(name string, change func(*dpConfig)) {
	e.t.Helper()
	client := e.cs.KonnectV1alpha1().KonnectCloudGatewayDataPlaneGroupConfigurations(e.ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cfg, err := client.Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(cfg)
		_, err = client.Update(e.ctx, cfg, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// createCloudControlPlane creates a control plane with cloud_gateway set
// to cloud.
func (e *env) createCloudControlPlane(name, authName string, cloud bool) {
	e.t.Helper()
	cp := e.controlPlaneObject(name, authName)
	cp.Spec.CreateControlPlaneRequest.CloudGateway = &cloud
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Create(e.ctx, cp, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// waitObject polls get until check accepts the object, and returns it.
func waitObject[T any](e *env, what string, get func() (T, error), check func(T) error) T {
	e.t.Helper()
	var obj T
	e.eventually(what, func() error {
		var err error
		if obj, err = get(); err != nil {
			return err
		}
		return check(obj)
	})
	return obj
}

// gone waits until get answers an error (NotFound) for the object.
func gone[T any](e *env, what string, get func() (T, error)) {
	e.t.Helper()
	e.eventually(what+" gone", func() error {
		if _, err := get(); err == nil {
			return fmt.Errorf("still there")
		}
		return nil
	})
}

// stateIs checks a status state and a Programmed condition reason.
func stateIs(obj conditioned, state, want, reason string) error {
	if state != want {
		return fmt.Errorf("%s: state %q, want %q", obj.GetName(), state, want)
	}
	status := metav1.ConditionFalse
	if reason == commonv1alpha1.ReasonProgrammed {
		status = metav1.ConditionTrue
	}
	return conditionIs(obj, commonv1alpha1.ConditionProgrammed, status, reason)
}

// simNetwork is the simulator's network named name, nil when there is none.
func (e *env) simNetwork(name string) map[string]any {
	for _, n := range e.sim.Networks(e.orgID) {
		if n["name"] == name {
			return n
		}
	}
	return nil
}
