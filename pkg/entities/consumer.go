package entities

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongConsumer = *configurationv1.KongConsumer

var consumerGVK = gvk(configurationv1.GroupVersion, "KongConsumer")

// ConsumerDesired is a consumer and the Konnect IDs of the groups it must
// belong to, so that a membership change reaches Konnect at once.
type ConsumerDesired struct {
	Consumer components.Consumer
	GroupIDs []string
}

// ConsumerKind describes KongConsumers: Konnect consumers of a control
// plane, their consumer-group memberships, and the credential Secrets they
// list. credentials are the credential kinds: the Secrets must be of one of
// them, and a consumer's credentials are deleted from Konnect before it.
func ConsumerKind(refs *Refs, groups *controller.Informer[kongConsumerGroup], credentials []CredentialKind) controller.Kind[kongConsumer, ConsumerDesired] {
	c := core[kongConsumer, ConsumerDesired, components.Consumer]{
		gvk: consumerGVK,
		placed: underControlPlane(refs, consumerGVK, func(c kongConsumer) *cpRef { return c.Spec.ControlPlaneRef }).
			with(reference[kongConsumer]{
				conditions: []string{commonv1alpha1.ConditionKongConsumerGroupRefsValid, commonv1alpha1.ConditionCredentialSecretRefsValid},
				resolve: func(b *resolver, consumer kongConsumer) {
					if b.forDelete() {
						return
					}
					checkCredentialSecrets(b, refs, credentials, consumer)
					checkConsumerGroups(b, groups, consumer)
				},
				dependencies: []controller.Dependency[kongConsumer]{
					{Name: "consumerGroups", Source: groups, Keys: func(c kongConsumer) []string {
						return namesIn(c.Namespace, c.ConsumerGroups)
					}},
					CredentialSecretsDependency(refs.Secrets),
				},
			}),
		calls: consumerCalls,
		desired: func(consumer kongConsumer, p controller.Placement) (ConsumerDesired, error) {
			ids, problems, _ := consumerGroupIDs(groups, consumer)
			if len(problems) > 0 {
				return ConsumerDesired{}, fmt.Errorf("consumer groups not ready: %s", strings.Join(problems, ", "))
			}
			return ConsumerDesired{
				Consumer: components.Consumer{
					Username: optional(consumer.Username),
					CustomID: optional(consumer.CustomID),
					Tags:     controller.Tags(consumer, consumerGVK, p.Cluster, consumer.Spec.Tags, consumer),
				},
				GroupIDs: ids,
			}, nil
		},
		remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
			return deleteConsumer(ctx, api, p, id, credentials)
		},
		adopt:    func(c kongConsumer) *adoptOptions { return c.Spec.Adopt },
		matches:  consumerMatches,
		bodyTags: func(d ConsumerDesired) []string { return d.Consumer.Tags },
		// A custom_id is unique too, but no path names a consumer by it.
		uniqueKey: func(d ConsumerDesired) string { return deref(d.Consumer.Username) },
	}
	k := c.kind()
	// The snapshot of a write covers the groups AfterSync then makes equal
	// to the desired ones, as the listing shows them.
	create, update := k.Create, k.Update
	k.Create = func(ctx context.Context, api konnect.API, obj kongConsumer, p controller.Placement, desired ConsumerDesired) (string, controller.Snapshot, error) {
		id, snapshot, err := create(ctx, api, obj, p, desired)
		return id, snapshot.With(ConsumerGroupsField, desired.GroupIDs), err
	}
	k.Update = func(ctx context.Context, api konnect.API, obj kongConsumer, p controller.Placement, id string, desired ConsumerDesired) (controller.Snapshot, error) {
		snapshot, err := update(ctx, api, obj, p, id, desired)
		return snapshot.With(ConsumerGroupsField, desired.GroupIDs), err
	}
	k.List = listConsumers(c)
	k.AfterSync = func(ctx context.Context, api konnect.API, consumer kongConsumer, p controller.Placement, id string, created bool) error {
		want, _, _ := consumerGroupIDs(groups, consumer)
		return syncMemberships(ctx, api, p, id, want, created)
	}
	k.Adopt.Inspect = func(ctx context.Context, api konnect.API, obj kongConsumer, p controller.Placement, id string, desired ConsumerDesired) (controller.Inspection, error) {
		found, err := c.inspect(ctx, api, obj, p, id, desired)
		if err != nil {
			return found, err
		}
		have, err := consumerGroupsOf(ctx, api, p, id)
		if err != nil {
			return found, err
		}
		if !sameSet(desired.GroupIDs, have) {
			found.Differences = append(found.Differences, ConsumerGroupsField)
		}
		if actual, ok := found.Actual.(*components.Consumer); ok {
			found.Actual = ConsumerDesired{Consumer: *actual, GroupIDs: have}
		}
		return found, nil
	}
	return k
}

