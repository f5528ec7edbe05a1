package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// The disaster-recovery tests build a world of objects of every kind that
// has Konnect entities, lose the cluster's copy of it (every object deleted
// with its finalizers taken off first, so that nothing reaches Konnect, as
// when a cluster is lost), and apply it again as Git or a backup holds it:
// the same names, labels, annotations and specs, without status, with new
// UIDs and creation times.

// worldVault is the name of the world's KongVault, which has no namespace.
func (e *env) worldVault() string { return e.ns + "-vault" }

// buildWorld creates, on the control plane "cp" (a cloud one when cloud is
// set), one object of every kind that has Konnect entities: named and
// unnamed services and routes (one route on the control plane itself), a
// consumer group, two consumers, a credential of every type, a plugin
// binding, an upstream and its target, a certificate and its SNI, a CA
// certificate, a key set and a key, a vault, a data-plane certificate,
// and with cloud a network, a transit gateway and a data-plane group
// configuration. It waits until all are Programmed and returns the control
// plane's ID.
func (e *env) buildWorld(cloud bool) string {
	e.t.Helper()
	e.createAuthConfig("auth")
	if cloud {
		e.createCloudControlPlane("cp", "auth", true)
	} else {
		e.createControlPlane("cp", "auth")
	}
	e.createService("svc-a")
	e.createService("svc-b")
	e.createService("svc-unnamed", func(s *configurationv1alpha1.KongService) { s.Spec.Name = "" })
	e.createRoute("route-a", withService("svc-a"))
	e.createRoute("route-unnamed", withService("svc-unnamed"), func(r *configurationv1alpha1.KongRoute) { r.Spec.Name = "" })
	e.createRoute("route-on-cp", func(r *configurationv1alpha1.KongRoute) {
		r.Spec.Name, r.Spec.ControlPlaneRef = "", cpRef("cp")
	})
	e.createConsumerGroup("gold")
	e.createConsumer("alice", "gold")
	e.createConsumer("bob")
	for _, c := range credentialCases() {
		name := strings.ToLower(c.kind)
		c.create(e, name, "alice", name+"-v1", nil)
	}
	e.createPlugin("rate", "rate-limiting", `{"minute": 5}`)
	e.createBinding("rate-svc-a", "rate", func(b *configurationv1alpha1.KongPluginBinding) {
		b.Spec.Targets = &configurationv1alpha1.KongPluginBindingTargets{
			ServiceRef: &configurationv1alpha1.TargetRefWithGroupKind{Name: "svc-a", Kind: "KongService", Group: "configuration.konghq.com"},
		}
	})
	upstreams.create(e, upstreamObject("up"))
	targets.create(e, targetObject("target", "up"))
	certificates.create(e, certificates.object(e, "cert"))
	snis.create(e, sniObject("sni", "cert"))
	caCertificates.create(e, caCertificates.object(e, "ca"))
	keySets.create(e, keySets.object(e, "keys"))
	keys.create(e, keys.object(e, "key"))
	vaults.setup(e)
	vaults.create(e, vaults.object(e, e.worldVault()))
	dpCertificates.create(e, dpCertificates.object(e, "dp"))
	if cloud {
		e.createNetwork("net", "auth")
		e.createTransitGateway("tgw", "net")
		e.createConfiguration("dcgw", "cp", namespacedNetwork("net"))
	}
	var cpID string
	e.eventually("the world Programmed", func() error {
		cpID = e.controlPlane("cp").Status.ID
		_, err := e.worldIDs()
		return err
	})
	return cpID
}

// unprogrammed are the resources of the operator's kinds whose objects
// stand for no Konnect entity.
var unprogrammed = []string{"konnectapiauthconfigurations", "kongplugins", "kongclusterplugins", "kongreferencegrants"}

// worldObject is one object of the world as the API server holds it.
type worldObject struct {
	gvr schema.GroupVersionResource
	obj unstructured.Unstructured
}

// key names the object in failures and maps: resource/name.
func (o worldObject) key() string { return o.gvr.Resource + "/" + o.obj.GetName() }

// entityID is the Konnect ID its status records.
func (o worldObject) entityID() string {
	if id, _, _ := unstructured.NestedString(o.obj.Object, "status", "konnect", "id"); id != "" {
		return id
	}
	id, _, _ := unstructured.NestedString(o.obj.Object, "status", "id")
	return id
}

// standsForEntity reports whether the object stands for a Konnect entity.
func (o worldObject) standsForEntity() bool { return !slices.Contains(unprogrammed, o.gvr.Resource) }

