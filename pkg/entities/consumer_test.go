package entities

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// konnectCore is the prefix of the simulator's core-entity operations.
const konnectCore = "/v2/control-planes/{controlPlaneId}/core-entities"

func testConsumer(name string, groups ...string) kongConsumer {
	return &configurationv1.KongConsumer{
		ObjectMeta:     objectMeta(name),
		Username:       "user-" + name,
		ConsumerGroups: groups,
		Spec:           configurationv1.KongConsumerSpec{ControlPlaneRef: konnectRef("cp"), Tags: []string{"team:a"}},
	}
}

// consumerFixture is a consumer kind over hand-filled caches, with a
// Programmed control plane and the five credential kinds.
type consumerFixture struct {
	refs        *Refs
	groups      *controller.Informer[kongConsumerGroup]
	credentials []CredentialKind
	kind        controller.Kind[kongConsumer, ConsumerDesired]
}

func newConsumerFixture(t *testing.T) consumerFixture {
	t.Helper()
	refs := testRefs()
	refs.Secrets = cacheOf[*corev1.Secret]("secrets")
	programmedControlPlane(t, refs, "cp", "cp-id")
	f := consumerFixture{refs: refs, groups: cacheOf[kongConsumerGroup]("kongconsumergroups"), credentials: testCredentialKinds(refs)}
	f.kind = ConsumerKind(refs, f.groups, f.credentials)
	return f
}

func credentialSecret(name, label string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name, Labels: map[string]string{commonv1alpha1.LabelCredential: label}}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func TestConsumerChecksItsGroupsAndCredentialSecrets(t *testing.T) {
	deleting := programmedConsumerGroup("deleting", "g-deleting")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{"x"}
	cases := []struct {
		name          string
		groups        []string
		secrets       []string
		groupsValid   metav1.ConditionStatus
		secretsValid  metav1.ConditionStatus
		messageHolds  string
		readyToDelete bool
	}{
		{name: "neither groups nor Secrets: no such conditions", readyToDelete: true},
		{name: "a Programmed group", groups: []string{"gold"}, groupsValid: "True", readyToDelete: true},
		{name: "a missing group", groups: []string{"gold", "missing"}, groupsValid: "False", messageHolds: "missing: NotFound", readyToDelete: true},
		{name: "a group not yet in Konnect", groups: []string{"new"}, groupsValid: "False", messageHolds: "new: NotCreatedInKonnect", readyToDelete: true},
		{name: "a group being deleted", groups: []string{"deleting"}, groupsValid: "False", messageHolds: "deleting: BeingDeleted", readyToDelete: true},
		{name: "a well-formed credential Secret", secrets: []string{"basic"}, secretsValid: "True", readyToDelete: true},
		{name: "a missing Secret", secrets: []string{"nothing"}, secretsValid: "False", messageHolds: "Secret ns/nothing not found", readyToDelete: true},
		{name: "a Secret lacking a key", secrets: []string{"no-password"}, secretsValid: "False", messageHolds: `missing data key "password"`, readyToDelete: true},
		{name: "a Secret of no credential kind", secrets: []string{"unlabelled"}, secretsValid: "False", messageHolds: "label konghq.com/credential must be one of basic-auth, key-auth, acl, jwt, hmac", readyToDelete: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newConsumerFixture(t)
			put(t, f.groups, programmedConsumerGroup("gold", "g-gold"), testConsumerGroup("new"), deleting)
			put(t, f.refs.Secrets,
				credentialSecret("basic", "basic-auth", map[string]string{"username": "u", "password": "p"}),
				credentialSecret("no-password", "basic-auth", map[string]string{"username": "u"}),
				credentialSecret("unlabelled", "", map[string]string{"username": "u"}))
			consumer := testConsumer("alice", tc.groups...)
			consumer.Credentials = tc.secrets

			res, err := f.kind.Resolve(t.Context(), consumer, controller.ForSync)
			if err != nil {
				t.Fatal(err)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionKongConsumerGroupRefsValid); got != tc.groupsValid {
				t.Errorf("KongConsumerGroupRefsValid %q, want %q", got, tc.groupsValid)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionCredentialSecretRefsValid); got != tc.secretsValid {
				t.Errorf("CredentialSecretRefsValid %q, want %q", got, tc.secretsValid)
			}
			if want := tc.groupsValid != "False" && tc.secretsValid != "False"; res.Ready != want {
				t.Errorf("ready %v, want %v; conditions %v", res.Ready, want, res.Conditions)
			}
			if tc.messageHolds != "" && !strings.Contains(falseMessages(res.Conditions), tc.messageHolds) {
				t.Errorf("messages %q lack %q", falseMessages(res.Conditions), tc.messageHolds)
			}
			res, err = f.kind.Resolve(t.Context(), consumer, controller.ForDelete)
			if err != nil || res.Ready != tc.readyToDelete {
				t.Errorf("deleting: ready %v, %v; groups and Secrets do not matter then", res.Ready, err)
			}
		})
	}
}

