package controller

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// TestWatchEnqueuesTheDependentsOfOldAndNewSource: a source that names
// several dependents enqueues all of them, and one that stops naming a
// dependent still enqueues it on that update.
func TestWatchEnqueuesTheDependentsOfOldAndNewSource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	factory := kubeinformers.NewSharedInformerFactory(client, 0)
	dependents := NewInformer[*corev1.ConfigMap](corev1.Resource("configmaps"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().ConfigMaps().Informer()})
	sources := NewInformer[*corev1.Secret](corev1.Resource("secrets"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().Secrets().Informer()})

	c, err := New("ConfigMap", dependents, ReconcilerFunc(func(context.Context, cache.ObjectName) (Result, error) {
		return Result{}, nil
	}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A Secret names the ConfigMaps it concerns in its "targets" annotation.
	err = c.Watch(Dependency[*corev1.ConfigMap]{
		Name: "targets",
		Source: SourceOf[*corev1.Secret]{Informer: sources, Keys: func(s *corev1.Secret) []string {
			var keys []string
			for _, name := range strings.Split(s.Annotations["targets"], ",") {
				keys = append(keys, s.Namespace+"/"+name)
			}
			return keys
		}},
		Keys: func(cm *corev1.ConfigMap) []string { return []string{cm.Namespace + "/" + cm.Name} },
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		if _, err := client.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.HasSynced) {
		t.Fatal("caches did not sync")
	}
	drain(t, c, []string{"ns/a", "ns/b", "ns/c"}) // their own adds

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", Annotations: map[string]string{"targets": "a,b"}}}
	if secret, err = client.CoreV1().Secrets("ns").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	drain(t, c, []string{"ns/a", "ns/b"})

	secret.Annotations["targets"] = "c"
	secret.ResourceVersion = "2"
	if _, err := client.CoreV1().Secrets("ns").Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	drain(t, c, []string{"ns/a", "ns/b", "ns/c"})
	// A sentinel Secret naming only c: nothing else came from the update.
	sentinel := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sentinel", Annotations: map[string]string{"targets": "c"}}}
	if _, err := client.CoreV1().Secrets("ns").Create(ctx, sentinel, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	drain(t, c, []string{"ns/c"})
}

// drain waits until the queue has held want, and empties it; it fails on
// anything else it finds. That nothing arrives later is shown by a sentinel:
// an event of the same informer, which its handler sees only after every
// earlier one.
func drain[T Object](t *testing.T, c *Controller[T], want []string) {
	t.Helper()
	var got []string
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		for c.queue.Len() > 0 {
			key, _ := c.queue.Get()
			got = append(got, key.String())
			c.queue.Done(key)
			c.queue.Forget(key)
		}
		// New objects wait in their own tier (no feeder runs here).
		for c.fresh.Len() > 0 {
			key, _ := c.fresh.Get()
			got = append(got, key.String())
			c.fresh.Done(key)
		}
		return len(got) >= len(want), nil
	})
	slices.Sort(got)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("enqueued %v, want %v", got, want)
	}
}
