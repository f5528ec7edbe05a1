package entities

import (
	"context"

	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// What the Dedicated Cloud Gateway kinds share: their calls' names, the
// references to networks, the adoption mode they default to, and the
// control-plane geo of a configuration.

// Kinds of the Dedicated Cloud Gateway objects.
const (
	kindNetwork        = "KonnectCloudGatewayNetwork"
	kindTransitGateway = "KonnectCloudGatewayTransitGateway"
	kindDPGroupConfig  = "KonnectCloudGatewayDataPlaneGroupConfiguration"
)

// dependencyNetwork names the dependency of objects that use a network: a
// network being deleted waits for them (NetworkKind's UsedBy).
const dependencyNetwork = "network"

type network = *konnectv1alpha1.KonnectCloudGatewayNetwork

// cloudOp names a call of the cloud-gateway API for errors and metrics.
func cloudOp(verb, entity string) konnect.Operation {
	return konnect.Operation{Verb: verb, Entity: entity}
}

// cloudPageSize is the page size of cloud-gateway lists.
const cloudPageSize int64 = 100

// adoptMatchByDefault returns spec.adopt with an absent mode read as match:
// Kong Operator adopts cloud-gateway entities only by matching them.
func adoptMatchByDefault(opts *commonv1alpha1.AdoptOptions) *commonv1alpha1.AdoptOptions {
	if opts == nil || opts.Mode != "" {
		return opts
	}
	withMode := *opts
	withMode.Mode = commonv1alpha1.AdoptModeMatch
	return &withMode
}

// controlPlaneGeos are the regions of Konnect's control planes.
var controlPlaneGeos = []string{"us", "eu", "au", "me", "in", "sg"}

// controlPlaneGeo is the geo of the control planes behind a Konnect API
// URL: the region its host name starts with (eu.api.konghq.com is eu). A
// server that is not Konnect's own (a simulator, a proxy) says nothing of
// its region and is taken for Konnect's default, us.
func controlPlaneGeo(serverURL string) components.ControlPlaneGeo {
	u, err := url.Parse(serverURL)
	if err == nil {
		region, _, _ := strings.Cut(u.Hostname(), ".")
		if slices.Contains(controlPlaneGeos, region) {
			return components.ControlPlaneGeo(region)
		}
	}
	return components.ControlPlaneGeoUs
}

// networkRef is the outcome of resolving a reference to a
// KonnectCloudGatewayNetwork.
type networkRef struct {
	// network is set when the reference can be used: for sync, the
	// network exists, is not being deleted and is ready (Programmed); for
	// delete, it holds a Konnect ID.
	network network
	// reason and problem say why it cannot be used, for a condition, and
	// refState what the referrer needs before it can go on.
	reason, problem string
	refState        controller.RefState
	// gone is true, for delete, when the network, and what was attached
	// to it, is gone from Konnect.
	gone bool
}

// networkOf resolves a namespacedRef to a KonnectCloudGatewayNetwork held
// by an object of namespace own. Cross-namespace references are refused,
// as Kong Operator refuses them.
func networkOf(networks *controller.Informer[network], own string, ref *commonv1alpha1.NamespacedRef, forDelete bool) networkRef {
	namespace := namespaceOr(ref.Namespace, own)
	what := describe(kindNetwork, namespace, ref.Name)
	if namespace != own {
		return networkRef{reason: commonv1alpha1.ReasonRefNotPermitted, refState: controller.RefRefused,
			problem: fmt.Sprintf("%s is in another namespace: network references must stay in the namespace %s; create the network there", what, own)}
	}
	n, err := networks.Get(namespace, ref.Name)
	switch {
	case forDelete && (err != nil || n.Status.ID == ""):
		return networkRef{gone: true}
	case forDelete:
		return networkRef{network: n}
	case err != nil:
		return networkRef{reason: commonv1alpha1.ReasonRefNotFound, problem: what + " not found"}
	case isBeingDeleted(n):
		return networkRef{reason: commonv1alpha1.ReasonInvalid, problem: what + " is being deleted"}
	case n.Status.ID == "":
		return networkRef{reason: commonv1alpha1.ReasonNotProgrammed, problem: what + " does not exist in Konnect yet", refState: controller.RefStateOf(n.Status.Conditions)}
	case !controller.IsConditionTrue(n.Status.Conditions, commonv1alpha1.ConditionProgrammed):
		return networkRef{reason: commonv1alpha1.ReasonNotProgrammed, refState: controller.RefStateOf(n.Status.Conditions),
			problem: fmt.Sprintf("%s is not ready in Konnect (state %s); waiting for it", what, orUnknown(n.Status.State))}
	}
	return networkRef{network: n}
}

func orUnknown(state string) string {
	if state == "" {
		return "unknown"
	}
	return state
}

// networkKeys returns the keys of the KonnectCloudGatewayNetworks refs
// name, for dependency indexes.
func networkKeys(own string, refs ...konnectv1alpha1.NetworkRef) []string {
	var keys []string
	for _, ref := range refs {
		if ref.Type == konnectv1alpha1.NetworkRefNamespacedRef && ref.NamespacedRef != nil {
			k := key(namespaceOr(ref.NamespacedRef.Namespace, own), ref.NamespacedRef.Name)
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// NetworkAuthKeys returns the key of the KonnectAPIAuthConfiguration a
// network uses.
func NetworkAuthKeys(n network) []string {
	ref := n.Spec.KonnectConfiguration.AuthRef
	if ref.Name == "" {
		return nil
	}
	return []string{key(networkAuthNamespace(n), ref.Name)}
}

func networkAuthNamespace(n network) string {
	if ns := n.Spec.KonnectConfiguration.AuthRef.Namespace; ns != nil && *ns != "" {
		return *ns
	}
	return n.Namespace
}

// immutableError refuses a write that would have to change fields Konnect
// keeps fixed: only a new entity can have other values.
func immutableError(op konnect.Operation, kind, id string, fields []string) error {
	return &konnect.InvalidInputError{Operation: op.String(), Message: fmt.Sprintf(
		"%s %s in Konnect differs from the spec in %s, which Konnect cannot change: create a new %s instead",
		strings.TrimPrefix(kind, "Konnect"), id, strings.Join(fields, ", "), kind)}
}

// createUnlisted adapts the create of a kind that is not listed for drift
// (Konnect provisions it in the background, and the loop reads it again
// until it settles): it hands back no snapshot.
func createUnlisted[T, D any](create func(context.Context, konnect.API, T, controller.Placement, D) (string, error)) func(context.Context, konnect.API, T, controller.Placement, D) (string, controller.Snapshot, error) {
	return func(ctx context.Context, api konnect.API, obj T, p controller.Placement, desired D) (string, controller.Snapshot, error) {
		id, err := create(ctx, api, obj, p, desired)
		return id, controller.Snapshot{}, err
	}
}

// updateUnlisted adapts the update of a kind that is not listed for drift,
// as createUnlisted does.
func updateUnlisted[T, D any](update func(context.Context, konnect.API, T, controller.Placement, string, D) error) func(context.Context, konnect.API, T, controller.Placement, string, D) (controller.Snapshot, error) {
	return func(ctx context.Context, api konnect.API, obj T, p controller.Placement, id string, desired D) (controller.Snapshot, error) {
		return controller.Snapshot{}, update(ctx, api, obj, p, id, desired)
	}
}