func TestConsumerBodyCarriesItsFieldsAndSortedGroupIDs(t *testing.T) {
	f := newConsumerFixture(t)
	put(t, f.groups, programmedConsumerGroup("gold", "g-2"), programmedConsumerGroup("silver", "g-1"), testConsumerGroup("new"))
	consumer := testConsumer("alice", "gold", "silver", "gold")
	body, err := f.kind.Desired(t.Context(), consumer, controller.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	if deref(body.Consumer.Username) != "user-alice" || body.Consumer.CustomID != nil {
		t.Errorf("username %v, custom_id %v; an empty custom_id is not sent", body.Consumer.Username, body.Consumer.CustomID)
	}
	if !slices.Equal(body.GroupIDs, []string{"g-1", "g-2"}) {
		t.Errorf("group IDs %v, want sorted and without duplicates", body.GroupIDs)
	}
	for _, want := range []string{"team:a", controller.UIDTag(consumer), "k8s-kind:KongConsumer"} {
		if !slices.Contains(body.Consumer.Tags, want) {
			t.Errorf("tags %v lack %q", body.Consumer.Tags, want)
		}
	}
	if _, err := f.kind.Desired(t.Context(), testConsumer("bob", "new"), controller.Placement{}); err == nil || !strings.Contains(err.Error(), "new: NotCreatedInKonnect") {
		t.Errorf("a group not in Konnect: %v", err)
	}
}

func TestConsumerMatchComparesUsernameAndCustomID(t *testing.T) {
	desired := ConsumerDesired{Consumer: components.Consumer{Username: ptr("alice")}, GroupIDs: []string{"g"}}
	cases := []struct {
		name   string
		actual components.Consumer
		want   []string
	}{
		{"equal; groups are read apart", components.Consumer{Username: ptr("alice")}, nil},
		{"another username", components.Consumer{Username: ptr("bob")}, []string{"username"}},
		{"a custom ID the spec lacks", components.Consumer{Username: ptr("alice"), CustomID: ptr("c")}, []string{"custom_id"}},
	}
	for _, tc := range cases {
		if got := consumerMatches(desired, &tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestConsumerCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, consumerCalls,
		ConsumerDesired{Consumer: components.Consumer{Username: ptr("alice"), Tags: []string{uid}}},
		ConsumerDesired{Consumer: components.Consumer{Username: ptr("alice"), CustomID: ptr("a-1"), Tags: []string{uid}}}, uid)
}

// simulatedConsumer creates a consumer in the simulator and returns its ID.
func simulatedConsumer(t *testing.T, s simulated, p controller.Placement, username string) string {
	t.Helper()
	created, err := consumerCalls.doCreate(t.Context(), s.api, p, ConsumerDesired{Consumer: components.Consumer{Username: &username}})
	if err != nil {
		t.Fatal(err)
	}
	return deref(created.ID)
}

func TestConsumerMembershipsFollowTheSpec(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	ctx := t.Context()
	group := func(name string) string {
		g, err := consumerGroupCalls.doCreate(ctx, s.api, p, components.ConsumerGroup{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return deref(g.ID)
	}
	gold, silver, bronze := group("gold"), group("silver"), group("bronze")
	consumer := simulatedConsumer(t, s, p, "alice")
	orgID, _ := s.sim.OrganizationID("acme")
	memberOf := func() []string {
		var in []string
		for _, g := range []string{gold, silver, bronze} {
			if slices.Contains(s.sim.ConsumerGroupMembers(orgID, p.ControlPlaneID, g), consumer) {
				in = append(in, g)
			}
		}
		return in
	}
	s.sim.ResetCalls()
	if err := syncMemberships(ctx, s.api, p, consumer, nil, true); err != nil || len(s.sim.Calls()) != 0 {
		t.Fatalf("a new consumer without groups: %v, calls %v; nothing to read or write", err, s.sim.Calls())
	}
	if err := syncMemberships(ctx, s.api, p, consumer, []string{gold, silver}, true); err != nil || !sameSet(memberOf(), []string{gold, silver}) {
		t.Fatalf("joining gold and silver: %v, member of %v", err, memberOf())
	}
	if err := syncMemberships(ctx, s.api, p, consumer, []string{silver, bronze}, false); err != nil || !sameSet(memberOf(), []string{silver, bronze}) {
		t.Fatalf("moving from gold to bronze: %v, member of %v", err, memberOf())
	}
	if err := syncMemberships(ctx, s.api, p, consumer, []string{silver, bronze}, true); err != nil || !sameSet(memberOf(), []string{silver, bronze}) {
		t.Fatalf("joining groups it is already in: %v, member of %v", err, memberOf())
	}
	if have, err := consumerGroupsOf(ctx, s.api, p, consumer); err != nil || !sameSet(have, []string{silver, bronze}) {
		t.Fatalf("groups of the consumer: %v, %v", have, err)
	}

	f := newConsumerFixture(t)
	desired := ConsumerDesired{Consumer: components.Consumer{Username: ptr("alice")}, GroupIDs: []string{gold}}
	found, err := f.kind.Adopt.Inspect(ctx, s.api, testConsumer("alice"), p, consumer, desired)
	if err != nil || !slices.Equal(found.Differences, []string{"consumer_groups"}) {
		t.Fatalf("adopting with other groups: differences %v, %v", found.Differences, err)
	}
	desired.GroupIDs = []string{bronze, silver}
	if found, err := f.kind.Adopt.Inspect(ctx, s.api, testConsumer("alice"), p, consumer, desired); err != nil || len(found.Differences) != 0 {
		t.Fatalf("adopting with the same groups: differences %v, %v", found.Differences, err)
	}

	err = syncMemberships(ctx, s.api, p, consumer, []string{"not-a-group"}, false)
	var reasoned *controller.ReasonError
	if !errors.As(err, &reasoned) || reasoned.Reason != commonv1alpha1.ReasonFailedToAttachConsumerToGroup {
		t.Fatalf("joining a group that does not exist: %v, want a %s failure", err, commonv1alpha1.ReasonFailedToAttachConsumerToGroup)
	}
}

func TestConsumerDeletionDeletesItsCredentialsFirst(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	ctx := context.Background()
	alice, bob := simulatedConsumer(t, s, p, "alice"), simulatedConsumer(t, s, p, "bob")
	under := func(consumer string) controller.Placement { q := p; q.ParentID = consumer; return q }
	if _, err := basicAuthCalls.doCreate(ctx, s.api, under(alice), components.BasicAuthWithoutParents{Username: "alice", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	if _, err := aclCalls.doCreate(ctx, s.api, under(alice), components.ACLWithoutParents{Group: "admins"}); err != nil {
		t.Fatal(err)
	}
	kept, err := aclCalls.doCreate(ctx, s.api, under(bob), components.ACLWithoutParents{Group: "admins"})
	if err != nil {
		t.Fatal(err)
	}

	f := newConsumerFixture(t)
	if err := f.kind.Delete(ctx, s.api, testConsumer("alice"), p, alice); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if n := s.sim.CallCount("DELETE", konnectCore+"/consumers/{ConsumerId}"); n != 2 {
		t.Errorf("%d consumer deletes, want 2: refused while it had credentials, then done", n)
	}
	if _, err := consumerCalls.doGet(ctx, s.api, p, alice); !konnect.IsNotFound(err) {
		t.Errorf("the consumer is still there: %v", err)
	}
	orgID, _ := s.sim.OrganizationID("acme")
	for _, collection := range []string{"basic-auths", "acls"} {
		for _, e := range s.sim.Entities(orgID, p.ControlPlaneID, collection) {
			if e["id"] != deref(kept.ID) {
				t.Errorf("%s %v is left", collection, e["id"])
			}
		}
	}
	if _, err := aclCalls.doGet(ctx, s.api, under(bob), deref(kept.ID)); err != nil {
		t.Errorf("another consumer's credential was deleted: %v", err)
	}
}
