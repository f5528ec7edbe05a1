package konnect

import (
	"context"
	"reflect"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

func exerciseConsumerGroupMembership(t *testing.T, c *Client, sim *konnectsim.TestServer, orgID, cpID, groupID, consumerID string) {
	t.Helper()
	ctx := context.Background()
	if err := c.AddConsumerToGroup(ctx, cpID, groupID, consumerID); err != nil {
		t.Fatalf("add consumer to group: %v", err)
	}
	if got := sim.ConsumerGroupMembers(orgID, cpID, groupID); !reflect.DeepEqual(got, []string{consumerID}) {
		t.Errorf("simulator's group members = %v, want the consumer", got)
	}
	groups := must[[]ConsumerGroup](t, "list groups of consumer")(c.ListConsumerGroupsOfConsumer(ctx, cpID, consumerID))
	if len(groups) != 1 || groups[0].ID != groupID {
		t.Errorf("groups of consumer = %+v, want the one group", groups)
	}
	if err := c.RemoveConsumerFromGroup(ctx, cpID, groupID, consumerID); err != nil {
		t.Fatalf("remove consumer from group: %v", err)
	}
	if got := must[[]ConsumerGroup](t, "list groups of consumer")(c.ListConsumerGroupsOfConsumer(ctx, cpID, consumerID)); len(got) != 0 {
		t.Errorf("groups of consumer after removal = %+v", got)
	}
}

func exerciseCredentials(t *testing.T, c *Client, cpID, consumerID string) []func() {
	t.Helper()
	var deletes []func()
	check := func(consumer string) {
		t.Helper()
		if consumer != consumerID {
			t.Errorf("credential's consumer = %q, want %q", consumer, consumerID)
		}
	}
	_, del := simKind[BasicAuth]{
		name: "basic-auth", desired: BasicAuth{Username: "alice", Password: "s3cret", Tags: simTags},
		id:       func(e BasicAuth) string { return e.ID },
		withTags: func(e BasicAuth, tags []string) BasicAuth { e.Tags = tags; return e },
		create: func(ctx context.Context, e BasicAuth) (BasicAuth, error) {
			created, err := c.CreateBasicAuth(ctx, cpID, consumerID, e)
			check(created.ConsumerID)
			return created, err
		},
		get: func(ctx context.Context, id string) (BasicAuth, error) {
			return c.GetBasicAuth(ctx, cpID, consumerID, id)
		},
		upsert: func(ctx context.Context, id string, e BasicAuth) (BasicAuth, error) {
			return c.UpsertBasicAuth(ctx, cpID, consumerID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]BasicAuth, error) { return c.ListBasicAuths(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteBasicAuth(ctx, cpID, consumerID, id) },
	}.exercise(t)
	deletes = append(deletes, del)
	_, del = simKind[KeyAuth]{
		name: "key-auth", desired: KeyAuth{Key: "key-123", Tags: simTags},
		id:       func(e KeyAuth) string { return e.ID },
		withTags: func(e KeyAuth, tags []string) KeyAuth { e.Tags = tags; return e },
		create: func(ctx context.Context, e KeyAuth) (KeyAuth, error) {
			created, err := c.CreateKeyAuth(ctx, cpID, consumerID, e)
			check(created.ConsumerID)
			return created, err
		},
		get: func(ctx context.Context, id string) (KeyAuth, error) { return c.GetKeyAuth(ctx, cpID, consumerID, id) },
		upsert: func(ctx context.Context, id string, e KeyAuth) (KeyAuth, error) {
			return c.UpsertKeyAuth(ctx, cpID, consumerID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]KeyAuth, error) { return c.ListKeyAuths(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteKeyAuth(ctx, cpID, consumerID, id) },
	}.exercise(t)
	deletes = append(deletes, del)
	_, del = simKind[ACL]{
		name: "acl", desired: ACL{Group: "admins", Tags: simTags},
		id:       func(e ACL) string { return e.ID },
		withTags: func(e ACL, tags []string) ACL { e.Tags = tags; return e },
		create: func(ctx context.Context, e ACL) (ACL, error) {
			created, err := c.CreateACL(ctx, cpID, consumerID, e)
			check(created.ConsumerID)
			return created, err
		},
		get: func(ctx context.Context, id string) (ACL, error) { return c.GetACL(ctx, cpID, consumerID, id) },
		upsert: func(ctx context.Context, id string, e ACL) (ACL, error) {
			return c.UpsertACL(ctx, cpID, consumerID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]ACL, error) { return c.ListACLs(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteACL(ctx, cpID, consumerID, id) },
	}.exercise(t)
	deletes = append(deletes, del)
	_, del = simKind[JWT]{
		name: "jwt", desired: JWT{Key: "issuer", Algorithm: "HS256", Secret: "very-secret", Tags: simTags},
		id:       func(e JWT) string { return e.ID },
		withTags: func(e JWT, tags []string) JWT { e.Tags = tags; return e },
		create: func(ctx context.Context, e JWT) (JWT, error) {
			created, err := c.CreateJWT(ctx, cpID, consumerID, e)
			check(created.ConsumerID)
			return created, err
		},
		get: func(ctx context.Context, id string) (JWT, error) { return c.GetJWT(ctx, cpID, consumerID, id) },
		upsert: func(ctx context.Context, id string, e JWT) (JWT, error) {
			return c.UpsertJWT(ctx, cpID, consumerID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]JWT, error) { return c.ListJWTs(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteJWT(ctx, cpID, consumerID, id) },
	}.exercise(t)
	deletes = append(deletes, del)
	_, del = simKind[HMACAuth]{
		name: "hmac-auth", desired: HMACAuth{Username: "alice-hmac", Secret: "s", Tags: simTags},
		id:       func(e HMACAuth) string { return e.ID },
		withTags: func(e HMACAuth, tags []string) HMACAuth { e.Tags = tags; return e },
		create: func(ctx context.Context, e HMACAuth) (HMACAuth, error) {
			created, err := c.CreateHMACAuth(ctx, cpID, consumerID, e)
			check(created.ConsumerID)
			return created, err
		},
		get: func(ctx context.Context, id string) (HMACAuth, error) {
			return c.GetHMACAuth(ctx, cpID, consumerID, id)
		},
		upsert: func(ctx context.Context, id string, e HMACAuth) (HMACAuth, error) {
			return c.UpsertHMACAuth(ctx, cpID, consumerID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]HMACAuth, error) { return c.ListHMACAuths(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteHMACAuth(ctx, cpID, consumerID, id) },
	}.exercise(t)
	deletes = append(deletes, del)
	return deletes
}
