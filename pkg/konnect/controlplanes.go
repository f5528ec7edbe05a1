package konnect

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// controlPlanePageSize is the page size of control-plane lists.
const controlPlanePageSize = 100

// ControlPlane is a Konnect gateway control plane (or control-plane group).
type ControlPlane struct {
	ID          string
	Name        string
	Description string
	// ClusterType (e.g. "CLUSTER_TYPE_CONTROL_PLANE") is set on create and
	// cannot change.
	ClusterType  string
	AuthType     string // "pinned_client_certs" or "pki_client_certs"
	CloudGateway *bool
	ProxyURLs    []ProxyURL
	Labels       map[string]string
	// Config is what Konnect reports back; it is ignored when sending.
	Config ControlPlaneConfig
}

// ControlPlaneConfig is what Konnect says about a control plane's cluster.
type ControlPlaneConfig struct {
	ControlPlaneEndpoint string
	TelemetryEndpoint    string
	ClusterType          string
}

// ProxyURL is an address where the control plane's data planes serve traffic.
type ProxyURL struct {
	Host     string
	Port     int
	Protocol string
}

// ControlPlaneFilter selects control planes in ListControlPlanes; empty
// fields do not filter.
type ControlPlaneFilter struct {
	ID   string
	Name string
	// Labels must all be present with these values.
	Labels map[string]string
}

func controlPlaneOp(verb string) operation {
	return operation{verb: verb, entity: "control_plane"}
}

// CreateControlPlane creates a control plane. A duplicate name is a
// *ConflictError.
func (c *Client) CreateControlPlane(ctx context.Context, cp ControlPlane) (ControlPlane, error) {
	body := konnectapi.CreateControlPlaneRequest{
		Name:         cp.Name,
		Description:  optional(cp.Description),
		CloudGateway: cp.CloudGateway,
		ProxyUrls:    proxyURLsToWire(cp.ProxyURLs),
		Labels:       labelsToWire(cp.Labels),
	}
	if cp.ClusterType != "" {
		clusterType := konnectapi.CreateControlPlaneRequestClusterType(cp.ClusterType)
		body.ClusterType = &clusterType
	}
	if cp.AuthType != "" {
		authType := konnectapi.CreateControlPlaneRequestAuthType(cp.AuthType)
		body.AuthType = &authType
	}
	var answer konnectapi.ControlPlane
	err := c.exchange(ctx, controlPlaneOp("create"), &answer, func(ctx context.Context) (*http.Response, error) {
		return c.api.CreateControlPlane(ctx, body)
	})
	if err != nil {
		return ControlPlane{}, err
	}
	return controlPlaneFromWire(answer), nil
}

// UpdateControlPlane changes the control plane with ID id (PATCH): its name,
// description, auth type, proxy URLs and labels. The description is always
// sent, so "" clears it; a nil ProxyURLs or Labels leaves those unchanged.
func (c *Client) UpdateControlPlane(ctx context.Context, id string, cp ControlPlane) (ControlPlane, error) {
	op := controlPlaneOp("update")
	cpID, err := parseControlPlaneID(op, id)
	if err != nil {
		return ControlPlane{}, err
	}
	body := konnectapi.UpdateControlPlaneRequest{
		Name:        optional(cp.Name),
		Description: &cp.Description,
		ProxyUrls:   proxyURLsToWire(cp.ProxyURLs),
		Labels:      labelsToWire(cp.Labels),
	}
	if cp.AuthType != "" {
		authType := konnectapi.UpdateControlPlaneRequestAuthType(cp.AuthType)
		body.AuthType = &authType
	}
	var answer konnectapi.ControlPlane
	err = c.exchange(ctx, op, &answer, func(ctx context.Context) (*http.Response, error) {
		return c.api.UpdateControlPlane(ctx, cpID, body)
	})
	if err != nil {
		return ControlPlane{}, err
	}
	return controlPlaneFromWire(answer), nil
}

