package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// in returns the environment working in another of its namespaces.
func (e *env) in(namespace string) *env {
	c := *e
	c.ns = namespace
	return &c
}

// grantKind is the group and kind of one side of a KongReferenceGrant.
type grantKind struct{ group, kind string }

// createGrant creates, in the test's namespace, a KongReferenceGrant
// letting from's kind in fromNamespace refer to to's kind (to the object
// called toName only, when it is not empty).
func (e *env) createGrant(name string, from grantKind, fromNamespace string, to grantKind, toName string) {
	e.t.Helper()
	grant := &configurationv1alpha1.KongReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongReferenceGrantSpec{
			From: []configurationv1alpha1.ReferenceGrantFrom{{Group: from.group, Kind: from.kind, Namespace: fromNamespace}},
			To:   []configurationv1alpha1.ReferenceGrantTo{{Group: to.group, Kind: to.kind}},
		},
	}
	if toName != "" {
		grant.Spec.To[0].Name = &toName
	}
	if _, err := e.cs.ConfigurationV1alpha1().KongReferenceGrants(e.ns).Create(e.ctx, grant, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) deleteGrant(name string) {
	e.t.Helper()
	if err := e.cs.ConfigurationV1alpha1().KongReferenceGrants(e.ns).Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

var (
	kindCP         = grantKind{"konnect.konghq.com", "KonnectGatewayControlPlane"}
	kindAuth       = grantKind{"konnect.konghq.com", "KonnectAPIAuthConfiguration"}
	kindSecret     = grantKind{"core", "Secret"}
	kindService    = grantKind{"configuration.konghq.com", "KongService"}
	kindRoute      = grantKind{"configuration.konghq.com", "KongRoute"}
	kindConsumer   = grantKind{"configuration.konghq.com", "KongConsumer"}
	kindGroup      = grantKind{"configuration.konghq.com", "KongConsumerGroup"}
	kindBinding    = grantKind{"configuration.konghq.com", "KongPluginBinding"}
	kindKongPlugin = grantKind{"configuration.konghq.com", "KongPlugin"}
)

// crossReference is one kind of reference into another namespace: an
// object in the other namespace refers to target in the home namespace.
type crossReference struct {
	name string
	// refer creates the referring object, called "x", in namespace b.
	refer func(b *env, home string)
	get   func(b *env) conditioned
	// refusedBy is the condition that reports a missing grant.
	refusedBy  string
	from, to   grantKind
	targetName string
	// usable says whether the reference works (Programmed, or a valid token).
	usable func(b *env) error
	// deleteNeedsIt says that deleting the referrer's entity uses the token
	// the reference reaches: without the grant, the referrer waits.
	deleteNeedsIt bool
}

func globalBinding(plugin *configurationv1alpha1.PluginRef, controlPlane *commonv1alpha1.ControlPlaneRef) *configurationv1alpha1.KongPluginBinding {
	return &configurationv1alpha1.KongPluginBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "x"},
		Spec: configurationv1alpha1.KongPluginBindingSpec{
			PluginRef:       *plugin,
			ControlPlaneRef: controlPlane,
			Scope:           configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane,
		},
	}
}