// consumerMatches compares the username and the custom ID; the groups are
// compared by the kind's Inspect, which reads them.
func consumerMatches(desired ConsumerDesired, actual *components.Consumer) []string {
	var d diff
	d.check("username", deref(desired.Consumer.Username) == deref(actual.Username))
	d.check("custom_id", deref(desired.Consumer.CustomID) == deref(actual.CustomID))
	return d
}

// checkConsumerGroups sets KongConsumerGroupRefsValid when the consumer
// joins groups: every one must already exist in Konnect.
func checkConsumerGroups(b *resolver, groups *controller.Informer[kongConsumerGroup], consumer kongConsumer) {
	if len(consumer.ConsumerGroups) == 0 {
		return
	}
	if _, problems, refState := consumerGroupIDs(groups, consumer); len(problems) > 0 {
		b.invalid(commonv1alpha1.ConditionKongConsumerGroupRefsValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, ", "))
		b.refStateAt(refState)
		return
	}
	b.valid(commonv1alpha1.ConditionKongConsumerGroupRefsValid, "")
}

// consumerGroupIDs returns the sorted Konnect IDs of the consumer's groups,
// and a problem ("name: NotFound", "name: NotCreatedInKonnect") for each
// group that cannot be used yet, with what the consumer needs to go on.
func consumerGroupIDs(groups *controller.Informer[kongConsumerGroup], consumer kongConsumer) (ids, problems []string, refState controller.RefState) {
	for _, name := range consumer.ConsumerGroups {
		g, err := groups.Get(consumer.Namespace, name)
		switch {
		case err != nil:
			problems = append(problems, name+": NotFound")
		case isBeingDeleted(g):
			problems = append(problems, name+": BeingDeleted")
		case g.KonnectStatus(false).GetKonnectID() == "" || !controller.IsConditionTrue(g.Status.Conditions, commonv1alpha1.ConditionProgrammed):
			problems = append(problems, name+": NotCreatedInKonnect")
			refState = max(refState, controller.RefStateOf(g.Status.Conditions))
		default:
			ids = append(ids, g.Status.Konnect.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), problems, refState
}

// deleteConsumer deletes a consumer. Konnect refuses while it still has
// credentials; those cannot exist without it, so they are deleted first.
func deleteConsumer(ctx context.Context, api konnect.API, p controller.Placement, id string, credentials []CredentialKind) error {
	err := consumerCalls.doDelete(ctx, api, p, id)
	if !refusedForChildren(err) {
		return err
	}
	p.ParentID = id
	for _, kind := range credentials {
		if credErr := kind.deleteConsumerCredentials(ctx, api, p); credErr != nil {
			return errors.Join(err, credErr)
		}
	}
	return consumerCalls.doDelete(ctx, api, p, id)
}

// namesIn returns the keys of the named objects of one namespace.
func namesIn(namespace string, names []string) []string {
	keys := make([]string, 0, len(names))
	for _, name := range names {
		keys = append(keys, key(namespace, name))
	}
	return keys
}

var consumerCalls = coreCalls[ConsumerDesired, components.Consumer]{
	entity: "consumer",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body ConsumerDesired) (*components.Consumer, error) {
		res, err := api.Consumers.CreateConsumer(ctx, p.ControlPlaneID, body.Consumer)
		return res.GetConsumer(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body ConsumerDesired) (*components.Consumer, error) {
		res, err := api.Consumers.UpsertConsumer(ctx, operations.UpsertConsumerRequest{ControlPlaneID: p.ControlPlaneID, ConsumerID: id, Consumer: body.Consumer})
		return res.GetConsumer(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Consumer, error) {
		res, err := api.Consumers.GetConsumer(ctx, id, p.ControlPlaneID)
		return res.GetConsumer(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.Consumers.DeleteConsumer(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Consumer, *string, error) {
		res, err := api.Consumers.ListConsumer(ctx, operations.ListConsumerRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:         (*components.Consumer).GetID,
	tags:       (*components.Consumer).GetTags,
	collection: "consumers",
}
