package controller

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// oneSecret lists and watches one Secret, as a field-selected watch of the
// API server does, from a fake watch the test drives.
type oneSecret struct {
	cache.ListWatch
}

// IsWatchListSemanticsUnSupported keeps the reflector to list then watch,
// which the fake serves.
func (oneSecret) IsWatchListSemanticsUnSupported() bool { return true }

// TestNamedWatchFollowsOneObjectForItsReferrers: GetNamed answers
// NotCachedYet while the watch it starts lists, then the object, its
// changes and its deletion, each of which the dependency handlers hear of
// (an absent object too, once listed); the watch stops when no referrer is
// left.
func TestNamedWatchFollowsOneObjectForItsReferrers(t *testing.T) {
	secret := func(name, rv string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	var mu sync.Mutex
	watchers := map[string]*watch.FakeWatcher{}
	stored := map[string]*corev1.Secret{"present": secret("present", "1")}
	lw := func(_, name string) cache.ListerWatcher {
		return &oneSecret{cache.ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				list := &corev1.SecretList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
				if s := stored[name]; s != nil {
					list.Items = append(list.Items, *s)
				}
				return list, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				mu.Lock()
				defer mu.Unlock()
				w := watch.NewFake()
				watchers[name] = w
				return w, nil
			},
		}}
	}
	view := NewInformer[*corev1.Secret](corev1.Resource("secrets"), map[string]cache.SharedIndexInformer{
		"ns": cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Secret{}, 0, cache.Indexers{}),
	})
	view.NamedWatch(lw, func(namespace, name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	}, nil)
	heard := make(chan string, 10)
	if _, err := view.addDependencyHandler(cache.TypedResourceEventHandlerFuncs[*corev1.Secret]{
		AddFunc:    func(s *corev1.Secret) { heard <- "add " + s.Name },
		UpdateFunc: func(_, s *corev1.Secret) { heard <- "update " + s.Name + "@" + s.ResourceVersion },
		DeleteFunc: func(d cache.DeletedObject[*corev1.Secret]) { heard <- "delete " + d.OptionalObj.Name },
	}); err != nil {
		t.Fatal(err)
	}
	referred := map[string]bool{"ns/present": true, "ns/absent": true}
	view.trackReferrers("secrets", "KongCertificate", func(key string) ([]metav1.Object, error) {
		if referred[key] {
			return []metav1.Object{secret("referrer", "")}, nil
		}
		return nil, nil
	})
	stop := make(chan struct{})
	defer close(stop)
	view.StartNamedWatches(stop)
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-heard:
			if got != want {
				t.Fatalf("the handler heard %q, want %q", got, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("the handler did not hear %q", want)
		}
	}
	fake := func(name string) *watch.FakeWatcher {
		t.Helper()
		var w *watch.FakeWatcher
		err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			w = watchers[name]
			return w != nil, nil
		})
		if err != nil {
			t.Fatalf("no watch of %s", name)
		}
		return w
	}

	// The first GetNamed starts the watch, which may list before it
	// answers.
	if got, err := view.GetNamed("ns", "present"); !IsNotCachedYet(err) && (err != nil || got.Name != "present") {
		t.Fatalf("first GetNamed = %v, %v, want NotCachedYet or the Secret", got, err)
	}
	expect("add present")
	if got, err := view.GetNamed("ns", "present"); err != nil || got.ResourceVersion != "1" {
		t.Fatalf("GetNamed once listed = %v, %v", got, err)
	}
	fake("present").Modify(secret("present", "2"))
	expect("update present@2")
	fake("present").Delete(secret("present", "2"))
	expect("delete present")
	if _, err := view.GetNamed("ns", "present"); !apierrors.IsNotFound(err) {
		t.Fatalf("GetNamed after the delete = %v, want NotFound", err)
	}

	if _, err := view.GetNamed("ns", "absent"); !IsNotCachedYet(err) && !apierrors.IsNotFound(err) {
		t.Fatalf("first GetNamed of an absent Secret = %v, want NotCachedYet or NotFound", err)
	}
	expect("delete absent") // so that its referrers hear it is not there
	if _, err := view.GetNamed("ns", "absent"); !apierrors.IsNotFound(err) {
		t.Fatalf("GetNamed of an absent Secret = %v, want NotFound", err)
	}
	if _, err := view.GetNamed("elsewhere", "present"); !apierrors.IsNotFound(err) {
		t.Fatalf("GetNamed in an unwatched namespace = %v, want NotFound", err)
	}

	referred["ns/absent"] = false
	view.referrersChanged([]string{"ns/absent", "ns/present"})
	view.named.mu.Lock()
	_, absent := view.named.watches[cache.NewObjectName("ns", "absent")]
	_, present := view.named.watches[cache.NewObjectName("ns", "present")]
	view.named.mu.Unlock()
	if absent || !present {
		t.Fatalf("watching absent=%v present=%v after absent lost its last referrer, want only present", absent, present)
	}
}

// TestNamedWatchLastsWhileATrackedReferrerReadsIt: an object registered
// with TrackReferrers (a plugin reading a Secret for its bindings) keeps
// the watch of the Secret it names; the watch stops once it names another.
func TestNamedWatchLastsWhileATrackedReferrerReadsIt(t *testing.T) {
	lw := func(_, _ string) cache.ListerWatcher {
		return &oneSecret{cache.ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return &corev1.SecretList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
		}}
	}
	secrets := NewInformer[*corev1.Secret](corev1.Resource("secrets"), map[string]cache.SharedIndexInformer{
		"ns": cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Secret{}, 0, cache.Indexers{}),
	})
	secrets.NamedWatch(lw, func(namespace, name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	}, nil)

	// The referrers: ConfigMaps naming a Secret in their data, from a
	// watch the test drives.
	reader := func(secret, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "reader", ResourceVersion: rv}, Data: map[string]string{"secret": secret}}
	}
	changes := watch.NewFake()
	readersInformer := cache.NewSharedIndexInformer(&oneSecret{cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.ConfigMap{*reader("read", "1")}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return changes, nil },
	}}, &corev1.ConfigMap{}, 0, cache.Indexers{})
	readers := NewInformer[*corev1.ConfigMap](corev1.Resource("configmaps"), map[string]cache.SharedIndexInformer{"ns": readersInformer})
	if err := TrackReferrers(secrets, "readers", "ConfigMap", readers, func(c *corev1.ConfigMap) []string {
		return []string{"ns/" + c.Data["secret"]}
	}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	secrets.StartNamedWatches(stop)
	go readersInformer.Run(stop)
	if !cache.WaitForCacheSync(t.Context().Done(), readers.HasSynced) {
		t.Fatal("the readers did not sync")
	}
	watching := func(name string) bool {
		secrets.named.mu.Lock()
		defer secrets.named.mu.Unlock()
		_, ok := secrets.named.watches[cache.NewObjectName("ns", name)]
		return ok
	}

	if _, err := secrets.GetNamed("ns", "read"); !IsNotCachedYet(err) && !apierrors.IsNotFound(err) {
		t.Fatalf("first GetNamed = %v, want NotCachedYet or NotFound", err)
	}
	secrets.referrersChanged([]string{"ns/read"}) // as any other referrer letting go would
	if !watching("read") {
		t.Fatal("the watch stopped while a tracked referrer still reads the Secret")
	}
	changes.Modify(reader("other", "2"))
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return !watching("read"), nil
	}); err != nil {
		t.Fatal("the watch of the Secret still runs after its last reader named another")
	}
}
