package entities

import (
	"context"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Core entities carry the identity of the object they were written for as
// tags (k8s-kind, k8s-namespace, k8s-name, k8s-cluster): the drift
// listing shows them, so an object that lost its entity's ID (a rebuilt
// cluster, a restore without status) finds it there (see
// controller.Recovery). After a conflict, the entity that holds the unique
// field is read by it: Konnect's paths name an entity by its ID or by that
// field (a service's name, a consumer's username, a vault's prefix).

// read reads one entity as a listing shows it.
func (c core[T, D, A]) read(ctx context.Context, api konnect.API, _ T, p controller.Placement, id string) (controller.Listed[D], error) {
	actual, err := c.calls.doGet(ctx, api, p, id)
	if err != nil {
		return controller.Listed[D]{}, err
	}
	return c.listedOf(actual), nil
}

// findByKey reads the entity that has the body's unique key, nil when none
// does (or the kind has no such key).
func (c core[T, D, A]) findByKey(ctx context.Context, api konnect.API, obj T, p controller.Placement, desired D) (*controller.Listed[D], error) {
	if c.uniqueKey == nil || c.uniqueKey(desired) == "" {
		return nil, nil
	}
	l, err := c.read(ctx, api, obj, p, c.uniqueKey(desired))
	if konnect.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &l, nil
}
