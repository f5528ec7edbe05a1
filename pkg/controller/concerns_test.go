package controller

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// TestSelectiveControllerEnqueuesOnlyObjectsThatConcernIt: a ConfigMap
// concerns the controller while its "concern" annotation says "yes". Each
// case creates one ConfigMap, acts on it and checks whether it was
// enqueued; a sentinel that concerns the controller is touched after each
// step, so that an object enqueued by mistake shows up before it.
func TestSelectiveControllerEnqueuesOnlyObjectsThatConcernIt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	factory := kubeinformers.NewSharedInformerFactory(client, 0)
	configMaps := NewInformer[*corev1.ConfigMap](corev1.Resource("configmaps"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().ConfigMaps().Informer()})
	secrets := NewInformer[*corev1.Secret](corev1.Resource("secrets"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().Secrets().Informer()})
	concerns := func(cm *corev1.ConfigMap) bool { return cm.Annotations["concern"] == "yes" }
	c, err := NewSelective("ConfigMap", configMaps, concerns, ReconcilerFunc(func(context.Context, cache.ObjectName) (Result, error) {
		return Result{}, nil
	}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A Secret's "target" annotation names a ConfigMap it concerns.
	err = c.Watch(Dependency[*corev1.ConfigMap]{
		Name: "target",
		Source: SourceOf[*corev1.Secret]{
			Informer: secrets,
			Key:      func(s *corev1.Secret) string { return s.Namespace + "/" + s.Annotations["target"] },
		},
		Keys: func(cm *corev1.ConfigMap) []string { return []string{cm.Namespace + "/" + cm.Name} },
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.HasSynced) {
		t.Fatal("caches did not sync")
	}

	configMap := func(name, concern string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Annotations: map[string]string{"concern": concern}}}
	}
	sentinel, err := client.CoreV1().ConfigMaps("ns").Create(ctx, configMap("sentinel", "yes"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	drain(t, c, []string{"ns/sentinel"})
	touches := 0
	// expect touches the sentinel and checks that the queue held it, and
	// name too when enqueued.
	expect := func(name string, enqueued bool) {
		t.Helper()
		touches++
		sentinel.Annotations["touch"] = strconv.Itoa(touches)
		if sentinel, err = client.CoreV1().ConfigMaps("ns").Update(ctx, sentinel, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		want := []string{"ns/sentinel"}
		if enqueued {
			want = []string{"ns/" + name, "ns/sentinel"}
		}
		drain(t, c, want)
	}
	setConcern := func(name, concern string) {
		t.Helper()
		cm, err := client.CoreV1().ConfigMaps("ns").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Annotations["concern"] = concern
		if _, err := client.CoreV1().ConfigMaps("ns").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(name string) {
		t.Helper()
		if err := client.CoreV1().ConfigMaps("ns").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	for i, tc := range []struct {
		name      string
		concern   string // the "concern" annotation it is created with
		act       func(name string)
		enqueued  bool // by act
		whenAdded bool
	}{
		{name: "an add that concerns it", concern: "yes", whenAdded: true},
		{name: "an add that does not", concern: "no"},
		{name: "an update to an object that concerns it", concern: "no", act: func(n string) { setConcern(n, "yes") }, enqueued: true},
		{name: "an update from one that concerned it", concern: "yes", whenAdded: true, act: func(n string) { setConcern(n, "no") }, enqueued: true},
		{name: "an update of one that never concerned it", concern: "no", act: func(n string) { setConcern(n, "still no") }},
		{name: "a delete of one that concerned it", concern: "yes", whenAdded: true, act: remove, enqueued: true},
		{name: "a delete of one that did not", concern: "no", act: remove},
		{name: "a dependency's change of one that does not concern it", concern: "no", act: func(n string) {
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n, Annotations: map[string]string{"target": n}}}
			if _, err := client.CoreV1().Secrets("ns").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}, enqueued: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("cm-%d", i)
			if _, err := client.CoreV1().ConfigMaps("ns").Create(ctx, configMap(name, tc.concern), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			expect(name, tc.whenAdded)
			if tc.act != nil {
				tc.act(name)
				expect(name, tc.enqueued)
			}
		})
	}
}

// TestSelectiveControllerSeesWhatAnotherCacheAlreadyHolds: when the object
// that makes a ConfigMap concern the controller (a Secret naming it) is in
// its cache before the ConfigMap arrives, the dependency finds no
// ConfigMap to enqueue; the ConfigMap's own add then finds the Secret.
func TestSelectiveControllerSeesWhatAnotherCacheAlreadyHolds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	factory := kubeinformers.NewSharedInformerFactory(client, 0)
	configMaps := NewInformer[*corev1.ConfigMap](corev1.Resource("configmaps"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().ConfigMaps().Informer()})
	secrets := NewInformer[*corev1.Secret](corev1.Resource("secrets"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().Secrets().Informer()})
	byTarget := func(s *corev1.Secret) []string { return []string{s.Namespace + "/" + s.Annotations["target"]} }
	if err := secrets.AddIndex("byTarget", byTarget); err != nil {
		t.Fatal(err)
	}
	concerns := func(cm *corev1.ConfigMap) bool {
		named, err := secrets.ByIndex("byTarget", cm.Namespace+"/"+cm.Name)
		return err != nil || len(named) > 0
	}
	c, err := NewSelective("ConfigMap", configMaps, concerns, ReconcilerFunc(func(context.Context, cache.ObjectName) (Result, error) {
		return Result{}, nil
	}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Watch(Dependency[*corev1.ConfigMap]{
		Name:   "target",
		Source: SourceOf[*corev1.Secret]{Informer: secrets, Key: func(s *corev1.Secret) string { return byTarget(s)[0] }},
		Keys:   func(cm *corev1.ConfigMap) []string { return []string{cm.Namespace + "/" + cm.Name} },
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.HasSynced) {
		t.Fatal("caches did not sync")
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", Annotations: map[string]string{"target": "named"}}}
	if _, err := client.CoreV1().Secrets("ns").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !cache.WaitForCacheSync(ctx.Done(), func() bool { _, err := secrets.Get("ns", "s"); return err == nil }) {
		t.Fatal("the Secret never reached the cache")
	}
	// The Secret found no ConfigMap to enqueue; then the ConfigMaps come, in
	// this order, so that the first is handled before the second: its being
	// left alone shows before the second is enqueued.
	for _, name := range []string{"unnamed", "named"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		if _, err := client.CoreV1().ConfigMaps("ns").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, c, []string{"ns/named"})
}

// TestWatchUpdatesFilterLetsThroughOnlyWhatItAccepts: with Updates set, an
// update of a source enqueues its dependents only when Updates accepts
// it; adds always do.
func TestWatchUpdatesFilterLetsThroughOnlyWhatItAccepts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	factory := kubeinformers.NewSharedInformerFactory(client, 0)
	configMaps := NewInformer[*corev1.ConfigMap](corev1.Resource("configmaps"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().ConfigMaps().Informer()})
	secrets := NewInformer[*corev1.Secret](corev1.Resource("secrets"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().Secrets().Informer()})
	c, err := NewSelective("ConfigMap", configMaps, func(*corev1.ConfigMap) bool { return false },
		ReconcilerFunc(func(context.Context, cache.ObjectName) (Result, error) { return Result{}, nil }), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Watch(Dependency[*corev1.ConfigMap]{
		Name: "target",
		Source: SourceOf[*corev1.Secret]{
			Informer: secrets,
			Key:      func(s *corev1.Secret) string { return s.Namespace + "/" + s.Annotations["target"] },
			Updates: func(oldSource, newSource *corev1.Secret) bool {
				return oldSource.Annotations["target"] != newSource.Annotations["target"]
			},
		},
		Keys: func(cm *corev1.ConfigMap) []string { return []string{cm.Namespace + "/" + cm.Name} },
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "sentinel"} {
		if _, err := client.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.HasSynced) {
		t.Fatal("caches did not sync")
	}
	// The ConfigMaps' adds do not concern it: the Secret's add, which
	// comes after them, is all that is enqueued.
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", Annotations: map[string]string{"target": "a"}}}
	if secret, err = client.CoreV1().Secrets("ns").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	drain(t, c, []string{"ns/a"})
	// A sentinel Secret, whose add enqueues "sentinel", follows each step:
	// what the step enqueued shows before it.
	sentinels := 0
	for _, step := range []struct {
		annotation, value string
		want              []string
	}{
		{"noise", "1", []string{"ns/sentinel"}},
		{"target", "b", []string{"ns/a", "ns/b", "ns/sentinel"}},
	} {
		secret.Annotations[step.annotation] = step.value
		secret.ResourceVersion += "1" // the fake client does not count
		if secret, err = client.CoreV1().Secrets("ns").Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		sentinels++
		sentinel := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("sentinel-%d", sentinels), Annotations: map[string]string{"target": "sentinel"}}}
		if _, err := client.CoreV1().Secrets("ns").Create(ctx, sentinel, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		drain(t, c, step.want)
	}
}

func TestSpecOrMetadataChanged(t *testing.T) {
	now := metav1.Now()
	yes := true
	for _, tc := range []struct {
		name   string
		change func(m *metav1.ObjectMeta)
		want   bool
	}{
		{"nothing but the resource version (a status write)", func(m *metav1.ObjectMeta) { m.ResourceVersion = "2" }, false},
		{"a finalizer added before deletion", func(m *metav1.ObjectMeta) { m.Finalizers = []string{"f"} }, false},
		{"the generation", func(m *metav1.ObjectMeta) { m.Generation = 2 }, true},
		{"a label", func(m *metav1.ObjectMeta) { m.Labels = map[string]string{"l": "v"} }, true},
		{"an annotation", func(m *metav1.ObjectMeta) { m.Annotations = map[string]string{"a": "v"} }, true},
		{"an owner", func(m *metav1.ObjectMeta) {
			m.OwnerReferences = []metav1.OwnerReference{{Kind: "KongPlugin", Name: "p", Controller: &yes}}
		}, true},
		{"the deletion timestamp", func(m *metav1.ObjectMeta) { m.DeletionTimestamp = &now }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldObj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Generation: 1, ResourceVersion: "1"}}
			newObj := oldObj.DeepCopy()
			tc.change(&newObj.ObjectMeta)
			if got := SpecOrMetadataChanged(oldObj, newObj); got != tc.want {
				t.Errorf("SpecOrMetadataChanged = %v, want %v", got, tc.want)
			}
		})
	}
}
