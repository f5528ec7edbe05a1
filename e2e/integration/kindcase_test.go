package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// Every kind the operator makes Konnect entities of is driven through one
// harness: kindCase says, for one kind, how to make a valid object, change
// it, and recognise the change in its Konnect entity; the tests below then
// walk the same lifecycle (create, change, drift overwritten within one
// sync period, delete) and adoption modes for every kind, each kind in an
// environment of its own (Test<Kind> in the kind's file), or a few kinds
// of one family one after the other in one (testTogether: the core kinds,
// the credentials), as an environment costs seconds. Each kind's own
// references, orderings, Secrets and grants are tested in its own file.
//
// Where kinds differ, an optional field says so rather than a branch of
// the tests: kinds without a control plane of their own (a control plane,
// a network, the Portal kinds) or under another parent (a credential under
// its consumer, a target under its upstream, a configuration under its
// cloud control plane) say so in setup and object; kinds whose entities
// carry no tags (untagged), carry labels (labelled), live in Konnect's
// newer APIs (lookup) or stay after deletion (resetOnDelete) say how to
// find and judge them; a kind whose spec cannot change once Programmed (a
// network) has no change.
//
// Two of the operator's kinds make no Konnect entity of their own and so
// cannot go through the harness: a KonnectAPIAuthConfiguration only holds
// the token the others use (tokensecret_test.go), and a KongPlugin or
// KongClusterPlugin reaches Konnect only through its KongPluginBindings
// (pluginbinding_test.go, clusterplugin_test.go). KonnectGatewayControlPlane
// goes through the lifecycle but not adoption: it has no spec.adopt, an
// existing control plane is taken by mirroring it (mirror_test.go).

