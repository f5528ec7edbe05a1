package entities

import (
	"context"
	"errors"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// errNoAnswer is a successful call whose answer carried no entity: a
// cut-off answer, whose effect is unknown.
var errNoAnswer = errors.New("the answer carries no entity")

// callForEntity runs one Konnect call that answers with an entity, unless
// it was refused before anything is sent (refused: its path lacks an ID).
// A success without an entity is errNoAnswer.
func callForEntity[A any](ctx context.Context, op konnect.Operation, refused error, call func(context.Context) (*A, error)) (*A, error) {
	if refused != nil {
		return nil, refused
	}
	return konnect.Call(ctx, op, func(ctx context.Context) (*A, error) {
		a, err := call(ctx)
		if err == nil && a == nil {
			err = errNoAnswer
		}
		return a, err
	})
}

// callForDeletion runs one Konnect call that deletes an entity, unless it
// was refused before anything is sent.
func callForDeletion(ctx context.Context, op konnect.Operation, refused error, remove func(context.Context) error) error {
	if refused != nil {
		return refused
	}
	_, err := konnect.Call(ctx, op, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, remove(ctx)
	})
	return err
}
