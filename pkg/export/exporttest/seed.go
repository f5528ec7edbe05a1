// Package exporttest fills Konnect, through its own API (the simulator's,
// in tests), with what kubectl konnect export writes: a control plane with
// entities of every kind, as a team's control plane built outside the
// operator would hold them, and an event gateway with an entity of every
// kind it holds, as an operator wrote them. The tests and benchmarks of
// the export, and the end-to-end test that applies one, start from it.
package exporttest

import (
	"context"
	"fmt"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/testkeys"
)

// Seeded is what Seed made.
type Seeded struct {
	ControlPlane components.ControlPlane
	// IDs are the IDs of the entities made, by collection (as Konnect's
	// paths name them: services, routes, basic-auths, …).
	IDs map[string][]string
}

// Entities counts the entities made, the control plane not included.
func (s Seeded) Entities() int {
	n := 0
	for _, ids := range s.IDs {
		n += len(ids)
	}
	return n
}

// EntitiesPerCopy is how many entities each copy of Seed adds: a service
// with a client certificate and a CA certificate, a route, an upstream with
// health checks and a target, a certificate with an SNI, a consumer group,
// a consumer in it with one credential of each type, plugins on the
// service, on a route and consumer, and on the group, a key set with a key,
// a vault and a pinned data-plane certificate.
const EntitiesPerCopy = 21

// Seed creates a control plane called name and copies sets of entities in
// it, plus a global plugin and a route without a service.
func Seed(ctx context.Context, api konnect.API, name string, copies int) (Seeded, error) {
	res, err := api.ControlPlanes.CreateControlPlane(ctx, components.CreateControlPlaneRequest{Name: name})
	if err != nil {
		return Seeded{}, fmt.Errorf("create control plane %s: %w", name, err)
	}
	s := &seeder{api: api, cp: res.GetControlPlane().GetID(), out: Seeded{ControlPlane: *res.GetControlPlane(), IDs: map[string][]string{}}}
	for i := range copies {
		if err := s.copy(ctx, i); err != nil {
			return s.out, fmt.Errorf("copy %d: %w", i, err)
		}
	}
	enabled := true
	if err := s.made("plugins", func() (*string, error) {
		r, err := api.Plugins.CreatePlugin(ctx, s.cp, components.Plugin{
			Name: "correlation-id", Enabled: &enabled, Tags: []string{"team:edge"},
			Config: map[string]any{"header_name": "X-Request-ID", "generator": "uuid", "echo_downstream": true},
		})
		return r.GetPlugin().GetID(), err
	}); err != nil {
		return s.out, err
	}
	err = s.made("routes", func() (*string, error) {
		r, err := api.Routes.CreateRoute(ctx, s.cp, components.CreateRouteRouteJSON(components.RouteJSON{
			Name: ptr("health"), Paths: []string{"/healthz"}, Methods: []string{"GET"},
		}))
		return routeID(r.GetRoute()), err
	})
	return s.out, err
}

type seeder struct {
	api konnect.API
	cp  string
	out Seeded
}

// made runs one create and records the ID it answered.
func (s *seeder) made(collection string, create func() (*string, error)) error {
	id, err := create()
	if err != nil {
		return fmt.Errorf("create in %s: %w", collection, err)
	}
	if id == nil {
		return fmt.Errorf("create in %s answered no ID", collection)
	}
	s.out.IDs[collection] = append(s.out.IDs[collection], *id)
	return nil
}

func (s *seeder) last(collection string) string {
	ids := s.out.IDs[collection]
	return ids[len(ids)-1]
}

