package controller

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/generated/clientset/versioned/fake"
	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

func serviceOn(name, controlPlane string, finalizers ...string) *configurationv1alpha1.KongService {
	return &configurationv1alpha1.KongService{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Finalizers: finalizers},
		Spec: configurationv1alpha1.KongServiceSpec{ControlPlaneRef: &commonv1alpha1.ControlPlaneRef{
			Type:                 commonv1alpha1.ControlPlaneRefKonnectNamespacedRef,
			KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: controlPlane},
		}},
	}
}

func TestReferrersAreFoundAndTheirChangesReported(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewSimpleClientset(
		&konnectv1alpha2.KonnectGatewayControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cp"}},
		serviceOn("a", "cp", commonv1alpha1.FinalizerKonnectCleanup),
		serviceOn("b", "elsewhere"),
	)
	factory := externalversions.NewSharedInformerFactory(client, 0)
	cps := NewInformer[*konnectv1alpha2.KonnectGatewayControlPlane](konnectv1alpha2.Resource("konnectgatewaycontrolplanes"),
		map[string]cache.SharedIndexInformer{"": factory.Konnect().V1alpha2().KonnectGatewayControlPlanes().Informer()})
	services := NewInformer[*configurationv1alpha1.KongService](configurationv1alpha1.Resource("kongservices"),
		map[string]cache.SharedIndexInformer{"": factory.Configuration().V1alpha1().KongServices().Informer()})

	c, err := New("KongService", services, ReconcilerFunc(func(context.Context, cache.ObjectName) (Result, error) { return Result{}, nil }), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Watch(Dependency[*configurationv1alpha1.KongService]{
		Name:   "controlPlane",
		Source: cps,
		Keys: func(s *configurationv1alpha1.KongService) []string {
			return []string{"ns/" + s.Spec.ControlPlaneRef.KonnectNamespacedRef.Name}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan string, 16)
	cps.OnReferrersChanged(func(key string) { changed <- key })
	factory.Start(ctx.Done())
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.HasSynced) {
		t.Fatal("caches did not sync")
	}

	referrers := func(dependency string) []string {
		t.Helper()
		found, err := cps.Referrers("ns/cp", dependency)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range found {
			names = append(names, r.Kind+" "+r.Object.GetName())
		}
		return names
	}
	if got := referrers("controlPlane"); len(got) != 1 || got[0] != "KongService a" {
		t.Fatalf("referrers of ns/cp = %v, want [KongService a]", got)
	}
	if got := referrers("members"); len(got) != 0 {
		t.Fatalf("referrers through another dependency = %v, want none", got)
	}

	expect := func(what, key string) {
		t.Helper()
		select {
		case got := <-changed:
			if got != key {
				t.Fatalf("%s: notified for %q, want %q", what, got, key)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: no notification", what)
		}
	}
	expectNone := func(what string) {
		t.Helper()
		select {
		case got := <-changed:
			t.Fatalf("%s: unexpected notification for %q", what, got)
		case <-time.After(300 * time.Millisecond):
		}
	}
	serviceClient := client.ConfigurationV1alpha1().KongServices("ns")

	labelled := serviceOn("a", "cp", commonv1alpha1.FinalizerKonnectCleanup)
	labelled.Labels = map[string]string{"x": "y"}
	if _, err := serviceClient.Update(ctx, labelled, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectNone("a label change")

	if _, err := serviceClient.Update(ctx, serviceOn("a", "cp"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("a referrer dropping its finalizer", "ns/cp")

	if _, err := serviceClient.Update(ctx, serviceOn("b", "cp"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the old and the new key, in either order
		select {
		case <-changed:
		case <-time.After(time.Minute):
			t.Fatal("a referrer changing its reference: missing notification")
		}
	}

	if err := serviceClient.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("a deleted referrer", "ns/cp")
}