// objectClient is what a generated typed client offers for one kind.
type objectClient[T any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// konnectObject is an object of a Konnect entity kind.
type konnectObject interface {
	conditioned
	KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus
}

// kindCase says how the tests drive one Konnect entity kind.
type kindCase[T konnectObject] struct {
	kind string
	// collection is where the simulator keeps the entities; path is a
	// fragment of the API paths that write them, for counting calls.
	collection, path string
	clusterScoped    bool
	// untagged kinds carry no tags in Konnect, so no identity either.
	untagged bool
	client   func(e *env) objectClient[T]
	// setup creates what object's references need, once the control plane
	// "cp" is Programmed.
	setup func(e *env)
	// object returns a valid object named name.
	object func(e *env, name string) T
	// setControlPlane points the object at another control plane; nil for
	// kinds that inherit theirs.
	setControlPlane func(obj T, ref *commonv1alpha1.ControlPlaneRef)
	// change changes the spec (nil when the kind cannot change once
	// Programmed); changed checks that an entity shows the change.
	change  func(obj T)
	changed func(ent map[string]any) error
	// drift changes the entity behind the operator's back, undoing what
	// changed checks.
	drift func(e *env, cpID string, ent map[string]any)
	// adopt sets spec.adopt.
	adopt func(obj T, opts *commonv1alpha1.AdoptOptions)
	// seed puts an entity into Konnect behind the operator's back, one that
	// object(name) matches or one that differs from it, and returns its ID.
	seed func(e *env, cpID, name string, matching bool) string
	// lookup, when set, finds obj's entity for a kind of Konnect's newer
	// APIs (portals, config stores), which the simulator keeps apart from
	// the core entities; collection and path still name its calls.
	lookup func(e *env, cpID string, obj T) (map[string]any, bool)
	// labelled kinds carry their identity as labels rather than tags.
	labelled bool
	// alwaysThere kinds have an entity before their object (a portal's
	// customization): a new object takes it (an Event TookBack) instead of
	// creating one.
	alwaysThere bool
	// resetOnDelete, when set, checks the entity once its object is
	// deleted, instead of expecting it gone: a portal's customization
	// stays, with Konnect's defaults, and a control plane's data-plane group
	// configuration, without groups.
	resetOnDelete func(ent map[string]any) error
	// differs, when set, is the field that match mode's refusal of the
	// entity seed made to differ must name.
	differs string
	// overridden, when set, checks what override wrote besides the tags:
	// what seed made differ outside the entity (a consumer's groups).
	overridden func(e *env, cpID string, obj T) error
	// options are the environment the kind needs (the cloud-gateway
	// kinds: a simulator with provider accounts); the zero value is the
	// default environment.
	options envOptions
}

func (k kindCase[T]) objName(e *env, name string) string {
	if k.clusterScoped {
		return e.ns + "-" + name // cluster-wide names must not clash between tests
	}
	return name
}

func (k kindCase[T]) create(e *env, obj T) {
	e.t.Helper()
	if _, err := k.client(e).Create(e.ctx, obj, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	if k.clusterScoped {
		// The namespace's deletion does not reach it: delete it while the
		// operator still runs, before the namespace goes.
		name := obj.GetName()
		e.t.Cleanup(func() { k.deleteAndWait(e, name) })
	}
}

func (k kindCase[T]) get(e *env, name string) T {
	e.t.Helper()
	obj, err := k.client(e).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return obj
}

func (k kindCase[T]) update(e *env, name string, change func(T)) {
	e.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj, err := k.client(e).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(obj)
		_, err = k.client(e).Update(e.ctx, obj, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (k kindCase[T]) programmed(e *env, name string) T {
	e.t.Helper()
	var obj T
	e.eventually(k.kind+" "+name+" Programmed", func() error {
		obj = k.get(e, name)
		return programmed(obj)
	})
	return obj
}

// condition waits until the named object's condition has the given status
// and reason.
func (k kindCase[T]) condition(e *env, name, conditionType string, status metav1.ConditionStatus, reason string) T {
	e.t.Helper()
	var obj T
	e.eventually(fmt.Sprintf("%s %s: %s=%s/%s", k.kind, name, conditionType, status, reason), func() error {
		obj = k.get(e, name)
		return conditionIs(obj, conditionType, status, reason)
	})
	return obj
}

// refused waits until a reference condition is False with reason and the
// object is not Programmed because of it: the reference is refused or
// invalid as the object names it, and only a change fixes it.
func (k kindCase[T]) refused(e *env, name, conditionType, reason string) T {
	e.t.Helper()
	k.condition(e, name, conditionType, metav1.ConditionFalse, reason)
	return k.condition(e, name, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonConditionWithStatusFalseExists)
}

// waiting waits until a reference condition is False with reason and the
// object waits for the reference: it does not exist yet, or is on its way
// to Konnect.
func (k kindCase[T]) waiting(e *env, name, conditionType, reason string) T {
	e.t.Helper()
	k.condition(e, name, conditionType, metav1.ConditionFalse, reason)
	return k.condition(e, name, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonWaitingForReferences)
}

func (k kindCase[T]) entity(e *env, cpID string, obj T) (map[string]any, error) {
	id := obj.KonnectStatus(false).GetKonnectID()
	if k.lookup != nil {
		if ent, ok := k.lookup(e, cpID, obj); ok {
			return ent, nil
		}
	} else if ent, ok := e.entity(cpID, k.collection, id); ok {
		return ent, nil
	}
	return nil, fmt.Errorf("%s %q of %s is not in Konnect", k.collection, id, obj.GetName())
}

func (k kindCase[T]) deleteAndWait(e *env, name string) {
	e.t.Helper()
	ctx := context.WithoutCancel(e.ctx)
	if err := k.client(e).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		e.t.Errorf("deleting %s %s: %v", k.kind, name, err)
		return
	}
	err := wait.PollUntilContextTimeout(ctx, pollPeriod, patience, true, func(ctx context.Context) (bool, error) {
		_, err := k.client(e).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		e.t.Errorf("%s %s was not deleted: %v", k.kind, name, err)
	}
}

// controlPlaneReferrer is a kind with a control-plane reference of its
// own, seen without its Go type.
type controlPlaneReferrer interface {
	kindName() string
	createReferring(e *env, name string, ref *commonv1alpha1.ControlPlaneRef)
	read(e *env, name string) konnectObject
}

func (k kindCase[T]) kindName() string { return k.kind }

func (k kindCase[T]) createReferring(e *env, name string, ref *commonv1alpha1.ControlPlaneRef) {
	e.t.Helper()
	obj := k.object(e, name)
	k.setControlPlane(obj, ref)
	k.create(e, obj)
}

func (k kindCase[T]) read(e *env, name string) konnectObject { return k.get(e, name) }

// programmedIn waits until an object read by get (typically from another
// namespace) is Programmed.
func (e *env) programmedIn(ns, kind string, get func() (konnectObject, error)) {
	e.t.Helper()
	e.eventually(kind+" in "+ns+" Programmed", func() error {
		obj, err := get()
		if err != nil {
			return err
		}
		return programmed(obj)
	})
}

// use makes the environment report to t, a subtest, until the returned
// function restores the parent (subtests run one after the other).
func (e *env) use(t *testing.T) (restore func()) {
	parent := e.t
	e.t = t
	return func() { e.t = parent }
}

// test runs the adoption cases and then the lifecycle of one kind, in an
// environment of its own.
func (k kindCase[T]) test(t *testing.T) {
	t.Parallel()
	e := newEnv(t, k.options)
	k.run(t, e, e.ready())
}

// harnessed is a kind of the harness, seen without its Go type.
type harnessed interface {
	kindName() string
	run(t *testing.T, e *env, cpID string)
}

// testTogether runs kinds one after the other in one environment of the
// default options: kinds whose setups agree (the credentials of one
// consumer) share the environment's cost, a namespace and an operator.
func testTogether(t *testing.T, kinds ...harnessed) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	for _, k := range kinds {
		t.Run(k.kindName(), func(t *testing.T) {
			defer e.use(t)()
			k.run(t, e, cpID)
		})
	}
}

// run runs the adoption cases and then the lifecycle of the kind in e.
func (k kindCase[T]) run(t *testing.T, e *env, cpID string) {
	if k.setup != nil {
		k.setup(e)
	}
	if k.adopt != nil {
		t.Run("adoption", func(t *testing.T) {
			defer e.use(t)()
			k.testAdoption(t, e, cpID)
		})
	}
	t.Run("lifecycle", func(t *testing.T) {
		defer e.use(t)()
		k.testLifecycle(t, e, cpID)
	})
}

// testLifecycle: the object is created with its identity tags, a spec
// change reaches Konnect at once (the sync period is an hour), a change
// made in Konnect is overwritten within one sync period, the next period
// writes nothing, and deleting the object deletes the entity.
func (k kindCase[T]) testLifecycle(t *testing.T, e *env, cpID string) {
	name := k.objName(e, "obj")
	k.create(e, k.object(e, name))
	obj := k.programmed(e, name)
	ent, err := k.entity(e, cpID, obj)
	if err != nil {
		t.Fatal(err)
	}
	if !k.untagged {
		tags := tagsOf(ent)
		if k.labelled {
			tags = labelsOf(ent)
		}
		for _, want := range []string{"k8s-uid:" + string(obj.GetUID()), "k8s-kind:" + k.kind, "k8s-name:" + name} {
			if !slices.Contains(tags, want) {
				t.Errorf("Konnect tags (or labels) %v lack %q", tags, want)
			}
		}
	}
	if !k.clusterScoped {
		reason := "Created"
		if k.alwaysThere {
			reason = "TookBack"
		}
		e.eventuallyEvent(k.kind, name, corev1.EventTypeNormal, reason)
	}

	if k.change != nil {
		k.update(e, name, k.change)
		e.eventually("the change reaches Konnect", func() error {
			ent, err := k.entity(e, cpID, k.get(e, name))
			if err != nil {
				return err
			}
			return k.changed(ent)
		})
	}

	// Drift: an object whose entity is changed in Konnect has nothing but
	// the sync period to make the operator write it again.
	const period = time.Hour // the environment's
	drifting := k.objName(e, "drifting")
	fresh := k.object(e, drifting)
	if k.change != nil {
		k.change(fresh)
	}
	k.create(e, fresh)
	ent, err = k.entity(e, cpID, k.programmed(e, drifting))
	if err != nil {
		t.Fatal(err)
	}
	if err := k.changed(ent); err != nil {
		t.Fatal(err)
	}
	e.settle()
	k.drift(e, cpID, ent)
	if drifted, err := k.entity(e, cpID, k.get(e, drifting)); err == nil && k.changed(drifted) == nil {
		t.Fatal("the drift did not change what the test checks")
	}
	// Within one sync period: the clock moves one period on, no more.
	e.step(period)
	e.eventually("the drift is overwritten", func() error {
		ent, err := k.entity(e, cpID, k.get(e, drifting))
		if err != nil {
			return err
		}
		return k.changed(ent)
	})
	// Written only on a real difference: a sync period that finds every
	// entity as its object says writes nothing.
	before := e.sim.Calls()
	e.step(period)
	var wrote []string
	for op, n := range e.sim.Calls() {
		if !strings.HasPrefix(op, "GET ") && n != before[op] {
			wrote = append(wrote, fmt.Sprintf("%s ×%d", op, n-before[op]))
		}
	}
	if len(wrote) > 0 {
		t.Errorf("a sync period with nothing changed wrote to Konnect: %v, want nothing", wrote)
	}

	obj = k.get(e, name)
	k.deleteAndWait(e, name)
	ent, err = k.entity(e, cpID, obj)
	switch {
	case k.resetOnDelete != nil && err != nil:
		t.Fatalf("the entity is gone from Konnect: %v", err)
	case k.resetOnDelete != nil:
		if err := k.resetOnDelete(ent); err != nil {
			t.Fatalf("the object was deleted, Konnect's defaults were not written back: %v", err)
		}
	case err == nil:
		t.Fatalf("the entity is still in Konnect after the object was deleted: %v", ent)
	}
}

// labelsOf returns an entity's labels as key:value, as tags are written.
func labelsOf(ent map[string]any) []string {
	labels, _ := ent["labels"].(map[string]any)
	out := make([]string, 0, len(labels))
	for k, v := range labels {
		out = append(out, fmt.Sprintf("%s:%v", k, v))
	}
	return out
}

// put stores an entity in Konnect behind the operator's back and returns
// its ID.
func (e *env) put(cpID, collection string, ent map[string]any) string {
	e.t.Helper()
	if _, ok := ent["id"]; !ok {
		ent["id"] = newUUID()
	}
	if err := e.sim.PutEntity(e.orgID, cpID, collection, ent); err != nil {
		e.t.Fatal(err)
	}
	return ent["id"].(string)
}

// reput stores a changed entity back.
func (e *env) reput(cpID, collection string, ent map[string]any) {
	e.t.Helper()
	if err := e.sim.PutEntity(e.orgID, cpID, collection, ent); err != nil {
		e.t.Fatal(err)
	}
}

// writes counts the simulator's writes: every request but a GET.
func (e *env) writes() int {
	n := 0
	for op, count := range e.sim.Calls() {
		if !strings.HasPrefix(op, "GET ") {
			n += count
		}
	}
	return n
}
