package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The egress every install lets the operator's pods have, as "port/protocol":
// DNS, the API server (its Service's port and the control plane's) and
// Konnect's HTTPS.
var wantEgressPorts = []string{"53/UDP", "53/TCP", "443/TCP", "6443/TCP"}

// checkInstallGuards checks, on the API server, what keeps an installed
// operator within its rights besides RBAC: every Deployment of the
// operator in namespace has its pods selected by exactly one NetworkPolicy,
// which lets in only the ports its containers declare and lets out only
// DNS, the API server and HTTPS; and by a PodDisruptionBudget that keeps
// all but one replica through a drain. No network plugin enforces the
// policy on this control plane: the API server validated and stored it, and
// the check proves what it selects and allows.
func checkInstallGuards(ctx context.Context, t *testing.T, c *clusterEnv, namespace string) {
	t.Helper()
	deployments, err := c.kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	policies, err := c.kube.NetworkingV1().NetworkPolicies(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := c.kube.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(deployments.Items) == 0 {
		t.Fatalf("no Deployment in %s", namespace)
	}
	for i := range deployments.Items {
		d := &deployments.Items[i]
		pod := labels.Set(d.Spec.Template.Labels)
		var selecting []*networkingv1.NetworkPolicy
		for j := range policies.Items {
			if selectsPod(t, &policies.Items[j].Spec.PodSelector, pod) {
				selecting = append(selecting, &policies.Items[j])
			}
		}
		if len(selecting) != 1 {
			t.Errorf("the pods of Deployment %s are selected by %d NetworkPolicies, want 1", d.Name, len(selecting))
			continue
		}
		for _, problem := range networkPolicyProblems(selecting[0], d) {
			t.Errorf("NetworkPolicy %s for Deployment %s: %s", selecting[0].Name, d.Name, problem)
		}
		checkDisruptionBudget(t, budgets.Items, d)
	}
}

// selectsPod reports whether selector selects a pod with podLabels.
func selectsPod(t *testing.T, selector *metav1.LabelSelector, podLabels labels.Set) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		t.Fatal(err)
	}
	return s.Matches(podLabels)
}

// networkPolicyProblems lists how p fails to guard d's pods: it must
// govern both directions, let in exactly the container ports d declares
// (from anywhere or from the peers given), and let out exactly the
// wantEgressPorts.
func networkPolicyProblems(p *networkingv1.NetworkPolicy, d *appsv1.Deployment) []string {
	var problems []string
	types := map[networkingv1.PolicyType]bool{}
	for _, pt := range p.Spec.PolicyTypes {
		types[pt] = true
	}
	if !types[networkingv1.PolicyTypeIngress] || !types[networkingv1.PolicyTypeEgress] {
		problems = append(problems, fmt.Sprintf("policy types %v, want Ingress and Egress", p.Spec.PolicyTypes))
	}
	var declared []string
	for _, container := range d.Spec.Template.Spec.Containers {
		for _, port := range container.Ports {
			declared = append(declared, fmt.Sprintf("%d/%s", port.ContainerPort, port.Protocol))
		}
	}
	var ingress []string
	for _, rule := range p.Spec.Ingress {
		if len(rule.Ports) == 0 {
			problems = append(problems, "an ingress rule allows every port")
		}
		ingress = append(ingress, portsOf(rule.Ports)...)
	}
	if !sameSet(ingress, declared) {
		problems = append(problems, fmt.Sprintf("lets in %v, the containers declare %v", ingress, declared))
	}
	var egress []string
	for _, rule := range p.Spec.Egress {
		if len(rule.Ports) == 0 {
			problems = append(problems, "an egress rule allows every port")
		}
		egress = append(egress, portsOf(rule.Ports)...)
	}
	if !sameSet(egress, wantEgressPorts) {
		problems = append(problems, fmt.Sprintf("lets out %v, want %v", egress, wantEgressPorts))
	}
	return problems
}

// portsOf renders NetworkPolicy ports as "port/protocol".
func portsOf(ports []networkingv1.NetworkPolicyPort) []string {
	var out []string
	for _, p := range ports {
		protocol := corev1.ProtocolTCP
		if p.Protocol != nil {
			protocol = *p.Protocol
		}
		out = append(out, fmt.Sprintf("%s/%s", p.Port.String(), protocol))
	}
	return out
}

// sameSet reports whether a and b hold the same strings, repeats aside.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// checkDisruptionBudget checks that exactly one of budgets covers d's pods,
// with its selector, leaving one replica at most unavailable when d has
// more than one; a Deployment of one replica has none (it would block every
// drain).
func checkDisruptionBudget(t *testing.T, budgets []policyv1.PodDisruptionBudget, d *appsv1.Deployment) {
	t.Helper()
	var covering []policyv1.PodDisruptionBudget
	for _, b := range budgets {
		if b.Spec.Selector != nil && selectsPod(t, b.Spec.Selector, d.Spec.Template.Labels) {
			covering = append(covering, b)
		}
	}
	replicas := int32(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	switch {
	case replicas < 2 && len(covering) != 0:
		t.Errorf("Deployment %s of %d replica has a PodDisruptionBudget %s, which would block every drain", d.Name, replicas, covering[0].Name)
	case replicas < 2:
	case len(covering) != 1:
		t.Errorf("the pods of Deployment %s are covered by %d PodDisruptionBudgets, want 1", d.Name, len(covering))
	case covering[0].Spec.MaxUnavailable == nil || covering[0].Spec.MaxUnavailable.String() != "1":
		t.Errorf("PodDisruptionBudget %s lets %v of Deployment %s's pods go at once, want 1", covering[0].Name, covering[0].Spec.MaxUnavailable, d.Name)
	case !jsonEqual(covering[0].Spec.Selector, d.Spec.Selector):
		t.Errorf("PodDisruptionBudget %s selects %v, Deployment %s %v", covering[0].Name, covering[0].Spec.Selector, d.Name, d.Spec.Selector)
	}
}