func crossReferences() []crossReference {
	programmedX := func(get func(b *env) conditioned) func(b *env) error {
		return func(b *env) error { return programmed(get(b)) }
	}
	getCP := func(b *env) conditioned { return b.controlPlane("x") }
	getAuth := func(b *env) conditioned { return b.authConfig("x") }
	getService := func(b *env) conditioned { return b.service("x") }
	getRoute := func(b *env) conditioned { return b.route("x") }
	getConsumer := func(b *env) conditioned { return b.consumer("x") }
	getGroup := func(b *env) conditioned { return b.consumerGroup("x") }
	getBinding := func(b *env) conditioned { return b.binding("x") }
	return []crossReference{
		{
			name: "KonnectGatewayControlPlane authRef", deleteNeedsIt: true, from: kindCP, to: kindAuth, targetName: "auth",
			refusedBy: commonv1alpha1.ConditionAPIAuthResolvedRef, get: getCP, usable: programmedX(getCP),
			refer: func(b *env, home string) {
				cp := b.controlPlaneObject("x", "auth")
				cp.Spec.Konnect.AuthRef.Namespace = &home
				if _, err := b.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(b.ns).Create(b.ctx, cp, metav1.CreateOptions{}); err != nil {
					b.t.Fatal(err)
				}
			},
		},
		{
			name: "KonnectAPIAuthConfiguration secretRef", from: kindAuth, to: kindSecret, targetName: "token",
			refusedBy: commonv1alpha1.ConditionResolvedRefs, get: getAuth,
			usable: func(b *env) error {
				return conditionIs(b.authConfig("x"), commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionTrue, commonv1alpha1.ReasonValid)
			},
			refer: func(b *env, home string) {
				ac := &konnectv1alpha1.KonnectAPIAuthConfiguration{
					ObjectMeta: metav1.ObjectMeta{Name: "x"},
					Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
						Type:      konnectv1alpha1.KonnectAPIAuthTypeSecretRef,
						SecretRef: &corev1.SecretReference{Name: "token", Namespace: home},
						ServerURL: b.sim.URL,
					},
				}
				if _, err := b.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(b.ns).Create(b.ctx, ac, metav1.CreateOptions{}); err != nil {
					b.t.Fatal(err)
				}
			},
		},
		{
			name: "KongService controlPlaneRef", deleteNeedsIt: true, from: kindService, to: kindCP, targetName: "cp",
			refusedBy: commonv1alpha1.ConditionResolvedRefs, get: getService, usable: programmedX(getService),
			refer: func(b *env, home string) {
				b.createService("x", func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = cpRefIn(home, "cp") })
			},
		},
		{
			name: "KongRoute controlPlaneRef", deleteNeedsIt: true, from: kindRoute, to: kindCP, targetName: "cp",
			refusedBy: commonv1alpha1.ConditionResolvedRefs, get: getRoute, usable: programmedX(getRoute),
			refer: func(b *env, home string) {
				b.createRoute("x", func(r *configurationv1alpha1.KongRoute) { r.Spec.ControlPlaneRef = cpRefIn(home, "cp") })
			},
		},
		{
			name: "KongConsumer controlPlaneRef", deleteNeedsIt: true, from: kindConsumer, to: kindCP, targetName: "cp",
			refusedBy: commonv1alpha1.ConditionResolvedRefs, get: getConsumer, usable: programmedX(getConsumer),
			refer: func(b *env, home string) {
				c := &configurationv1.KongConsumer{
					ObjectMeta: metav1.ObjectMeta{Name: "x"},
					Username:   "x",
					Spec:       configurationv1.KongConsumerSpec{ControlPlaneRef: cpRefIn(home, "cp")},
				}
				if _, err := b.cs.ConfigurationV1().KongConsumers(b.ns).Create(b.ctx, c, metav1.CreateOptions{}); err != nil {
					b.t.Fatal(err)
				}
			},
		},
		{
			name: "KongConsumerGroup controlPlaneRef", deleteNeedsIt: true, from: kindGroup, to: kindCP, targetName: "cp",
			refusedBy: commonv1alpha1.ConditionResolvedRefs, get: getGroup, usable: programmedX(getGroup),
			refer: func(b *env, home string) {
				g := &configurationv1beta1.KongConsumerGroup{
					ObjectMeta: metav1.ObjectMeta{Name: "x"},
					Spec:       configurationv1beta1.KongConsumerGroupSpec{Name: "x", ControlPlaneRef: cpRefIn(home, "cp")},
				}
				if _, err := b.cs.ConfigurationV1beta1().KongConsumerGroups(b.ns).Create(b.ctx, g, metav1.CreateOptions{}); err != nil {
					b.t.Fatal(err)
				}
			},
		},
		{
			name: "KongPluginBinding controlPlaneRef", deleteNeedsIt: true, from: kindBinding, to: kindCP, targetName: "cp",
			refusedBy: commonv1alpha1.ConditionResolvedRefs, get: getBinding, usable: programmedX(getBinding),
			refer: func(b *env, home string) {
				pb := globalBinding(&configurationv1alpha1.PluginRef{Name: "rate"}, cpRefIn(home, "cp"))
				if _, err := b.cs.ConfigurationV1alpha1().KongPluginBindings(b.ns).Create(b.ctx, pb, metav1.CreateOptions{}); err != nil {
					b.t.Fatal(err)
				}
			},
		},
		{
			name: "KongRoute serviceRef", deleteNeedsIt: true, from: kindRoute, to: kindService, targetName: "svc",
			refusedBy: commonv1alpha1.ConditionResolvedRefs, get: getRoute, usable: programmedX(getRoute),
			refer: func(b *env, home string) {
				b.createRoute("x", func(r *configurationv1alpha1.KongRoute) {
					r.Spec.ServiceRef = &configurationv1alpha1.ServiceRef{
						Type:          configurationv1alpha1.ServiceRefTypeNamespacedRef,
						NamespacedRef: &commonv1alpha1.NamespacedRef{Name: "svc", Namespace: home},
					}
				})
			},
		},
		{
			name: "KongPluginBinding pluginRef", from: kindBinding, to: kindKongPlugin, targetName: "rate",
			refusedBy: commonv1alpha1.ConditionPluginRefValid, get: getBinding, usable: programmedX(getBinding),
			refer: func(b *env, home string) {
				// Global in the other namespace's own control plane.
				pb := globalBinding(&configurationv1alpha1.PluginRef{Name: "rate", Namespace: home}, cpRef("cp"))
				if _, err := b.cs.ConfigurationV1alpha1().KongPluginBindings(b.ns).Create(b.ctx, pb, metav1.CreateOptions{}); err != nil {
					b.t.Fatal(err)
				}
			},
		},
	}
}