// GetControlPlane returns the control plane with ID id.
func (c *Client) GetControlPlane(ctx context.Context, id string) (ControlPlane, error) {
	op := controlPlaneOp("get")
	cpID, err := parseControlPlaneID(op, id)
	if err != nil {
		return ControlPlane{}, err
	}
	var answer konnectapi.ControlPlane
	err = c.exchange(ctx, op, &answer, func(ctx context.Context) (*http.Response, error) {
		return c.api.GetControlPlane(ctx, cpID)
	})
	if err != nil {
		return ControlPlane{}, err
	}
	return controlPlaneFromWire(answer), nil
}

// DeleteControlPlane deletes the control plane with ID id (and, in Konnect,
// everything in it). A missing one is a *NotFoundError.
func (c *Client) DeleteControlPlane(ctx context.Context, id string) error {
	op := controlPlaneOp("delete")
	cpID, err := parseControlPlaneID(op, id)
	if err != nil {
		return err
	}
	return c.exchange(ctx, op, nil, func(ctx context.Context) (*http.Response, error) {
		return c.api.DeleteControlPlane(ctx, cpID)
	})
}

// controlPlaneListAnswer is the shape of list-control-planes answers.
type controlPlaneListAnswer struct {
	Data []konnectapi.ControlPlane `json:"data"`
	Meta struct {
		Page struct {
			Number float64 `json:"number"`
			Size   float64 `json:"size"`
			Total  float64 `json:"total"`
		} `json:"page"`
	} `json:"meta"`
}

// ListControlPlanes returns every control plane that matches f, following
// every page.
func (c *Client) ListControlPlanes(ctx context.Context, f ControlPlaneFilter) ([]ControlPlane, error) {
	op := controlPlaneOp("list")
	params := konnectapi.ListControlPlanesParams{}
	size := controlPlanePageSize
	params.PageSize = &size
	var filter konnectapi.ControlPlaneFilterParameters
	if f.ID != "" {
		filter.Id = &struct {
			Eq  *string `json:"eq,omitempty"`
			Oeq *string `json:"oeq,omitempty"`
		}{Eq: &f.ID}
	}
	if f.Name != "" {
		filter.Name = &struct {
			Contains *string `json:"contains,omitempty"`
			Eq       *string `json:"eq,omitempty"`
			Neq      *string `json:"neq,omitempty"`
		}{Eq: &f.Name}
	}
	if filter.Id != nil || filter.Name != nil {
		params.Filter = &filter
	}
	if len(f.Labels) > 0 {
		var pairs []string
		for _, k := range slices.Sorted(maps.Keys(f.Labels)) {
			pairs = append(pairs, k+":"+f.Labels[k])
		}
		labels := strings.Join(pairs, ",")
		params.Labels = &labels
	}
	var all []ControlPlane
	for number := 1; ; number++ {
		page := number
		params.PageNumber = &page
		var answer controlPlaneListAnswer
		err := c.exchange(ctx, op, &answer, func(ctx context.Context) (*http.Response, error) {
			return c.api.ListControlPlanes(ctx, &params)
		})
		if err != nil {
			return nil, err
		}
		for _, item := range answer.Data {
			cp := controlPlaneFromWire(item)
			if f.matches(cp) {
				all = append(all, cp)
			}
		}
		if len(answer.Data) == 0 || float64(number*size) >= answer.Meta.Page.Total {
			return all, nil
		}
	}
}

