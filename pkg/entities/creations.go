package entities

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// creationWait bounds how long an object created by a controller may stay
// invisible in the informer cache before the controller creates it again.
const creationWait = 30 * time.Second

// Creations remember the objects a controller created and its informer
// has not shown yet. A reconcile that runs before the cache catches up
// would otherwise find the object missing and create a second one.
type Creations struct {
	mu      sync.Mutex
	pending map[string]time.Time
	now     func() time.Time
}

// NewCreations returns an empty record of creations.
func NewCreations() *Creations {
	return &Creations{pending: map[string]time.Time{}, now: time.Now}
}

// Expect records that the object known by key was just created.
func (c *Creations) Expect(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[key] = c.now()
}

// Seen forgets key: the cache shows the object.
func (c *Creations) Seen(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, key)
}

// InFlight reports whether the object known by key was created recently
// enough that the cache may not show it yet.
func (c *Creations) InFlight(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.pending[key]
	if ok && c.now().Sub(at) > creationWait {
		delete(c.pending, key)
		return false
	}
	return ok
}

// ObjectWriter creates, patches and deletes objects of one kind. The
// generated typed clients implement it.
type ObjectWriter[T any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// WithShardOf adds to labels the shard label of the object that makes an
// object, so that what the operator makes is in its maker's shard.
func WithShardOf(maker metav1.Object, labels map[string]string) map[string]string {
	shard, ok := maker.GetLabels()[commonv1alpha1.LabelShard]
	if !ok {
		return labels
	}
	if labels == nil {
		labels = map[string]string{}
	}
	labels[commonv1alpha1.LabelShard] = shard
	return labels
}