func (e *env) authConfig(name string) *konnectv1alpha1.KonnectAPIAuthConfiguration {
	e.t.Helper()
	ac, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return ac
}

// deleteGet deletes, and reads, the referring object "x" of a case.
type deleteGet struct {
	del func() error
	get func() error
}

// deleteX deletes the referring object "x" of a case, whatever its kind,
// and waits until it is gone.
func (e *env) deleteX(kind string) {
	e.t.Helper()
	op := e.xOps(kind)
	if err := op.del(); err != nil {
		e.t.Fatal(err)
	}
	e.eventually(kind+" x deleted", func() error {
		if err := op.get(); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %w", err)
		}
		return nil
	})
}

// xOps are the delete and the read of the referring object "x" of a case.
func (e *env) xOps(kind string) deleteGet {
	e.t.Helper()
	opts, ctx := metav1.DeleteOptions{}, e.ctx
	ops := map[string]deleteGet{
		"KonnectGatewayControlPlane": {
			func() error { return e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Delete(ctx, "x", opts) },
			func() error {
				_, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Get(ctx, "x", metav1.GetOptions{})
				return err
			}},
		"KonnectAPIAuthConfiguration": {
			func() error { return e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Delete(ctx, "x", opts) },
			func() error {
				_, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Get(ctx, "x", metav1.GetOptions{})
				return err
			}},
		"KongService": {
			func() error { return e.cs.ConfigurationV1alpha1().KongServices(e.ns).Delete(ctx, "x", opts) },
			func() error {
				_, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(ctx, "x", metav1.GetOptions{})
				return err
			}},
		"KongRoute": {
			func() error { return e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Delete(ctx, "x", opts) },
			func() error {
				_, err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Get(ctx, "x", metav1.GetOptions{})
				return err
			}},
		"KongConsumer": {
			func() error { return e.cs.ConfigurationV1().KongConsumers(e.ns).Delete(ctx, "x", opts) },
			func() error {
				_, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Get(ctx, "x", metav1.GetOptions{})
				return err
			}},
		"KongConsumerGroup": {
			func() error { return e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Delete(ctx, "x", opts) },
			func() error {
				_, err := e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Get(ctx, "x", metav1.GetOptions{})
				return err
			}},
		"KongPluginBinding": {
			func() error { return e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).Delete(ctx, "x", opts) },
			func() error {
				_, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).Get(ctx, "x", metav1.GetOptions{})
				return err
			}},
	}
	op, ok := ops[kind]
	if !ok {
		e.t.Fatalf("no delete for %s", kind)
	}
	return op
}

// refused waits until obj reports the missing grant for the reference.
func (e *env) refused(ref crossReference, home string) {
	e.t.Helper()
	e.eventually(ref.name+" refused", func() error {
		obj := ref.get(e)
		if err := conditionIs(obj, ref.refusedBy, metav1.ConditionFalse, commonv1alpha1.ReasonRefNotPermitted); err != nil {
			return err
		}
		message := meta.FindStatusCondition(obj.GetConditions(), ref.refusedBy).Message
		for _, want := range []string{"KongReferenceGrant", ref.to.kind + " " + home + "/" + ref.targetName, "kind: " + ref.from.kind, "namespace: " + e.ns} {
			if !strings.Contains(message, want) {
				return fmt.Errorf("message %q does not mention %q", message, want)
			}
		}
		if ref.usable(e) == nil {
			return fmt.Errorf("%s is usable without a grant", ref.name)
		}
		return nil
	})
}

