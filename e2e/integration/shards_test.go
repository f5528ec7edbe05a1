package integration

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
	"github.com/konnect-operator/konnect-operator/pkg/operator"
)

const tokenShardB = "kpat_shardBTestToken0000000000000000000000000000000"

// startShard runs, beside the test's operator, one of another shard on the
// same namespaces, the same API server and the same simulator.
func (e *env) startShard(shard string) *operator.Operator {
	e.t.Helper()
	op, cancel, done := e.runOperator(shard)
	*e.companions = append(*e.companions, companion{op: op, stop: func() {
		cancel()
		<-done
	}})
	return op
}

// shardObjects names a control plane's tree of one shard: its auth
// configuration, the control plane, a service and its route, a consumer
// and its key-auth credential.
type shardObjects struct {
	auth, cp, service, route, consumer, credential string
}

func treeOf(prefix string) shardObjects {
	return shardObjects{auth: prefix + "-auth", cp: prefix + "-cp", service: prefix + "-svc", route: prefix + "-route",
		consumer: prefix + "-consumer", credential: prefix + "-key"}
}

// createTree creates a tree in a shard ("" the default one), its auth
// configuration with token.
func (e *env) createTree(tree shardObjects, shard, token string) {
	e.t.Helper()
	label := func(m *metav1.ObjectMeta) {
		if shard != "" {
			m.Labels = map[string]string{commonv1alpha1.LabelShard: shard}
		}
	}
	ac := &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: tree.auth},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: token, ServerURL: e.sim.URL,
		},
	}
	label(&ac.ObjectMeta)
	if _, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Create(e.ctx, ac, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	cp := e.controlPlaneObject(tree.cp, tree.auth)
	label(&cp.ObjectMeta)
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Create(e.ctx, cp, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.createService(tree.service, func(s *configurationv1alpha1.KongService) {
		label(&s.ObjectMeta)
		s.Spec.ControlPlaneRef = cpRef(tree.cp)
	})
	e.createRoute(tree.route, withService(tree.service), func(r *configurationv1alpha1.KongRoute) { label(&r.ObjectMeta) })
	consumer := &configurationv1.KongConsumer{
		ObjectMeta: metav1.ObjectMeta{Name: tree.consumer},
		Username:   tree.consumer,
		Spec:       configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef(tree.cp)},
	}
	label(&consumer.ObjectMeta)
	if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, consumer, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	key := &configurationv1alpha1.KongCredentialAPIKey{
		ObjectMeta: metav1.ObjectMeta{Name: tree.credential},
		Spec: configurationv1alpha1.KongCredentialAPIKeySpec{
			ConsumerRef:                 corev1.LocalObjectReference{Name: tree.consumer},
			KongCredentialAPIKeyAPISpec: configurationv1alpha1.KongCredentialAPIKeyAPISpec{Key: tree.credential + "-secret-value"},
		},
	}
	label(&key.ObjectMeta)
	if _, err := e.cs.ConfigurationV1alpha1().KongCredentialAPIKeys(e.ns).Create(e.ctx, key, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// treeProgrammed checks that every object of a tree is Programmed.
func (e *env) treeProgrammed(tree shardObjects) error {
	cp := e.controlPlane(tree.cp)
	if err := programmed(cp); err != nil {
		return err
	}
	if err := programmed(e.service(tree.service)); err != nil {
		return err
	}
	if err := programmed(e.route(tree.route)); err != nil {
		return err
	}
	if err := programmed(e.consumer(tree.consumer)); err != nil {
		return err
	}
	key, err := e.cs.ConfigurationV1alpha1().KongCredentialAPIKeys(e.ns).Get(e.ctx, tree.credential, metav1.GetOptions{})
	if err != nil {
		return err
	}
	return programmed(key)
}

// relabel moves an object of the test's namespace to a shard ("" the
// default one) with a merge patch of its label.
func (e *env) relabel(resource, name, shard string) {
	e.t.Helper()
	var value any
	if shard != "" {
		value = shard
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{commonv1alpha1.LabelShard: value}}})
	if err != nil {
		e.t.Fatal(err)
	}
	client := e.cs.KonnectV1alpha1().RESTClient()
	group, version := "konnect.konghq.com", "v1alpha1"
	switch resource {
	case "konnectgatewaycontrolplanes":
		client, version = e.cs.KonnectV1alpha2().RESTClient(), "v1alpha2"
	case "kongconsumers":
		client, group, version = e.cs.ConfigurationV1().RESTClient(), "configuration.konghq.com", "v1"
	case "kongservices", "kongroutes", "kongcredentialapikeys":
		client, group, version = e.cs.ConfigurationV1alpha1().RESTClient(), "configuration.konghq.com", "v1alpha1"
	}
	err = client.Patch(types.MergePatchType).AbsPath("/apis", group, version, "namespaces", e.ns, resource, name).
		Body(patch).Do(e.ctx).Error()
	if err != nil {
		e.t.Fatalf("relabelling %s %s: %v", resource, name, err)
	}
}

