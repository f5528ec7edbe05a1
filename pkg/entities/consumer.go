package entities

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongConsumer = *configurationv1.KongConsumer

// ConsumerAdapter reconciles KongConsumers into Konnect consumers and their
// consumer-group memberships.
type ConsumerAdapter struct {
	Refs           *Refs
	ConsumerGroups *controller.Informer[kongConsumerGroup]
	// Credentials are the credential kinds: the Secrets in credentials must
	// be of one of them, and a consumer's credentials are deleted from
	// Konnect before it.
	Credentials []CredentialKind
}

// ConsumerDesired is a consumer and the Konnect IDs of the groups it must
// belong to, so that a membership change reaches Konnect at once.
type ConsumerDesired struct {
	Consumer konnect.Consumer
	GroupIDs []string
}

var (
	_ controller.DependentAdapter[kongConsumer, ConsumerDesired] = (*ConsumerAdapter)(nil)
	_ controller.AfterSyncer[kongConsumer]                       = (*ConsumerAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *ConsumerAdapter) GroupVersionKind() schema.GroupVersionKind {
	return gvk(configurationv1.GroupVersion, "KongConsumer")
}

// Managed implements controller.Adapter.
func (a *ConsumerAdapter) Managed(c kongConsumer) bool { return c.Spec.ControlPlaneRef.IsKonnect() }

// ConditionTypes implements controller.Adapter.
func (a *ConsumerAdapter) ConditionTypes() []string {
	return append([]string{commonv1alpha1.ConditionKongConsumerGroupRefsValid, commonv1alpha1.ConditionCredentialSecretRefsValid}, controlPlaneConditionTypes...)
}

// Resolve implements controller.Adapter. Every consumer group the consumer
// joins must already exist in Konnect, and every credential Secret it lists
// must exist and be well formed.
func (a *ConsumerAdapter) Resolve(ctx context.Context, consumer kongConsumer, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	a.Refs.placeUnderControlPlane(b, referrerOf(a.GroupVersionKind(), consumer), consumer.Spec.ControlPlaneRef, consumer.ControlPlaneStatus(true))
	if purpose == controller.ForSync {
		checkCredentialSecrets(ctx, b, a.Refs, a.Credentials, consumer)
	}
	if purpose == controller.ForSync && len(consumer.ConsumerGroups) > 0 {
		if _, problems := a.groupIDs(consumer); len(problems) > 0 {
			b.invalid(commonv1alpha1.ConditionKongConsumerGroupRefsValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, ", "))
		} else {
			b.valid(commonv1alpha1.ConditionKongConsumerGroupRefsValid, "")
		}
	}
	return b.done(), nil
}