// copy makes one set of entities, with names ending in i.
func (s *seeder) copy(ctx context.Context, i int) error {
	api, cp := s.api, s.cp
	host := fmt.Sprintf("orders-%d.example.com", i)
	pair, err := testkeys.SelfSigned(host, true)
	if err != nil {
		return err
	}
	ca, err := testkeys.SelfSigned(fmt.Sprintf("ca-%d.example.com", i), true)
	if err != nil {
		return err
	}
	steps := []struct {
		collection string
		create     func() (*string, error)
	}{
		{"certificates", func() (*string, error) {
			r, err := api.Certificates.CreateCertificate(ctx, cp, components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{
				Cert: pair.Cert, Key: pair.Key, Tags: []string{"team:payments"},
			}))
			return r.GetCertificate().GetID(), err
		}},
		{"snis", func() (*string, error) {
			r, err := api.SNIs.CreateSniWithCertificate(ctx, operations.CreateSniWithCertificateRequest{
				ControlPlaneID: cp, CertificateID: s.last("certificates"), SNIWithoutParents: components.SNIWithoutParents{Name: host},
			})
			return r.GetSni().GetID(), err
		}},
		{"ca_certificates", func() (*string, error) {
			r, err := api.CACertificates.CreateCaCertificate(ctx, cp, components.CACertificate{Cert: ca.Cert})
			return r.GetCACertificate().GetID(), err
		}},
		{"services", func() (*string, error) {
			r, err := api.Services.CreateService(ctx, cp, components.Service{
				Name: ptr(fmt.Sprintf("orders-%d", i)), Host: host, Port: ptr[int64](8443), Protocol: components.ServiceProtocolHTTPS.ToPointer(),
				Path: ptr("/api"), Retries: ptr[int64](3), ReadTimeout: ptr[int64](30000), Tags: []string{"team:payments", "tier:gold"},
				ClientCertificate: &components.ClientCertificate{ID: ptr(s.last("certificates"))},
				CaCertificates:    []string{s.last("ca_certificates")}, TLSVerify: ptr(true),
			})
			return r.GetService().GetID(), err
		}},
		{"routes", func() (*string, error) {
			r, err := api.Routes.CreateRoute(ctx, cp, components.CreateRouteRouteJSON(components.RouteJSON{
				Name: ptr(fmt.Sprintf("orders-%d", i)), Paths: []string{fmt.Sprintf("/orders/%d", i)}, Hosts: []string{host},
				Methods: []string{"GET", "POST"}, StripPath: ptr(false), Headers: map[string][]string{"x-team": {"payments"}},
				Service: &components.RouteJSONService{ID: ptr(s.last("services"))},
			}))
			return routeID(r.GetRoute()), err
		}},
		{"upstreams", func() (*string, error) {
			r, err := api.Upstreams.CreateUpstream(ctx, cp, components.Upstream{
				Name: fmt.Sprintf("orders-%d.upstream", i), Algorithm: components.UpstreamAlgorithmLeastConnections.ToPointer(),
				Slots: ptr[int64](1000), ClientCertificate: &components.UpstreamClientCertificate{ID: ptr(s.last("certificates"))},
				Healthchecks: &components.Healthchecks{Active: &components.Active{
					HTTPPath: ptr("/status"), Healthy: &components.Healthy{Interval: ptr(5.0), Successes: ptr[int64](2)},
				}},
			})
			return r.GetUpstream().GetID(), err
		}},
		{"targets", func() (*string, error) {
			r, err := api.Targets.CreateTargetWithUpstream(ctx, operations.CreateTargetWithUpstreamRequest{
				ControlPlaneID: cp, UpstreamIDForTarget: s.last("upstreams"),
				TargetWithoutParents: components.TargetWithoutParents{Target: ptr(fmt.Sprintf("10.0.%d.1:8080", i%250)), Weight: ptr[int64](50)},
			})
			return r.GetTarget().GetID(), err
		}},
		{"consumer_groups", func() (*string, error) {
			r, err := api.ConsumerGroups.CreateConsumerGroup(ctx, cp, components.ConsumerGroup{Name: fmt.Sprintf("gold-%d", i)})
			return r.GetConsumerGroup().GetID(), err
		}},
		{"consumers", func() (*string, error) {
			r, err := api.Consumers.CreateConsumer(ctx, cp, components.Consumer{
				Username: ptr(fmt.Sprintf("alice-%d", i)), CustomID: ptr(fmt.Sprintf("customer-%d", i)), Tags: []string{"plan:gold"},
			})
			return r.GetConsumer().GetID(), err
		}},
	}
	for _, step := range steps {
		if err := s.made(step.collection, step.create); err != nil {
			return err
		}
	}
	if _, err := api.ConsumerGroups.AddConsumerToGroup(ctx, operations.AddConsumerToGroupRequest{
		ControlPlaneID: cp, ConsumerGroupID: s.last("consumer_groups"),
		RequestBody: &operations.AddConsumerToGroupRequestBody{ConsumerID: ptr(s.last("consumers"))},
	}); err != nil {
		return fmt.Errorf("add consumer to group: %w", err)
	}
	if err := s.credentials(ctx, i); err != nil {
		return err
	}
	if err := s.plugins(ctx, i); err != nil {
		return err
	}
	return s.keysAndPins(ctx, i, ca.Cert)
}