// moveTree relabels every object of a tree, leaves first or roots first.
func (e *env) moveTree(tree shardObjects, shard string, rootsFirst bool) {
	e.t.Helper()
	moves := [][2]string{
		{"kongcredentialapikeys", tree.credential}, {"kongconsumers", tree.consumer}, {"kongroutes", tree.route},
		{"kongservices", tree.service}, {"konnectgatewaycontrolplanes", tree.cp}, {"konnectapiauthconfigurations", tree.auth},
	}
	if rootsFirst {
		slices.Reverse(moves)
	}
	for _, m := range moves {
		e.relabel(m[0], m[1], shard)
	}
}

// handOver moves a tree to a shard and checks that the operators hand it
// over without a Konnect write: want and lose are the operators that take
// and give it.
func (e *env) handOver(tree shardObjects, shard string, rootsFirst bool, want, lose *operator.Operator) {
	e.t.Helper()
	e.settle()
	e.sim.ResetCalls()
	entities := e.sim.Count(e.orgID)
	planes := map[string]string{"kind": "KonnectGatewayControlPlane"}
	wantPlanes := shardMetric(e.t, want, metrics.MetricObjects, planes) + 1
	losePlanes := shardMetric(e.t, lose, metrics.MetricObjects, planes) - 1
	e.moveTree(tree, shard, rootsFirst)
	e.eventually("the tree moved, Programmed", func() error {
		if n := shardMetric(e.t, lose, metrics.MetricObjects, planes); n != losePlanes {
			return fmt.Errorf("the shard it left still has %v control planes, want %v", n, losePlanes)
		}
		if n := shardMetric(e.t, want, metrics.MetricObjects, map[string]string{"kind": "KonnectGatewayControlPlane", "status": "True"}); n != wantPlanes {
			return fmt.Errorf("the shard it joined has %v control planes Programmed, want %v", n, wantPlanes)
		}
		return e.treeProgrammed(tree)
	})
	// Past the quiet wait of references found in the other shard while
	// the tree was split.
	e.step(controller.QuietWait)
	if err := e.treeProgrammed(tree); err != nil {
		e.t.Error(err)
	}
	if writes := e.konnectWriteCalls(); len(writes) > 0 {
		e.t.Errorf("the handover wrote to Konnect: %v", writes)
	}
	if n := e.sim.Count(e.orgID); n != entities || n != 5 {
		e.t.Errorf("the moved tree's organisation holds %d entities, want the 5 it held (no duplicate, nothing deleted)", n)
	}
}