// matches re-checks the filter on what Konnect returned.
func (f ControlPlaneFilter) matches(cp ControlPlane) bool {
	if f.ID != "" && !strings.EqualFold(cp.ID, f.ID) {
		return false
	}
	if f.Name != "" && cp.Name != f.Name {
		return false
	}
	for k, v := range f.Labels {
		if got, ok := cp.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func controlPlaneFromWire(w konnectapi.ControlPlane) ControlPlane {
	cp := ControlPlane{
		Name:         w.Name,
		Description:  w.Description,
		CloudGateway: w.Config.CloudGateway,
	}
	if w.Id != nil {
		cp.ID = w.Id.String()
	}
	if len(w.Labels) > 0 {
		cp.Labels = maps.Clone(map[string]string(w.Labels))
	}
	if w.Config.ClusterType != nil {
		cp.ClusterType = string(*w.Config.ClusterType)
		cp.Config.ClusterType = cp.ClusterType
	}
	if w.Config.AuthType != nil {
		cp.AuthType = string(*w.Config.AuthType)
	}
	if w.Config.ControlPlaneEndpoint != nil {
		cp.Config.ControlPlaneEndpoint = *w.Config.ControlPlaneEndpoint
	}
	if w.Config.TelemetryEndpoint != nil {
		cp.Config.TelemetryEndpoint = *w.Config.TelemetryEndpoint
	}
	for _, p := range w.Config.ProxyUrls {
		cp.ProxyURLs = append(cp.ProxyURLs, ProxyURL(p))
	}
	return cp
}

func proxyURLsToWire(urls []ProxyURL) *konnectapi.ProxyURLs {
	if urls == nil {
		return nil
	}
	out := make(konnectapi.ProxyURLs, 0, len(urls))
	for _, u := range urls {
		out = append(out, konnectapi.ProxyURL(u))
	}
	return &out
}

func labelsToWire(labels map[string]string) *konnectapi.Labels {
	if labels == nil {
		return nil
	}
	out := konnectapi.Labels(maps.Clone(labels))
	return &out
}

// SetControlPlaneGroupMembers makes memberIDs the complete member list of
// control-plane group groupID (PUT group-memberships).
func (c *Client) SetControlPlaneGroupMembers(ctx context.Context, groupID string, memberIDs []string) error {
	op := operation{verb: "set", entity: "control_plane_group_member"}
	if _, err := parseControlPlaneID(op, groupID); err != nil {
		return err
	}
	// Konnect wants the complete list, so no members is [] rather than null.
	members := groupMembership{Members: []ref{}}
	for _, id := range memberIDs {
		members.Members = append(members.Members, ref{ID: id})
	}
	body, err := toWire[konnectapi.GroupMembership](members)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return c.exchange(ctx, op, nil, func(ctx context.Context) (*http.Response, error) {
		return c.api.PutControlPlanesIdGroupMemberships(ctx, groupID, body)
	})
}

// groupMembership is the body of a group-membership PUT.
type groupMembership struct {
	Members []ref `json:"members"`
}

// groupMembersAnswer is the shape of group-membership list answers.
type groupMembersAnswer struct {
	Data []konnectapi.ControlPlane `json:"data"`
	Meta struct {
		Page struct {
			Next *string `json:"next"`
		} `json:"page"`
	} `json:"meta"`
}

// ListControlPlaneGroupMembers returns the IDs of the members of
// control-plane group groupID, following every page.
func (c *Client) ListControlPlaneGroupMembers(ctx context.Context, groupID string) ([]string, error) {
	op := operation{verb: "list", entity: "control_plane_group_member"}
	if _, err := parseControlPlaneID(op, groupID); err != nil {
		return nil, err
	}
	size := controlPlanePageSize
	params := konnectapi.GetControlPlanesIdGroupMembershipsParams{PageSize: &size}
	var ids []string
	seen := map[string]bool{}
	for {
		var answer groupMembersAnswer
		err := c.exchange(ctx, op, &answer, func(ctx context.Context) (*http.Response, error) {
			return c.api.GetControlPlanesIdGroupMemberships(ctx, groupID, &params)
		})
		if err != nil {
			return nil, err
		}
		for _, member := range answer.Data {
			if member.Id != nil {
				ids = append(ids, member.Id.String())
			}
		}
		after := pageAfter(answer.Meta.Page.Next)
		if after == "" || len(answer.Data) == 0 {
			return ids, nil
		}
		if seen[after] {
			return nil, fmt.Errorf("%s: Konnect returned the page cursor %q twice", op, after)
		}
		seen[after] = true
		params.PageAfter = &after
	}
}

// pageAfter extracts the page[after] cursor from a "next" link.
func pageAfter(next *string) string {
	if next == nil || *next == "" {
		return ""
	}
	_, query, found := strings.Cut(*next, "?")
	if !found {
		return ""
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return ""
	}
	return values.Get("page[after]")
}