func TestKongReferenceGrants(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{otherNamespace: true})
	home, other := e.ns, e.other
	// Home: the targets.
	e.ready()
	e.createService("svc")
	e.programmedService("svc")
	e.createPlugin("rate", "rate-limiting", `{"minute": 5}`)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "token", Labels: map[string]string{commonv1alpha1.LabelCredential: "konnect"}},
		Data:       map[string][]byte{"token": []byte(testToken)},
	}
	if _, err := e.kube.CoreV1().Secrets(home).Create(e.ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The other namespace: its own control plane and plugin, for the
	// references that do not cross.
	b := e.in(other)
	b.createAuthConfig("auth")
	b.createControlPlane("cp", "auth")
	b.programmedControlPlane("cp")
	b.createPlugin("rate", "rate-limiting", `{"minute": 5}`)

	for _, ref := range crossReferences() {
		t.Run(ref.name, func(t *testing.T) {
			e, b := e.with(t), b.with(t)
			before := e.sim.Count(e.orgID)
			ref.refer(b, home)
			b.refused(ref, home)
			if n := e.sim.Count(e.orgID); n != before {
				t.Fatalf("a refused reference changed Konnect (%d entities, was %d)", n, before)
			}

			// A grant for another object of the target kind does not help.
			e.createGrant("wrong-name", ref.from, other, ref.to, "someone-else")
			b.stays("a grant naming another object allows nothing", func() error {
				if ref.usable(b) == nil {
					return fmt.Errorf("%s became usable", ref.name)
				}
				return nil
			})

			// The right grant fixes the reference; the referrer is not touched.
			generation := ref.get(b).GetGeneration()
			e.createGrant("allow", ref.from, other, ref.to, ref.targetName)
			b.eventually(ref.name+" usable once granted", func() error { return ref.usable(b) })
			if ref.refusedBy == commonv1alpha1.ConditionResolvedRefs {
				if err := conditionIs(ref.get(b), commonv1alpha1.ConditionResolvedRefs, metav1.ConditionTrue, commonv1alpha1.ReasonResolvedRefs); err != nil {
					t.Fatal(err)
				}
			}
			if g := ref.get(b).GetGeneration(); g != generation {
				t.Fatalf("the referrer changed (generation %d -> %d)", generation, g)
			}

			// Revoking the grant stops the syncing, and deletes nothing.
			granted := e.sim.Count(e.orgID)
			e.deleteGrant("allow")
			b.refused(ref, home)
			if n := e.sim.Count(e.orgID); n != granted {
				t.Fatalf("revoking the grant changed Konnect (%d entities, was %d)", n, granted)
			}

			// Deleting the referrer needs the grant when the delete uses the
			// token the reference reaches: nothing is sent without it, the
			// referrer says so and waits; the grant restored, it goes.
			if ref.deleteNeedsIt {
				b.deleteWithoutGrant(ref, func() int { return e.sim.Count(e.orgID) })
				e.createGrant("allow", ref.from, other, ref.to, ref.targetName)
				b.eventually(ref.name+": deleted once granted again", func() error {
					if err := b.xOps(ref.from.kind).get(); !apierrors.IsNotFound(err) {
						return fmt.Errorf("still there: %w", err)
					}
					return nil
				})
			} else {
				b.deleteX(ref.from.kind)
			}
			if n := e.sim.Count(e.orgID); n != before {
				t.Fatalf("%d entities left in Konnect, want %d", n, before)
			}
			if ref.deleteNeedsIt {
				e.deleteGrant("allow")
			}
			e.deleteGrant("wrong-name")
		})
	}
}

// deleteWithoutGrant deletes the referrer "x" of a case whose grant was
// revoked, and checks that it stays, with Konnect untouched, saying why and
// how to go on (restore the grant, or orphan) in Programmed and a Warning.
func (e *env) deleteWithoutGrant(ref crossReference, count func() int) {
	e.t.Helper()
	before := count()
	obj := ref.get(e)
	kind := ref.from.kind
	if err := e.xOps(kind).del(); err != nil {
		e.t.Fatal(err)
	}
	e.eventually(ref.name+": the delete waits for the grant", func() error {
		obj = ref.get(e)
		if obj.GetDeletionTimestamp() == nil {
			return fmt.Errorf("not being deleted yet")
		}
		c := meta.FindStatusCondition(obj.GetConditions(), commonv1alpha1.ConditionProgrammed)
		if c == nil || c.Reason != controller.ReasonCannotDelete {
			return fmt.Errorf("Programmed is %+v, want reason %s", c, controller.ReasonCannotDelete)
		}
		for _, want := range []string{"KongReferenceGrant", commonv1alpha1.AnnotationDeletionPolicy + "=orphan"} {
			if !strings.Contains(c.Message, want) {
				return fmt.Errorf("the message %q does not say %q", c.Message, want)
			}
		}
		return nil
	})
	e.eventuallyEvent(kind, "x", corev1.EventTypeWarning, controller.ReasonCannotDelete)
	e.stays(ref.name+" kept, and Konnect untouched, without the grant", func() error {
		if !slices.Contains(ref.get(e).GetFinalizers(), commonv1alpha1.FinalizerKonnectCleanup) {
			return fmt.Errorf("the cleanup finalizer went")
		}
		if n := count(); n != before {
			return fmt.Errorf("Konnect holds %d entities, had %d", n, before)
		}
		return nil
	})
}
