package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// ACL puts a consumer into an access-control group.
type ACL struct {
	ID    string   `json:"id,omitempty"`
	Group string   `json:"group"`
	Tags  []string `json:"tags,omitempty"`
	// ConsumerID is the consumer the credential belongs to; operations take
	// it as an argument and fill it in on the way back.
	ConsumerID string `json:"-"`
}

type aclPlain ACL

type aclJSON struct {
	aclPlain
	Consumer *ref `json:"consumer,omitempty"`
}

// MarshalJSON writes the Konnect wire form (consumer as a reference).
func (a ACL) MarshalJSON() ([]byte, error) {
	return json.Marshal(aclJSON{aclPlain(a), refTo(a.ConsumerID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (a *ACL) UnmarshalJSON(data []byte) error {
	var w aclJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*a = ACL(w.aclPlain)
	a.ConsumerID = w.Consumer.id()
	return nil
}

var aclAPI = credentialAPI[ACL, konnectapi.ACLWithoutParents, konnectapi.ACL]{
	kind: kind[ACL]{
		entity: "acl",
		tags:   func(a ACL) []string { return a.Tags },
		name:   func(a ACL) string { return a.Group },
	},
	detach: func(a ACL) ACL { a.ID, a.ConsumerID = "", ""; return a },
	create: (*konnectapi.Client).CreateAclWithConsumer,
	upsert: (*konnectapi.Client).UpsertAclWithConsumer,
	get:    (*konnectapi.Client).GetAclWithConsumer,
	delete: (*konnectapi.Client).DeleteAclWithConsumer,
	list: func(api *konnectapi.Client, ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
		return api.ListAcl(ctx, cpID, &konnectapi.ListAclParams{Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam()})
	},
}

// CreateACL creates an ACL credential of consumer consumerID.
func (c *Client) CreateACL(ctx context.Context, cp, consumerID string, cred ACL) (ACL, error) {
	return createCredential(ctx, c, aclAPI, cp, consumerID, cred)
}

// UpsertACL creates or replaces ACL credential id of consumer
// consumerID.
func (c *Client) UpsertACL(ctx context.Context, cp, consumerID, id string, cred ACL) (ACL, error) {
	return upsertCredential(ctx, c, aclAPI, cp, consumerID, id, cred)
}

// GetACL returns ACL credential id of consumer consumerID.
func (c *Client) GetACL(ctx context.Context, cp, consumerID, id string) (ACL, error) {
	return getCredential(ctx, c, aclAPI, cp, consumerID, id)
}

// DeleteACL deletes ACL credential id of consumer consumerID.
func (c *Client) DeleteACL(ctx context.Context, cp, consumerID, id string) error {
	return deleteCredential(ctx, c, aclAPI, cp, consumerID, id)
}

// ListACLs returns every ACL credential of cp (of any
// consumer) that matches f (f.Name is the group).
func (c *Client) ListACLs(ctx context.Context, cp string, f ListFilter) ([]ACL, error) {
	return listCredentials(ctx, c, aclAPI, cp, f)
}