// worldObjects lists the objects of the operator's kinds in the test's
// namespace, and the world's vault.
func (e *env) worldObjects() []worldObject {
	e.t.Helper()
	resources, err := operatorResources()
	if err != nil {
		e.t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(e.restConfig())
	var out []worldObject
	for _, gvr := range resources {
		list, err := dyn.Resource(gvr).Namespace(e.ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			e.t.Fatal(err)
		}
		for _, item := range list.Items {
			out = append(out, worldObject{gvr: gvr, obj: item})
		}
	}
	vaultGVR := schema.GroupVersionResource{Group: configurationv1alpha1.GroupVersion.Group, Version: configurationv1alpha1.GroupVersion.Version, Resource: "kongvaults"}
	if vault, err := dyn.Resource(vaultGVR).Get(e.ctx, e.worldVault(), metav1.GetOptions{}); err == nil {
		out = append(out, worldObject{gvr: vaultGVR, obj: *vault})
	} else if !apierrors.IsNotFound(err) {
		e.t.Fatal(err)
	}
	return out
}

// worldIDs returns the Konnect ID of every object of the world that stands
// for an entity, by worldObject.key, or an error naming one that is not
// Programmed at its generation.
func (e *env) worldIDs() (map[string]string, error) {
	ids := map[string]string{}
	for _, o := range e.worldObjects() {
		if !o.standsForEntity() {
			continue
		}
		if err := programmedObject(o.obj); err != nil {
			return nil, fmt.Errorf("%s: %w", o.key(), err)
		}
		ids[o.key()] = o.entityID()
	}
	return ids, nil
}

// programmedObject checks Programmed=True at the object's generation.
func programmedObject(obj unstructured.Unstructured) error {
	c := programmedConditionOf(obj)
	switch {
	case c == nil:
		return fmt.Errorf("no Programmed condition")
	case c["status"] != string(metav1.ConditionTrue):
		return fmt.Errorf("Programmed is %v/%v: %v", c["status"], c["reason"], c["message"])
	case fmt.Sprint(c["observedGeneration"]) != fmt.Sprint(obj.GetGeneration()):
		return fmt.Errorf("Programmed observed generation %v, object at %d", c["observedGeneration"], obj.GetGeneration())
	}
	return nil
}

func programmedConditionOf(obj unstructured.Unstructured) map[string]any {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == "Programmed" {
			return m
		}
	}
	return nil
}

// manifest is an object as Git or a backup without status holds it.
type manifest struct {
	gvr schema.GroupVersionResource
	obj *unstructured.Unstructured
}

// loseWorld stops the operator and deletes every object of the world from
// the cluster, taking the finalizers off first, so that Konnect keeps every
// entity, as when a cluster is lost; it returns the objects as manifests.
func (e *env) loseWorld() []manifest {
	e.t.Helper()
	e.stopOperator()
	dyn := dynamic.NewForConfigOrDie(e.restConfig())
	var manifests []manifest
	for _, o := range e.worldObjects() {
		manifests = append(manifests, manifest{gvr: o.gvr, obj: asManifest(o.obj)})
		client := dyn.Resource(o.gvr).Namespace(o.obj.GetNamespace())
		if len(o.obj.GetFinalizers()) > 0 {
			patch := []byte(`{"metadata":{"finalizers":null}}`)
			if _, err := client.Patch(e.ctx, o.obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				e.t.Fatal(err)
			}
		}
		if err := client.Delete(e.ctx, o.obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			e.t.Fatal(err)
		}
	}
	err := wait.PollUntilContextTimeout(e.ctx, pollPeriod, waitLimit, true, func(context.Context) (bool, error) {
		return len(e.worldObjects()) == 0, nil
	})
	if err != nil {
		e.t.Fatalf("the world's objects were not deleted: %v", err)
	}
	return manifests
}

// asManifest keeps of obj what a manifest applied again carries: its
// name, namespace, labels and annotations, and everything but its status.
func asManifest(obj unstructured.Unstructured) *unstructured.Unstructured {
	out := &unstructured.Unstructured{Object: map[string]any{}}
	for k, v := range obj.Object {
		if k != "status" && k != "metadata" {
			out.Object[k] = v
		}
	}
	out.SetName(obj.GetName())
	out.SetNamespace(obj.GetNamespace())
	out.SetLabels(obj.GetLabels())
	out.SetAnnotations(obj.GetAnnotations())
	return out
}

// restoreWorld applies the manifests again, as Argo CD, Flux or Velero do.
func (e *env) restoreWorld(manifests []manifest) {
	e.t.Helper()
	dyn := dynamic.NewForConfigOrDie(e.restConfig())
	for _, m := range manifests {
		if _, err := dyn.Resource(m.gvr).Namespace(m.obj.GetNamespace()).Create(e.ctx, m.obj.DeepCopy(), metav1.CreateOptions{}); err != nil {
			e.t.Fatalf("applying %s %s again: %v", m.gvr.Resource, m.obj.GetName(), err)
		}
	}
}

// within checks, once the operator has done what it can at once and after
// each of up to periods sync periods, until check passes; it fails the
// test if it never does.
func (e *env) within(periods int, period time.Duration, what string, check func() error) {
	e.t.Helper()
	for i := 0; ; i++ {
		e.settle()
		err := check()
		if err == nil {
			return
		}
		if i == periods {
			e.t.Fatalf("%s: not within %d sync periods: %v", what, periods, err)
		}
		e.clock.Step(period)
	}
}

// sameIDs checks that the world is Programmed with the IDs it had.
func (e *env) sameIDs(before map[string]string) error {
	after, err := e.worldIDs()
	if err != nil {
		return err
	}
	for key, id := range before {
		if after[key] != id {
			return fmt.Errorf("%s has ID %q, had %q", key, after[key], id)
		}
	}
	if len(after) != len(before) {
		return fmt.Errorf("%d objects with entities, had %d", len(after), len(before))
	}
	return nil
}