// groupIDs returns the sorted Konnect IDs of the consumer's groups, and a
// problem ("name: NotFound", "name: NotCreatedInKonnect") for each group
// that cannot be used yet.
func (a *ConsumerAdapter) groupIDs(consumer kongConsumer) (ids, problems []string) {
	for _, name := range consumer.ConsumerGroups {
		g, err := a.ConsumerGroups.Get(consumer.Namespace, name)
		switch {
		case err != nil:
			problems = append(problems, name+": NotFound")
		case isBeingDeleted(g):
			problems = append(problems, name+": BeingDeleted")
		case g.KonnectStatus(false).GetKonnectID() == "" || !controller.IsConditionTrue(g.Status.Conditions, commonv1alpha1.ConditionProgrammed):
			problems = append(problems, name+": NotCreatedInKonnect")
		default:
			ids = append(ids, g.Status.Konnect.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), problems
}

// Desired implements controller.Adapter.
func (a *ConsumerAdapter) Desired(_ context.Context, consumer kongConsumer, _ controller.Placement) (ConsumerDesired, error) {
	ids, problems := a.groupIDs(consumer)
	if len(problems) > 0 {
		return ConsumerDesired{}, fmt.Errorf("consumer groups not ready: %s", strings.Join(problems, ", "))
	}
	return ConsumerDesired{
		Consumer: konnect.Consumer{
			Username: consumer.Username,
			CustomID: consumer.CustomID,
			Tags:     controller.Tags(consumer, a.GroupVersionKind(), consumer.Spec.Tags, consumer),
		},
		GroupIDs: ids,
	}, nil
}

// Create implements controller.Adapter.
func (a *ConsumerAdapter) Create(ctx context.Context, c *konnect.Client, _ kongConsumer, p controller.Placement, desired ConsumerDesired) (string, error) {
	created, err := c.CreateConsumer(ctx, p.ControlPlaneID, desired.Consumer)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *ConsumerAdapter) Update(ctx context.Context, c *konnect.Client, _ kongConsumer, p controller.Placement, id string, desired ConsumerDesired) error {
	_, err := c.UpsertConsumer(ctx, p.ControlPlaneID, id, desired.Consumer)
	return err
}

// AfterSync implements controller.AfterSyncer: it makes the consumer's
// memberships in Konnect equal to consumerGroups, adding and removing as
// needed. A consumer just created has no memberships to read.
func (a *ConsumerAdapter) AfterSync(ctx context.Context, c *konnect.Client, consumer kongConsumer, p controller.Placement, id string, created bool) error {
	want, _ := a.groupIDs(consumer)
	if created && len(want) == 0 {
		return nil
	}
	var have []string
	if !created {
		current, err := c.ListConsumerGroupsOfConsumer(ctx, p.ControlPlaneID, id)
		if err != nil {
			return controller.WithReason(commonv1alpha1.ReasonFailedToAttachConsumerToGroup, err)
		}
		for _, g := range current {
			have = append(have, g.ID)
		}
	}
	for _, g := range want {
		if !slices.Contains(have, g) {
			if err := c.AddConsumerToGroup(ctx, p.ControlPlaneID, g, id); err != nil && !konnect.IsConflict(err) {
				return controller.WithReason(commonv1alpha1.ReasonFailedToAttachConsumerToGroup, err)
			}
		}
	}
	for _, g := range have {
		if !slices.Contains(want, g) {
			if err := c.RemoveConsumerFromGroup(ctx, p.ControlPlaneID, g, id); err != nil && !konnect.IsNotFound(err) {
				return controller.WithReason(commonv1alpha1.ReasonFailedToAttachConsumerToGroup, err)
			}
		}
	}
	return nil
}

// Delete implements controller.Adapter. Konnect refuses to delete a
// consumer that still has credentials; those cannot exist without it, so
// they are deleted first.
func (a *ConsumerAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongConsumer, p controller.Placement, id string) error {
	err := c.DeleteConsumer(ctx, p.ControlPlaneID, id)
	if !refusedForChildren(err) {
		return err
	}
	for _, kind := range a.Credentials {
		if credErr := kind.deleteConsumerCredentials(ctx, c, p.ControlPlaneID, id); credErr != nil {
			return errors.Join(err, credErr)
		}
	}
	return c.DeleteConsumer(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *ConsumerAdapter) FindByUID(ctx context.Context, c *konnect.Client, consumer kongConsumer, p controller.Placement) (string, error) {
	found, err := c.ListConsumers(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(consumer)}})
	return firstID(found, func(c konnect.Consumer) string { return c.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *ConsumerAdapter) Dependencies() []controller.Dependency[kongConsumer] {
	return []controller.Dependency[kongConsumer]{
		controlPlaneDependency(a.Refs, func(c kongConsumer) []string {
			return controlPlaneKeys(c.Spec.ControlPlaneRef, c.Namespace)
		}),
		{
			Name:   "consumerGroups",
			Source: a.ConsumerGroups,
			Keys: func(c kongConsumer) []string {
				keys := make([]string, 0, len(c.ConsumerGroups))
				for _, name := range c.ConsumerGroups {
					keys = append(keys, key(c.Namespace, name))
				}
				return keys
			},
		},
		credentialSecretsDependency(a.Refs.Secrets),
		grantDependency(a.Refs, func(c kongConsumer) []string {
			return otherNamespaces(c.Namespace, controlPlaneNamespace(c.Spec.ControlPlaneRef, c.Namespace))
		}),
	}
}
