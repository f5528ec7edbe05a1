package controller

import (
	"context"
	"slices"
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

// TestUnionInformerHoldsWhatEitherSelectionHolds: a namespace covered by
// two informers (two label selections of Secrets) answers from either,
// lists and indexes each object once, and knows nothing of other
// namespaces.
func TestUnionInformerHoldsWhatEitherSelectionHolds(t *testing.T) {
	secret := func(name string, labels map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: labels}}
	}
	newInformer := func(objs ...*corev1.Secret) cache.SharedIndexInformer {
		inf := cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Secret{}, 0, cache.Indexers{})
		for _, o := range objs {
			if err := inf.GetIndexer().Add(o); err != nil {
				t.Fatal(err)
			}
		}
		return inf
	}
	both := secret("both", map[string]string{"credential": "x", "tls": "true"})
	credentials := newInformer(secret("token", map[string]string{"credential": "x"}), both)
	tls := newInformer(secret("cert", map[string]string{"tls": "true"}), both)
	view := NewUnionInformer[*corev1.Secret](corev1.Resource("secrets"), map[string][]cache.SharedIndexInformer{"ns": {credentials, tls}})
	if err := view.AddIndex("label", func(s *corev1.Secret) []string { return []string{s.Labels["tls"]} }); err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"token", "cert", "both"} {
		if _, err := view.Get("ns", name); err != nil {
			t.Errorf("Get(ns/%s): %v", name, err)
		}
	}
	if _, err := view.Get("ns", "unlabelled"); !apierrors.IsNotFound(err) {
		t.Errorf("Get of a Secret neither informer holds = %v, want NotFound", err)
	}
	if _, err := view.Get("elsewhere", "token"); !apierrors.IsNotFound(err) {
		t.Errorf("Get in an unwatched namespace = %v, want NotFound", err)
	}
	names := func(secrets []*corev1.Secret) []string {
		var out []string
		for _, s := range secrets {
			out = append(out, s.Name)
		}
		slices.Sort(out)
		return out
	}
	if got := names(view.List()); !slices.Equal(got, []string{"both", "cert", "token"}) {
		t.Errorf("List = %v, want each Secret once", got)
	}
	indexed, err := view.ByIndex("label", "true")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(indexed); !slices.Equal(got, []string{"both", "cert"}) {
		t.Errorf("ByIndex = %v, want both and cert once each", got)
	}
}

// recordingHandler records the events it is given, as "add name",
// "update name" and "delete name".
type recordingHandler struct {
	mu     sync.Mutex
	events []string
}

func (h *recordingHandler) OnAdd(s *corev1.Secret, _ bool) { h.record("add " + s.Name) }
func (h *recordingHandler) OnUpdate(_, s *corev1.Secret)   { h.record("update " + s.Name) }
func (h *recordingHandler) OnDelete(d cache.DeletedObject[*corev1.Secret]) {
	h.record("delete " + d.GetObjectName().Name)
}

func (h *recordingHandler) record(e string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, e)
}

func (h *recordingHandler) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

// TestHandlersShareOneRegistration: the handlers added before the informer
// passes on its first event share one registration with it, each given
// every event in order, and each synced once the initial list is passed
// on; a handler added after that gets a registration of its own, which
// starts with the objects already cached.
func TestHandlersShareOneRegistration(t *testing.T) {
	secret := func(name, rv string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	changes := watch.NewFake()
	inf := cache.NewSharedIndexInformer(&fakeListWatch{cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.SecretList{ListMeta: metav1.ListMeta{ResourceVersion: "2"}, Items: []corev1.Secret{*secret("a", "1"), *secret("b", "2")}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return changes, nil },
	}}, &corev1.Secret{}, 0, cache.Indexers{})
	view := NewInformer[*corev1.Secret](corev1.Resource("secrets"), map[string]cache.SharedIndexInformer{"ns": inf})
	early := []*recordingHandler{{}, {}, {}}
	var synced []func() bool
	for _, h := range early {
		s, err := view.AddEventHandler(h)
		if err != nil {
			t.Fatal(err)
		}
		synced = append(synced, s)
	}
	if fan := view.fanOuts.byInformer[inf]; fan == nil || len(fan.handlers) != len(early) {
		t.Fatalf("the early handlers do not share one registration: %+v", view.fanOuts.byInformer)
	}

	stop := make(chan struct{})
	defer close(stop)
	go inf.Run(stop)
	for i, s := range synced {
		if !cache.WaitForCacheSync(t.Context().Done(), s) {
			t.Fatalf("handler %d never synced", i)
		}
	}
	changes.Modify(secret("a", "3"))
	changes.Delete(secret("b", "4"))
	want := []string{"add a", "add b", "update a", "delete b"}
	waitFor := func(h *recordingHandler, want []string) {
		t.Helper()
		err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
			return len(h.seen()) >= len(want), nil
		})
		if got := h.seen(); err != nil || !slices.Equal(got, want) {
			t.Errorf("a handler saw %v, want %v", got, want)
		}
	}
	for _, h := range early {
		waitFor(h, want)
	}

	late := &recordingHandler{}
	lateSynced, err := view.AddEventHandler(late)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(view.fanOuts.byInformer[inf].handlers); n != len(early) {
		t.Errorf("a handler added after events were passed on joined the shared registration (%d handlers)", n)
	}
	if !cache.WaitForCacheSync(t.Context().Done(), lateSynced) {
		t.Fatal("the late handler never synced")
	}
	waitFor(late, []string{"add a"})
	changes.Add(secret("c", "5"))
	waitFor(late, []string{"add a", "add c"})
	for _, h := range early {
		waitFor(h, append(slices.Clone(want), "add c"))
	}
}

// fakeListWatch lists and watches from functions the test gives, from a
// fake watch the test drives.
type fakeListWatch struct {
	cache.ListWatch
}

// IsWatchListSemanticsUnSupported keeps the reflector to list then watch,
// which the fake serves.
func (fakeListWatch) IsWatchListSemanticsUnSupported() bool { return true }
