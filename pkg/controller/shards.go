package controller

import (
	"context"
	"fmt"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// OtherShard says that an object missing from a shard's caches exists, in
// another shard (see commonv1alpha1.LabelShard): this operator does not
// see it, by design, rather than it not being there. Shard equals Own for
// an object that just moved into this shard, on its way to the caches.
type OtherShard struct {
	// Shard is the object's shard, Own the operator's ("" for the default).
	Shard, Own string
}

// Message says, of the referrer, that what it refers to is in another
// shard, and how to fix it.
func (o *OtherShard) Message(what string) string {
	if o.Shard == o.Own {
		return fmt.Sprintf("%s just moved to %s and is not in this operator's cache yet", what, commonv1alpha1.DescribeShard(o.Shard))
	}
	fix := fmt.Sprintf("remove the label %s from this object", commonv1alpha1.LabelShard)
	if o.Shard != "" {
		fix = fmt.Sprintf("label this object %s=%s", commonv1alpha1.LabelShard, o.Shard)
	}
	return fmt.Sprintf("%s is in %s, not in this object's %s: an object and the objects it refers to must share a shard; %s, or move both",
		what, commonv1alpha1.DescribeShard(o.Shard), commonv1alpha1.DescribeShard(o.Own), fix)
}

// Locate finds, past the caches, whether the object namespace/name exists
// in another shard; nil when it does not. fresh asks for an answer read now
// rather than a recent one (before a deletion decides on it).
type Locate func(ctx context.Context, namespace, name string, fresh bool) (*OtherShard, error)

// SetElsewhere gives the view a way to tell, of an object missing from its
// caches, whether it exists in another shard. It must be called before the
// view is used.
func (i *Informer[T]) SetElsewhere(locate Locate) { i.elsewhere = locate }

// Elsewhere reports whether the object namespace/name, missing from the
// view's caches, exists in another shard; nil when it does not, or when
// the view cannot tell (it has no Locate).
func (i *Informer[T]) Elsewhere(ctx context.Context, namespace, name string, fresh bool) (*OtherShard, error) {
	if i.elsewhere == nil {
		return nil, nil
	}
	return i.elsewhere(ctx, namespace, name, fresh)
}