func (s *seeder) credentials(ctx context.Context, i int) error {
	api, cp, consumer := s.api, s.cp, s.last("consumers")
	steps := []struct {
		collection string
		create     func() (*string, error)
	}{
		{"basic-auths", func() (*string, error) {
			r, err := api.BasicAuths.CreateBasicAuthWithConsumer(ctx, operations.CreateBasicAuthWithConsumerRequest{
				ControlPlaneID: cp, ConsumerIDForNestedEntities: consumer,
				BasicAuthWithoutParents: components.BasicAuthWithoutParents{Username: fmt.Sprintf("alice-%d", i), Password: "s3cret"},
			})
			return r.GetBasicAuth().GetID(), err
		}},
		{"key-auths", func() (*string, error) {
			r, err := api.APIKeys.CreateKeyAuthWithConsumer(ctx, operations.CreateKeyAuthWithConsumerRequest{
				ControlPlaneID: cp, ConsumerIDForNestedEntities: consumer,
				KeyAuthWithoutParents: &components.KeyAuthWithoutParents{Key: ptr(fmt.Sprintf("key-of-alice-%d", i))},
			})
			return r.GetKeyAuth().GetID(), err
		}},
		{"acls", func() (*string, error) {
			r, err := api.ACLs.CreateACLWithConsumer(ctx, operations.CreateACLWithConsumerRequest{
				ControlPlaneID: cp, ConsumerIDForNestedEntities: consumer,
				ACLWithoutParents: components.ACLWithoutParents{Group: "payments", Tags: []string{"team:payments"}},
			})
			return r.GetACL().GetID(), err
		}},
		{"jwts", func() (*string, error) {
			r, err := api.JWTs.CreateJwtWithConsumer(ctx, operations.CreateJwtWithConsumerRequest{
				ControlPlaneID: cp, ConsumerIDForNestedEntities: consumer,
				JWTWithoutParents: &components.JWTWithoutParents{Key: ptr(fmt.Sprintf("issuer-%d", i)), Secret: ptr("jwt-secret")},
			})
			return r.GetJwt().GetID(), err
		}},
		{"hmac-auths", func() (*string, error) {
			r, err := api.HMACAuths.CreateHmacAuthWithConsumer(ctx, operations.CreateHmacAuthWithConsumerRequest{
				ControlPlaneID: cp, ConsumerIDForNestedEntities: consumer,
				HMACAuthWithoutParents: components.HMACAuthWithoutParents{Username: fmt.Sprintf("alice-hmac-%d", i), Secret: ptr("hmac-secret")},
			})
			return r.GetHMACAuth().GetID(), err
		}},
	}
	for _, step := range steps {
		if err := s.made(step.collection, step.create); err != nil {
			return err
		}
	}
	return nil
}

