package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// The SDK calls of the five credential kinds. Every call is made under the
// consumer whose Konnect ID is Placement.ParentID, listing included: a
// credential of another consumer is never found or adopted.

var basicAuthCalls = coreCalls[components.BasicAuthWithoutParents, components.BasicAuth]{
	entity: "basic_auth",
	nested: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.BasicAuthWithoutParents) (*components.BasicAuth, error) {
		res, err := api.BasicAuths.CreateBasicAuthWithConsumer(ctx, operations.CreateBasicAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, BasicAuthWithoutParents: body})
		return res.GetBasicAuth(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.BasicAuthWithoutParents) (*components.BasicAuth, error) {
		res, err := api.BasicAuths.UpsertBasicAuthWithConsumer(ctx, operations.UpsertBasicAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, BasicAuthID: id, BasicAuthWithoutParents: body})
		return res.GetBasicAuth(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.BasicAuth, error) {
		res, err := api.BasicAuths.GetBasicAuthWithConsumer(ctx, operations.GetBasicAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, BasicAuthID: id})
		return res.GetBasicAuth(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.BasicAuths.DeleteBasicAuthWithConsumer(ctx, operations.DeleteBasicAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, BasicAuthID: id})
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.BasicAuth, *string, error) {
		res, err := api.BasicAuths.ListBasicAuthWithConsumer(ctx, operations.ListBasicAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	flat: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.BasicAuth, *string, error) {
		res, err := api.BasicAuths.ListBasicAuth(ctx, operations.ListBasicAuthRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.BasicAuth).GetID,
	tags: (*components.BasicAuth).GetTags,

	collection: "basic-auths",
}

var apiKeyCalls = coreCalls[components.KeyAuthWithoutParents, components.KeyAuth]{
	entity: "key_auth",
	nested: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.KeyAuthWithoutParents) (*components.KeyAuth, error) {
		res, err := api.APIKeys.CreateKeyAuthWithConsumer(ctx, operations.CreateKeyAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, KeyAuthWithoutParents: &body})
		return res.GetKeyAuth(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.KeyAuthWithoutParents) (*components.KeyAuth, error) {
		res, err := api.APIKeys.UpsertKeyAuthWithConsumer(ctx, operations.UpsertKeyAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, KeyAuthID: id, KeyAuthWithoutParents: &body})
		return res.GetKeyAuth(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.KeyAuth, error) {
		res, err := api.APIKeys.GetKeyAuthWithConsumer(ctx, operations.GetKeyAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, KeyAuthID: id})
		return res.GetKeyAuth(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.APIKeys.DeleteKeyAuthWithConsumer(ctx, operations.DeleteKeyAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, KeyAuthID: id})
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.KeyAuth, *string, error) {
		res, err := api.APIKeys.ListKeyAuthWithConsumer(ctx, operations.ListKeyAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	flat: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.KeyAuth, *string, error) {
		res, err := api.APIKeys.ListKeyAuth(ctx, operations.ListKeyAuthRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.KeyAuth).GetID,
	tags: (*components.KeyAuth).GetTags,

	collection: "key-auths",
}

var aclCalls = coreCalls[components.ACLWithoutParents, components.ACL]{
	entity: "acl",
	nested: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.ACLWithoutParents) (*components.ACL, error) {
		res, err := api.ACLs.CreateACLWithConsumer(ctx, operations.CreateACLWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, ACLWithoutParents: body})
		return res.GetACL(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.ACLWithoutParents) (*components.ACL, error) {
		res, err := api.ACLs.UpsertACLWithConsumer(ctx, operations.UpsertACLWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, ACLID: id, ACLWithoutParents: body})
		return res.GetACL(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.ACL, error) {
		res, err := api.ACLs.GetACLWithConsumer(ctx, operations.GetACLWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, ACLID: id})
		return res.GetACL(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.ACLs.DeleteACLWithConsumer(ctx, operations.DeleteACLWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, ACLID: id})
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.ACL, *string, error) {
		res, err := api.ACLs.ListACLWithConsumer(ctx, operations.ListACLWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	flat: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.ACL, *string, error) {
		res, err := api.ACLs.ListACL(ctx, operations.ListACLRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.ACL).GetID,
	tags: (*components.ACL).GetTags,

	collection: "acls",
}

var jwtCalls = coreCalls[components.JWTWithoutParents, components.Jwt]{
	entity: "jwt",
	nested: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.JWTWithoutParents) (*components.Jwt, error) {
		res, err := api.JWTs.CreateJwtWithConsumer(ctx, operations.CreateJwtWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, JWTWithoutParents: &body})
		return res.GetJwt(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.JWTWithoutParents) (*components.Jwt, error) {
		res, err := api.JWTs.UpsertJwtWithConsumer(ctx, operations.UpsertJwtWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, JWTID: id, JWTWithoutParents: &body})
		return res.GetJwt(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Jwt, error) {
		res, err := api.JWTs.GetJwtWithConsumer(ctx, operations.GetJwtWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, JWTID: id})
		return res.GetJwt(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.JWTs.DeleteJwtWithConsumer(ctx, operations.DeleteJwtWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, JWTID: id})
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Jwt, *string, error) {
		res, err := api.JWTs.ListJwtWithConsumer(ctx, operations.ListJwtWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	flat: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Jwt, *string, error) {
		res, err := api.JWTs.ListJwt(ctx, operations.ListJwtRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.Jwt).GetID,
	tags: (*components.Jwt).GetTags,

	collection: "jwts",
}

var hmacCalls = coreCalls[components.HMACAuthWithoutParents, components.HMACAuth]{
	entity: "hmac_auth",
	nested: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.HMACAuthWithoutParents) (*components.HMACAuth, error) {
		res, err := api.HMACAuths.CreateHmacAuthWithConsumer(ctx, operations.CreateHmacAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, HMACAuthWithoutParents: body})
		return res.GetHMACAuth(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.HMACAuthWithoutParents) (*components.HMACAuth, error) {
		res, err := api.HMACAuths.UpsertHmacAuthWithConsumer(ctx, operations.UpsertHmacAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, HMACAuthID: id, HMACAuthWithoutParents: body})
		return res.GetHMACAuth(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.HMACAuth, error) {
		res, err := api.HMACAuths.GetHmacAuthWithConsumer(ctx, operations.GetHmacAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, HMACAuthID: id})
		return res.GetHMACAuth(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.HMACAuths.DeleteHmacAuthWithConsumer(ctx, operations.DeleteHmacAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, HMACAuthID: id})
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.HMACAuth, *string, error) {
		res, err := api.HMACAuths.ListHmacAuthWithConsumer(ctx, operations.ListHmacAuthWithConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerIDForNestedEntities: p.ParentID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	flat: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.HMACAuth, *string, error) {
		res, err := api.HMACAuths.ListHmacAuth(ctx, operations.ListHmacAuthRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.HMACAuth).GetID,
	tags: (*components.HMACAuth).GetTags,

	collection: "hmac-auths",
}
