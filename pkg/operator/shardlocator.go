package operator

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// shardLocator tells, of an object a reference names and this shard's
// caches lack, whether it exists in another shard, so that the referrer
// says "in shard b" rather than "not found" (and a deletion does not take
// the control plane for gone with its entities). It asks the API server
// for the object's metadata alone, by name: a list with a field selector,
// which the operator's list rights allow. Answers are kept for a short
// while, since many objects refer to the same missing one (every route of
// a service); a deletion asks afresh.
type shardLocator struct {
	meta    metadata.Interface
	shard   string
	clock   clock.PassiveClock
	watches func(namespace string) bool

	mu      sync.Mutex
	answers map[locatorKey]locatorAnswer
}

type locatorKey struct {
	gvr             schema.GroupVersionResource
	namespace, name string
}

type locatorAnswer struct {
	other *controller.OtherShard
	at    time.Time
}

// locatorTTL is how long an answer is reused.
const locatorTTL = 10 * time.Second

func newShardLocator(meta metadata.Interface, shard string, clk clock.PassiveClock, watches func(string) bool) *shardLocator {
	return &shardLocator{meta: meta, shard: shard, clock: clk, watches: watches, answers: map[locatorKey]locatorAnswer{}}
}

// forResource is the controller.Locate of one resource.
func (l *shardLocator) forResource(gvr schema.GroupVersionResource, cluster bool) controller.Locate {
	return func(ctx context.Context, namespace, name string, fresh bool) (*controller.OtherShard, error) {
		if cluster {
			namespace = ""
		} else if !l.watches(namespace) {
			return nil, nil // not watched, whatever its shard
		}
		key := locatorKey{gvr: gvr, namespace: namespace, name: name}
		now := l.clock.Now()
		if !fresh {
			l.mu.Lock()
			answer, ok := l.answers[key]
			l.mu.Unlock()
			if ok && now.Sub(answer.at) < locatorTTL {
				return answer.other, nil
			}
		}
		list, err := l.meta.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(),
		})
		if err != nil {
			return nil, err
		}
		var other *controller.OtherShard
		for _, item := range list.Items {
			// One of this shard is on its way to the cache (it just moved
			// here): it is waited for alike, not taken for missing.
			other = &controller.OtherShard{Shard: commonv1alpha1.ShardOf(item.Labels), Own: l.shard}
		}
		l.remember(key, locatorAnswer{other: other, at: now})
		klog.FromContext(ctx).V(4).Info("Looked for a missing object in other shards", "resource", gvr.Resource,
			"object", klog.KRef(namespace, name), "found", other != nil, "shard", l.shard)
		return other, nil
	}
}

// remember keeps an answer, and drops those too old to be used.
func (l *shardLocator) remember(key locatorKey, answer locatorAnswer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.answers) >= 1024 {
		for k, a := range l.answers {
			if answer.at.Sub(a.at) >= locatorTTL {
				delete(l.answers, k)
			}
		}
	}
	l.answers[key] = answer
}
