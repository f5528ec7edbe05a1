package entities

import (
	"context"
	"fmt"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

const entityNetwork = "cloud_gateway_network"

// NetworkKind describes KonnectCloudGatewayNetworks: Dedicated Cloud
// Gateway networks, which Konnect provisions in the background (Async).
// Konnect names no owner on a network, so one is found again by its name
// and settings; only its name can change there. A network is kept while
// data-plane group configurations or transit gateways use it (UsedBy), and
// until Konnect has finished terminating it.
func NetworkKind(refs *Refs) controller.Kind[network, components.CreateNetworkRequest] {
	gvk := gvk(konnectv1alpha1.GroupVersion, kindNetwork)
	return controller.Kind[network, components.CreateNetworkRequest]{
		GVK:        gvk,
		Conditions: []string{commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ConditionAPIAuthValid},
		Resolve: func(ctx context.Context, n network, purpose controller.Purpose) (controller.Resolution, error) {
			b := newResolver(ctx, purpose)
			b.res.Placement.Auth = refs.authOf(b, referrerOf(gvk, n), n.Name, &n.Spec.KonnectConfiguration)
			return b.result()
		},
		Desired: func(_ context.Context, n network, _ controller.Placement) (components.CreateNetworkRequest, error) {
			return networkDesired(n), nil
		},
		Create: createUnlisted(func(ctx context.Context, api konnect.API, n network, _ controller.Placement, desired components.CreateNetworkRequest) (string, error) {
			res, err := konnect.Call(ctx, cloudOp("create", entityNetwork), func(ctx context.Context) (*operations.CreateNetworkResponse, error) {
				return api.CloudGateways.CreateNetwork(ctx, desired)
			})
			if err != nil {
				return "", err
			}
			n.Status.State = string(res.GetNetwork().GetState())
			return res.GetNetwork().GetID(), nil
		}),
		Update:    updateUnlisted(updateNetwork),
		Delete:    deleteNetwork,
		FindByUID: findNetwork,
		// Found by its name and settings before every create.
		Recover: &controller.Recovery[network, components.CreateNetworkRequest]{},
		Dependencies: []controller.Dependency[network]{
			{Name: "authConfig", Source: refs.AuthConfigs, Keys: NetworkAuthKeys},
			GrantDependency(refs, func(n network) []string { return otherNamespaces(n.Namespace, networkAuthNamespace(n)) }),
		},
		Adopt: &controller.Adoption[network, components.CreateNetworkRequest]{
			Options: func(n network) *adoptOptions { return adoptMatchByDefault(n.Spec.Adopt) },
			Inspect: inspectNetwork,
		},
		UsedBy: []string{dependencyNetwork},
		Async:  &controller.Async[network]{Recorded: networkRecorded, Read: readNetwork},
	}
}

// networkDesired is the network n asks Konnect for.
func networkDesired(n network) components.CreateNetworkRequest {
	req := components.CreateNetworkRequest{
		Name: n.Spec.Name, CloudGatewayProviderAccountID: n.Spec.CloudGatewayProviderAccountID,
		Region: n.Spec.Region, AvailabilityZones: n.Spec.AvailabilityZones, CidrBlock: n.Spec.CidrBlock,
	}
	if n.Spec.State != nil {
		req.State = components.NetworkCreateState(*n.Spec.State).ToPointer()
	}
	return req
}

// networkFixed names the fields Konnect cannot change that differ between
// the desired network and the one in Konnect.
func networkFixed(desired components.CreateNetworkRequest, actual *components.Network) []string {
	var d diff
	d.check("cloud_gateway_provider_account_id", desired.CloudGatewayProviderAccountID == actual.GetCloudGatewayProviderAccountID())
	d.check("region", desired.Region == actual.GetRegion())
	d.check("availability_zones", sameSet(desired.AvailabilityZones, actual.GetAvailabilityZones()))
	d.check("cidr_block", desired.CidrBlock == actual.GetCidrBlock())
	return d
}

func getNetwork(ctx context.Context, api konnect.API, id string) (*components.Network, error) {
	res, err := konnect.Call(ctx, cloudOp("get", entityNetwork), func(ctx context.Context) (*operations.GetNetworkResponse, error) {
		return api.CloudGateways.GetNetwork(ctx, id)
	})
	if err != nil {
		return nil, err
	}
	if res.GetNetwork() == nil || res.GetNetwork().GetState() == components.NetworkStateTerminated {
		return nil, &konnect.NotFoundError{Operation: cloudOp("get", entityNetwork).String(), StatusCode: res.StatusCode, Message: "the network is terminated"}
	}
	return res.GetNetwork(), nil
}

// updateNetwork reads the network, refuses a spec that needs a new one,
// and renames it when the name differs (an adopted network).
func updateNetwork(ctx context.Context, api konnect.API, n network, _ controller.Placement, id string, desired components.CreateNetworkRequest) error {
	actual, err := getNetwork(ctx, api, id)
	if err != nil {
		return err
	}
	n.Status.State = string(actual.GetState())
	if fixed := networkFixed(desired, actual); len(fixed) > 0 {
		return immutableError(cloudOp("update", entityNetwork), kindNetwork, id, fixed)
	}
	if actual.GetName() == desired.Name {
		return nil
	}
	res, err := konnect.Call(ctx, cloudOp("update", entityNetwork), func(ctx context.Context) (*operations.UpdateNetworkResponse, error) {
		return api.CloudGateways.UpdateNetwork(ctx, id, components.PatchNetworkRequest{Name: &desired.Name})
	})
	if err == nil {
		n.Status.State = string(res.GetNetwork().GetState())
	}
	return err
}

func deleteNetwork(ctx context.Context, api konnect.API, _ network, _ controller.Placement, id string) error {
	_, err := konnect.Call(ctx, cloudOp("delete", entityNetwork), func(ctx context.Context) (*operations.DeleteNetworkResponse, error) {
		return api.CloudGateways.DeleteNetwork(ctx, id)
	})
	return err
}

// findNetwork finds the network of n's name with n's settings: Konnect
// keeps no owner on networks, and names are unique in an organization.
func findNetwork(ctx context.Context, api konnect.API, n network, _ controller.Placement) (string, error) {
	desired := networkDesired(n)
	size := cloudPageSize
	res, err := konnect.Call(ctx, cloudOp("list", entityNetwork), func(ctx context.Context) (*operations.ListNetworksResponse, error) {
		return api.CloudGateways.ListNetworks(ctx, operations.ListNetworksRequest{
			PageSize: &size,
			Filter:   &components.NetworksFilterParameters{Name: &components.CloudGatewaysStringFieldFilterOverride{Eq: &desired.Name}},
		})
	})
	if err != nil {
		return "", err
	}
	for _, found := range res.GetListNetworksResponse().GetData() {
		if found.GetName() == desired.Name && len(networkFixed(desired, &found)) == 0 &&
			found.GetState() != components.NetworkStateTerminating && found.GetState() != components.NetworkStateTerminated {
			return found.GetID(), nil
		}
	}
	return "", nil
}

// inspectNetwork compares a network to adopt with the spec: only its name
// could be overwritten.
func inspectNetwork(ctx context.Context, api konnect.API, n network, _ controller.Placement, id string, desired components.CreateNetworkRequest) (controller.Inspection, error) {
	actual, err := getNetwork(ctx, api, id)
	if err != nil {
		return controller.Inspection{}, err
	}
	n.Status.State = string(actual.GetState())
	fixed := networkFixed(desired, actual)
	var named diff
	named.check("name", desired.Name == actual.GetName())
	return controller.Inspection{Differences: append(named, fixed...), Incompatibilities: fixed}, nil
}

// readNetwork reads the network, records its state and reports its
// progress.
func readNetwork(ctx context.Context, api konnect.API, n network, _ controller.Placement, id string) (controller.Progress, error) {
	actual, err := getNetwork(ctx, api, id)
	if err != nil {
		return controller.Progress{}, err
	}
	n.Status.State = string(actual.GetState())
	progress := networkProgress(n, actual.GetState(), actual.GetStateMetadata())
	switch {
	case actual.GetConfigurationReferenceCount() > 0:
		progress.Blocked = fmt.Sprintf("%d data-plane group configuration(s) in Konnect still use it", actual.GetConfigurationReferenceCount())
	case actual.GetTransitGatewayCount() > 0:
		progress.Blocked = fmt.Sprintf("%d transit gateway(s) are still attached to it", actual.GetTransitGatewayCount())
	}
	return progress, nil
}

// networkProgress is where a network in state is: ready is settled, and
// so is offline when the spec asked for it; offline otherwise means it
// could not be provisioned.
func networkProgress(n network, state components.NetworkState, meta *components.NetworkStateMetadata) controller.Progress {
	progress := controller.Progress{Phase: controller.Transient, State: string(state)}
	switch state {
	case components.NetworkStateReady:
		progress.Phase = controller.Settled
	case components.NetworkStateOffline:
		reason := deref(meta.GetReason())
		if reason == "" {
			reason = deref(meta.GetReportedStatus())
		}
		if reason == "" && n.Spec.State != nil && *n.Spec.State == konnectv1alpha1.NetworkCreateStateOffline {
			progress.Phase = controller.Settled
			break
		}
		progress.Phase = controller.Failed
		progress.Message = orDefault(reason, "the network is not provisioned")
	}
	return progress
}

// networkRecorded is the progress n's status records. An offline network
// that was reported failed stays failed.
func networkRecorded(n network) controller.Progress {
	if n.Status.State == string(components.NetworkStateOffline) && provisioningFailed(n) {
		return controller.Progress{Phase: controller.Failed, State: n.Status.State}
	}
	return networkProgress(n, components.NetworkState(n.Status.State), nil)
}

// provisioningFailed reports whether obj's status says that Konnect could
// not provision its entity.
func provisioningFailed(obj interface{ GetConditions() []metav1.Condition }) bool {
	for _, c := range obj.GetConditions() {
		if c.Type == commonv1alpha1.ConditionProgrammed {
			return c.Reason == commonv1alpha1.ReasonProvisioningFailed
		}
	}
	return false
}