func (s *seeder) plugins(ctx context.Context, i int) error {
	enabled := true
	plugins := []components.Plugin{
		{
			Name: "rate-limiting", Enabled: &enabled, Service: &components.PluginService{ID: ptr(s.last("services"))},
			Config: map[string]any{"minute": 60, "policy": "local"}, Protocols: []components.Protocols{"http", "https"},
		},
		{
			Name: "request-termination", InstanceName: ptr(fmt.Sprintf("maintenance-%d", i)), Enabled: ptr(false),
			Route: &components.PluginRoute{ID: ptr(s.last("routes"))}, Consumer: &components.PluginConsumer{ID: ptr(s.last("consumers"))},
			Config: map[string]any{"status_code": 503, "message": "down for maintenance"},
		},
		{
			Name: "response-transformer", Enabled: &enabled, ConsumerGroup: &components.PluginConsumerGroup{ID: ptr(s.last("consumer_groups"))},
			Config: map[string]any{"add": map[string]any{"headers": []any{"x-plan:gold"}}}, Tags: []string{"plan:gold"},
		},
	}
	for _, plugin := range plugins {
		if err := s.made("plugins", func() (*string, error) {
			r, err := s.api.Plugins.CreatePlugin(ctx, s.cp, plugin)
			return r.GetPlugin().GetID(), err
		}); err != nil {
			return err
		}
	}
	return nil
}

func (s *seeder) keysAndPins(ctx context.Context, i int, pinned string) error {
	api, cp := s.api, s.cp
	jwk, err := testkeys.JWK(fmt.Sprintf("kid-%d", i))
	if err != nil {
		return err
	}
	steps := []struct {
		collection string
		create     func() (*string, error)
	}{
		{"key-sets", func() (*string, error) {
			r, err := api.KeySets.CreateKeySet(ctx, cp, &components.KeySet{Name: ptr(fmt.Sprintf("signing-%d", i))})
			return r.GetKeySet().GetID(), err
		}},
		{"keys", func() (*string, error) {
			r, err := api.Keys.CreateKey(ctx, cp, components.Key{
				Kid: fmt.Sprintf("kid-%d", i), Name: ptr(fmt.Sprintf("signing-key-%d", i)), Jwk: &jwk, Set: &components.Set{ID: ptr(s.last("key-sets"))},
			})
			return r.GetKey().GetID(), err
		}},
		{"vaults", func() (*string, error) {
			r, err := api.Vaults.CreateVault(ctx, cp, components.Vault{
				Name: "env", Prefix: fmt.Sprintf("env-%d", i), Description: ptr("secrets from the environment"), Config: map[string]any{"prefix": "SECRET_"},
			})
			return r.GetVault().GetID(), err
		}},
		{"config-stores", func() (*string, error) {
			r, err := api.ConfigStores.CreateConfigStore(ctx, cp, components.CreateConfigStore{Name: ptr(fmt.Sprintf("secrets-%d", i))})
			return r.GetConfigStore().GetID(), err
		}},
		{"vaults", func() (*string, error) {
			r, err := api.Vaults.CreateVault(ctx, cp, components.Vault{
				Name: "konnect", Prefix: fmt.Sprintf("konnect-%d", i), Config: map[string]any{"config_store_id": s.last("config-stores")},
			})
			return r.GetVault().GetID(), err
		}},
		{"dp-client-certificates", func() (*string, error) {
			r, err := api.DPCertificates.CreateDataplaneCertificate(ctx, cp, &components.DataPlaneClientCertificateRequest{Cert: pinned})
			return r.GetDataPlaneClientCertificateResponse().GetItem().GetID(), err
		}},
	}
	for _, step := range steps {
		if err := s.made(step.collection, step.create); err != nil {
			return err
		}
	}
	return nil
}

func routeID(r *components.Route) *string {
	if r == nil || r.RouteJSON == nil {
		return nil
	}
	return r.RouteJSON.ID
}

func ptr[T any](v T) *T { return &v }
