package entities

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// creationWait bounds how long an object created by a controller may stay
// invisible in the informer cache before the controller creates it again.
const creationWait = 30 * time.Second

// creations remembers the objects a controller created and its informer
// has not shown yet. A reconcile that runs before the cache catches up
// would otherwise find the object missing and create a second one.
type creations struct {
	mu      sync.Mutex
	pending map[string]time.Time
	now     func() time.Time
}

func newCreations() *creations {
	return &creations{pending: map[string]time.Time{}, now: time.Now}
}

// expect records that the object known by key was just created.
func (c *creations) expect(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[key] = c.now()
}

// seen forgets key: the cache shows the object.
func (c *creations) seen(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, key)
}

// inFlight reports whether the object known by key was created recently
// enough that the cache may not show it yet.
func (c *creations) inFlight(key string) bool {
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

// controllerOwner returns the controller ownerReference of obj, if any.
func controllerOwner(obj metav1.Object) *metav1.OwnerReference {
	for i, ref := range obj.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			return &obj.GetOwnerReferences()[i]
		}
	}
	return nil
}
