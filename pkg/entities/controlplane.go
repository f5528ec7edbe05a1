package entities

import (
	"context"
	"strconv"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type controlPlane = *konnectv1alpha2.KonnectGatewayControlPlane

// ControlPlaneDesired is what a KonnectGatewayControlPlane asks of Konnect.
// Everything that decides a Konnect call is in it, so that its fingerprint
// changes when a member gets its ID or the mirrored ID changes.
type ControlPlaneDesired struct {
	// Create is the control plane to create (Origin); Update the same as a
	// patch.
	Create components.CreateControlPlaneRequest
	Update components.UpdateControlPlaneRequest
	// MirrorID is the ID of the control plane to read (Mirror).
	MirrorID string
	// Group is true for a CLUSTER_TYPE_CONTROL_PLANE_GROUP.
	Group bool
	// Members are the sorted Konnect IDs of the group's resolved members.
	Members []string
	// Unresolved names the members that cannot be used yet, with why.
	Unresolved []string
}

// ControlPlaneKind describes KonnectGatewayControlPlanes: an Origin control
// plane is created and owned in Konnect (a group also gets its members, see
// controlplane_group.go); a Mirror only reads an existing one
// (controlplane_mirror.go). Konnect deletes a control plane's entities with
// it.
func ControlPlaneKind(refs *Refs) controller.Kind[controlPlane, ControlPlaneDesired] {
	gvk := gvk(konnectv1alpha2.GroupVersion, kindControlPlane)
	return controller.Kind[controlPlane, ControlPlaneDesired]{
		GVK:        gvk,
		Conditions: []string{commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ConditionAPIAuthValid},
		Resolve: func(ctx context.Context, cp controlPlane, purpose controller.Purpose) (controller.Resolution, error) {
			b := newResolver(ctx, purpose)
			b.res.Placement.Auth = refs.auth(b, cp)
			if id := mirrorID(cp); cp.IsMirror() && cp.Status.ID != "" && cp.Status.ID != id {
				// The mirror now names another control plane: read that one.
				cp.Status.ID = ""
			}
			return b.result()
		},
		Desired: func(_ context.Context, cp controlPlane, p controller.Placement) (ControlPlaneDesired, error) {
			return controlPlaneDesired(refs, cp, gvk, p.Cluster), nil
		},
		// The snapshots of origins' writes are compared with the listing
		// (controlplane_list.go); a mirror is only read.
		Create: func(ctx context.Context, api konnect.API, cp controlPlane, _ controller.Placement, desired ControlPlaneDesired) (string, controller.Snapshot, error) {
			if cp.IsMirror() {
				id, err := readMirror(ctx, api, cp, desired.MirrorID)
				return id, controller.Snapshot{}, err
			}
			res, err := konnect.Call(ctx, controlPlaneOp("create"), func(ctx context.Context) (*operations.CreateControlPlaneResponse, error) {
				return api.ControlPlanes.CreateControlPlane(ctx, desired.Create)
			})
			if err != nil {
				return "", controller.Snapshot{}, err
			}
			recordEndpoints(cp, res.GetControlPlane())
			return res.GetControlPlane().GetID(), controlPlaneSnapshot(res.GetControlPlane(), desired), nil
		},
		// An origin is patched; one that is gone answers NotFound and is
		// created again. A mirror is read again.
		Update: func(ctx context.Context, api konnect.API, cp controlPlane, _ controller.Placement, id string, desired ControlPlaneDesired) (controller.Snapshot, error) {
			if cp.IsMirror() {
				_, err := readMirror(ctx, api, cp, id)
				return controller.Snapshot{}, err
			}
			res, err := konnect.Call(ctx, controlPlaneOp("update"), func(ctx context.Context) (*operations.UpdateControlPlaneResponse, error) {
				return api.ControlPlanes.UpdateControlPlane(ctx, id, desired.Update)
			})
			if err != nil {
				return controller.Snapshot{}, err
			}
			recordEndpoints(cp, res.GetControlPlane())
			return controlPlaneSnapshot(res.GetControlPlane(), desired), nil
		},
		Delete: func(ctx context.Context, api konnect.API, _ controlPlane, _ controller.Placement, id string) error {
			_, err := konnect.Call(ctx, controlPlaneOp("delete"), func(ctx context.Context) (*operations.DeleteControlPlaneResponse, error) {
				return api.ControlPlanes.DeleteControlPlane(ctx, id)
			})
			return err
		},
		// Control planes carry the UID as a label. A mirror is found by its
		// ID, never by a label.
		FindByUID: func(ctx context.Context, api konnect.API, cp controlPlane, _ controller.Placement) (string, error) {
			if cp.IsMirror() {
				return "", nil
			}
			labels := controller.TagKeyUID + ":" + string(cp.UID)
			found, err := listControlPlanes(ctx, api, operations.ListControlPlanesRequest{FilterLabels: &labels})
			if err != nil || len(found) == 0 {
				return "", err
			}
			return found[0].ID, nil
		},
		Owner: func(ctx context.Context, api konnect.API, _ controlPlane, _ controller.Placement, id string) (string, error) {
			res, err := konnect.Call(ctx, controlPlaneOp("get"), func(ctx context.Context) (*operations.GetControlPlaneResponse, error) {
				return api.ControlPlanes.GetControlPlane(ctx, id)
			})
			if err != nil {
				return "", err
			}
			return res.GetControlPlane().GetLabels()[controller.TagKeyCluster], nil
		},
		Dependencies: []controller.Dependency[controlPlane]{
			{Name: "authConfig", Source: refs.AuthConfigs, Keys: AuthConfigKeys},
			// A group sets its members again when one of them changes.
			{Name: "members", Source: refs.ControlPlanes, Keys: memberKeys},
			GrantDependency(refs, func(cp controlPlane) []string {
				return otherNamespaces(cp.Namespace, authConfigNamespace(cp))
			}),
		},
		AfterSync: func(ctx context.Context, api konnect.API, cp controlPlane, _ controller.Placement, id string, _ bool) error {
			if !isGroupRequest(cp) {
				return nil
			}
			return syncMembers(ctx, api, refs, cp, id)
		},
		Borrows:         func(cp controlPlane) bool { return cp.IsMirror() },
		UsedBy:          []string{dependencyControlPlane},
		ExtraFinalizers: []string{commonv1alpha1.FinalizerGatewayControlPlane},
		List:            listKindControlPlanes,
		Lists:           func(cp controlPlane) bool { return !cp.IsMirror() },
		Recover:         controlPlaneRecovery,
	}
}

// controlPlaneDesired is what cp asks of Konnect, its identity labels
// included: k8s-cluster names cluster, the operator's, when set.
func controlPlaneDesired(refs *Refs, cp controlPlane, gvk schemaGVK, cluster string) ControlPlaneDesired {
	if cp.IsMirror() {
		return ControlPlaneDesired{MirrorID: mirrorID(cp)}
	}
	req := cp.Spec.CreateControlPlaneRequest
	if req == nil {
		labels := controller.Labels(cp, gvk, cluster, nil)
		return ControlPlaneDesired{Create: components.CreateControlPlaneRequest{Labels: labels}, Update: components.UpdateControlPlaneRequest{Labels: labels}}
	}
	labels := controller.Labels(cp, gvk, cluster, req.Labels)
	var proxyURLs []components.ProxyURL
	for _, u := range req.ProxyURLs {
		proxyURLs = append(proxyURLs, components.ProxyURL{Host: u.Host, Port: u.Port, Protocol: u.Protocol})
	}
	desired := ControlPlaneDesired{
		Create: components.CreateControlPlaneRequest{
			Name: req.Name, Description: req.Description, CloudGateway: req.CloudGateway, ProxyUrls: proxyURLs, Labels: labels,
		},
		// The description is always sent, so that removing it clears it.
		Update: components.UpdateControlPlaneRequest{
			Name: &req.Name, Description: ptrTo(deref(req.Description)), ProxyUrls: proxyURLs, Labels: labels,
		},
	}
	if req.ClusterType != nil {
		desired.Create.ClusterType = components.CreateControlPlaneRequestClusterType(*req.ClusterType).ToPointer()
	}
	if req.AuthType != nil {
		desired.Create.AuthType = components.AuthType(*req.AuthType).ToPointer()
		desired.Update.AuthType = components.UpdateControlPlaneRequestAuthType(*req.AuthType).ToPointer()
	}
	if isGroupRequest(cp) {
		desired.Group = true
		desired.Members, desired.Unresolved = groupMembers(refs, cp)
	}
	return desired
}

func controlPlaneOp(verb string) konnect.Operation {
	return konnect.Operation{Verb: verb, Entity: "control_plane"}
}

// controlPlanePageSize is the page size of control-plane lists.
const controlPlanePageSize = 100

// maxListedControlPlanes bounds a listing of an organisation's control
// planes: Konnect allows 100 by default (more on request), and a server
// that lists a hundred times that many is not Konnect. The control planes
// are decoded as they are listed, so each one the listing holds costs
// memory.
const maxListedControlPlanes = 10_000

// listControlPlanes returns every control plane that req selects, following
// every page, within the client's listing limits.
func listControlPlanes(ctx context.Context, api konnect.API, req operations.ListControlPlanesRequest) ([]components.ControlPlane, error) {
	var all []components.ControlPlane
	size := int64(controlPlanePageSize)
	req.PageSize = &size
	ctx, listing := konnect.StartListing(ctx, controlPlaneOp("list"))
	defer listing.Done()
	listing.AtMost(maxListedControlPlanes)
	for number := int64(1); ; number++ {
		req.PageNumber = &number
		res, err := konnect.Call(ctx, controlPlaneOp("list"), func(ctx context.Context) (*operations.ListControlPlanesResponse, error) {
			return api.ControlPlanes.ListControlPlanes(ctx, req)
		})
		if err != nil {
			return nil, err
		}
		page := res.GetListControlPlanesResponse()
		all = append(all, page.GetData()...)
		next := strconv.FormatInt(number+1, 10)
		if len(page.GetData()) == 0 || float64(number*size) >= page.GetMeta().Page.Total {
			next = ""
		}
		if err := listing.Page(len(page.GetData()), next); err != nil {
			return nil, err
		}
		if next == "" {
			return all, nil
		}
	}
}

// AuthConfigKeys returns the key of the KonnectAPIAuthConfiguration a
// control plane uses.
func AuthConfigKeys(cp controlPlane) []string {
	if cp.Spec.Konnect == nil || cp.Spec.Konnect.AuthRef.Name == "" {
		return nil
	}
	return []string{key(authConfigNamespace(cp), cp.Spec.Konnect.AuthRef.Name)}
}

// authConfigNamespace returns the namespace of the control plane's
// KonnectAPIAuthConfiguration.
func authConfigNamespace(cp controlPlane) string {
	if cp.Spec.Konnect != nil {
		if ns := cp.Spec.Konnect.AuthRef.Namespace; ns != nil && *ns != "" {
			return *ns
		}
	}
	return cp.Namespace
}

// recordEndpoints records in cp's status what Konnect answered about its
// cluster.
func recordEndpoints(cp controlPlane, answered *components.ControlPlane) {
	if answered == nil {
		return
	}
	config := answered.Config
	if config.ClusterType != "" {
		cp.Status.ClusterType = string(config.ClusterType)
	}
	if config.ControlPlaneEndpoint != "" && config.TelemetryEndpoint != "" {
		cp.Status.KonnectEndpoints = &konnectv1alpha2.KonnectEndpoints{
			ControlPlane: config.ControlPlaneEndpoint,
			Telemetry:    config.TelemetryEndpoint,
		}
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptrTo[T any](v T) *T { return &v }
