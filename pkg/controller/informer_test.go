package controller

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
