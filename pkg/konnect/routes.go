package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// Route is a gateway route in Konnect's traditional (JSON) flavour; this
// package never sends the expression flavour.
type Route struct {
	ID                      string              `json:"id,omitempty"`
	Name                    string              `json:"name,omitempty"`
	Protocols               []string            `json:"protocols,omitempty"`
	Methods                 []string            `json:"methods,omitempty"`
	Hosts                   []string            `json:"hosts,omitempty"`
	Paths                   []string            `json:"paths,omitempty"`
	Headers                 map[string][]string `json:"headers,omitempty"`
	SNIs                    []string            `json:"snis,omitempty"`
	Sources                 []RouteEndpoint     `json:"sources,omitempty"`
	Destinations            []RouteEndpoint     `json:"destinations,omitempty"`
	HTTPSRedirectStatusCode *int                `json:"https_redirect_status_code,omitempty"`
	RegexPriority           *int                `json:"regex_priority,omitempty"`
	StripPath               *bool               `json:"strip_path,omitempty"`
	PathHandling            string              `json:"path_handling,omitempty"`
	PreserveHost            *bool               `json:"preserve_host,omitempty"`
	RequestBuffering        *bool               `json:"request_buffering,omitempty"`
	ResponseBuffering       *bool               `json:"response_buffering,omitempty"`
	Tags                    []string            `json:"tags,omitempty"`
	// ServiceID is the service the route leads to; "" for none.
	ServiceID string `json:"-"`
}

// RouteEndpoint is a source or destination matcher of a stream route.
type RouteEndpoint struct {
	IP   string `json:"ip,omitempty"`
	Port *int   `json:"port,omitempty"`
}

type routePlain Route

type routeJSON struct {
	routePlain
	Service *ref `json:"service,omitempty"`
}

// MarshalJSON writes the Konnect wire form (service as a reference).
func (r Route) MarshalJSON() ([]byte, error) {
	return json.Marshal(routeJSON{routePlain(r), refTo(r.ServiceID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (r *Route) UnmarshalJSON(data []byte) error {
	var w routeJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Route(w.routePlain)
	r.ServiceID = w.Service.id()
	return nil
}

var routeKind = kind[Route]{
	entity: "route",
	tags:   func(r Route) []string { return r.Tags },
	name:   func(r Route) string { return r.Name },
}

// routeBody wraps the JSON flavour into the generated union type, so that
// every route body is the traditional kind.
func routeBody(body konnectapi.RouteJson) (konnectapi.Route, error) {
	var route konnectapi.Route
	err := route.FromRouteJson(body)
	return route, err
}

// CreateRoute creates a route in control plane cp.
func (c *Client) CreateRoute(ctx context.Context, cp string, r Route) (Route, error) {
	return writeEntity[Route, konnectapi.RouteJson, konnectapi.RouteJson](ctx, c, routeKind.op("create"), cp, r,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.RouteJson) (*http.Response, error) {
			route, err := routeBody(body)
			if err != nil {
				return nil, err
			}
			return c.api.CreateRoute(ctx, cpID, route)
		})
}

// UpsertRoute creates or replaces the route with ID id.
func (c *Client) UpsertRoute(ctx context.Context, cp, id string, r Route) (Route, error) {
	op := routeKind.op("upsert")
	if err := requireIDs(op, "route ID", id); err != nil {
		return Route{}, err
	}
	r.ID = ""
	return writeEntity[Route, konnectapi.RouteJson, konnectapi.RouteJson](ctx, c, op, cp, r,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.RouteJson) (*http.Response, error) {
			route, err := routeBody(body)
			if err != nil {
				return nil, err
			}
			return c.api.UpsertRoute(ctx, cpID, id, route)
		})
}

// GetRoute returns the route with ID (or name) id.
func (c *Client) GetRoute(ctx context.Context, cp, id string) (Route, error) {
	op := routeKind.op("get")
	if err := requireIDs(op, "route ID", id); err != nil {
		return Route{}, err
	}
	return getEntity[Route, konnectapi.RouteJson](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetRoute(ctx, cpID, id)
		})
}

// DeleteRoute deletes the route with ID id.
func (c *Client) DeleteRoute(ctx context.Context, cp, id string) error {
	op := routeKind.op("delete")
	if err := requireIDs(op, "route ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteRoute(ctx, cpID, id)
	})
}

// ListRoutes returns every route of cp that matches f.
func (c *Client) ListRoutes(ctx context.Context, cp string, f ListFilter) ([]Route, error) {
	return listEntities[Route, konnectapi.RouteJson](ctx, c, routeKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListRoute(ctx, cpID, &konnectapi.ListRouteParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(), FilterNameEq: p.nameParam(),
			})
		})
}