// shardMetric sums a series of one shard's operator.
func shardMetric(t testing.TB, op *operator.Operator, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := op.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabels(m, labels) {
				total += m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	return total
}

// konnectWriteCalls lists the simulator's requests that change something.
func (e *env) konnectWriteCalls() []string {
	var writes []string
	for op, n := range e.sim.Calls() {
		if !strings.HasPrefix(op, "GET ") {
			writes = append(writes, fmt.Sprintf("%s ×%d", op, n))
		}
	}
	return writes
}

// TestShards runs two operators of different shards on one API server and
// one simulator, each tree in an organisation of its own: neither ever
// reconciles the other's objects; a tree relabelled from one shard to the
// other is handed over without a Konnect write, and Programmed by the
// shard that takes it; a reference to another shard's object is reported
// as such, with the label that fixes it.
func TestShards(t *testing.T) {
	t.Parallel()
	orgB := "org-shard-b-" + t.Name()
	e := newEnv(t, envOptions{otherOrgs: map[string]string{orgB: tokenShardB}})
	b := e.startShard("b")
	orgBID, ok := e.sim.OrganizationID(orgB)
	if !ok {
		t.Fatal("the simulator does not know shard b's organisation")
	}
	defaultTree, bTree := treeOf("default"), treeOf("b")
	e.createTree(defaultTree, "", testToken)
	e.createTree(bTree, "b", tokenShardB)
	e.eventually("both trees Programmed", func() error {
		if err := e.treeProgrammed(defaultTree); err != nil {
			return err
		}
		return e.treeProgrammed(bTree)
	})

	t.Run("each shard reconciles its own objects alone", func(t *testing.T) {
		requests := konnect.MetricRequests
		if n := shardMetric(t, e.running, requests, map[string]string{"organization": orgBID}); n != 0 {
			t.Errorf("the default shard sent %v requests to shard b's organisation", n)
		}
		if n := shardMetric(t, b, requests, map[string]string{"organization": e.orgID}); n != 0 {
			t.Errorf("shard b sent %v requests to the default shard's organisation", n)
		}
		for _, op := range []*operator.Operator{e.running, b} {
			if n := shardMetric(t, op, metrics.MetricObjects, map[string]string{"kind": "KonnectGatewayControlPlane"}); n != 1 {
				t.Errorf("an operator caches %v control planes, want its own one", n)
			}
		}
		// Each organisation got its own tree's creates, once each.
		creates := map[string]int{}
		for _, r := range e.sim.Requests() {
			if r.Method == "POST" {
				creates[r.Organization]++
			}
		}
		if creates[e.orgID] != 5 || creates[orgBID] != 5 {
			t.Errorf("creates by organisation: %v, want 5 (control plane, service, route, consumer, key) in each", creates)
		}
	})

	t.Run("a tree moved to another shard is handed over without a Konnect write", func(t *testing.T) {
		e.with(t).handOver(defaultTree, "b", false, b, e.running)
	})

	t.Run("and moved back, roots first, again without a write", func(t *testing.T) {
		e.with(t).handOver(defaultTree, "", true, e.running, b)
	})

	t.Run("a reference to another shard's object is reported", func(t *testing.T) {
		e := e.with(t)
		// A service of the default shard that names shard b's control plane.
		e.createService("stray", func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = cpRef(bTree.cp) })
		e.settle()
		if c := findCondition(e.service("stray"), commonv1alpha1.ConditionControlPlaneRefValid); c != nil {
			t.Errorf("reported at once, before the quiet wait of a move: %+v", c)
		}
		e.step(controller.QuietWait)
		e.eventually("the stray service reports its control plane in shard b", func() error {
			return conditionIs(e.service("stray"), commonv1alpha1.ConditionControlPlaneRefValid, metav1.ConditionFalse, commonv1alpha1.ReasonRefInOtherShard)
		})
		message := findCondition(e.service("stray"), commonv1alpha1.ConditionControlPlaneRefValid).Message
		if !strings.Contains(message, "shard b") || !strings.Contains(message, commonv1alpha1.LabelShard+"=b") {
			t.Errorf("the message does not name the shard and the label that fixes it: %q", message)
		}
		e.eventuallyEvent("KongService", "stray", corev1.EventTypeWarning, controller.EventReferenceFailed)
		// The fix the message gives.
		e.relabel("kongservices", "stray", "b")
		e.eventually("the stray service Programmed by shard b", func() error { return programmed(e.service("stray")) })
	})
}

func findCondition(obj conditioned, conditionType string) *metav1.Condition {
	for _, c := range obj.GetConditions() {
		if c.Type == conditionType {
			return &c
		}
	}
	return nil
}
