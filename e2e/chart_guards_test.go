package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// networkPolicyOf converts a rendered NetworkPolicy.
func networkPolicyOf(t *testing.T, obj *unstructured.Unstructured) *networkingv1.NetworkPolicy {
	t.Helper()
	var p networkingv1.NetworkPolicy
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// cidrsOf lists the ipBlock CIDRs of peers ("" for a peer that is none).
func cidrsOf(peers []networkingv1.NetworkPolicyPeer) []string {
	var out []string
	for _, p := range peers {
		cidr := ""
		if p.IPBlock != nil {
			cidr = p.IPBlock.CIDR
		}
		out = append(out, cidr)
	}
	return out
}

// deploymentOf converts a rendered Deployment.
func deploymentOf(t *testing.T, obj *unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// TestHelmChartNetworkPolicyAndDisruptionBudget renders the chart's
// NetworkPolicy and PodDisruptionBudget: with the defaults they are
// manifests/operator's, rule for rule; the policy selects the pods of every
// instance and shard but not the `helm test` pod, lets in only the ports
// the containers declare and lets out only DNS, the API server and HTTPS;
// its values narrow it to the peers and addresses given; the API server
// accepts what they render; bad values are refused with a message naming
// them.
func TestHelmChartNetworkPolicyAndDisruptionBudget(t *testing.T) {
	ctx := t.Context()
	h := newHelm(t, nil)
	policyFile := filepath.Join("operator", "networkpolicy.yaml")
	budgetFile := filepath.Join("operator", "poddisruptionbudget.yaml")
	kustomizePolicy := networkPolicyOf(t, kustomizeObjects(t, policyFile).get(t, "NetworkPolicy", "", "konnect-operator"))

	t.Run("the defaults render manifests/operator's rules", func(t *testing.T) {
		r := h.template(ctx, t, nil)
		p := networkPolicyOf(t, r.get(t, "NetworkPolicy", operatorNamespace, "konnect-operator"))
		for _, part := range []struct {
			name        string
			chart, kust any
		}{
			{"policy types", p.Spec.PolicyTypes, kustomizePolicy.Spec.PolicyTypes},
			{"ingress", p.Spec.Ingress, kustomizePolicy.Spec.Ingress},
			{"egress", p.Spec.Egress, kustomizePolicy.Spec.Egress},
		} {
			if !jsonEqual(part.chart, part.kust) {
				t.Errorf("the chart's %s differ from manifests/%s:\n  chart:     %v\n  kustomize: %v", part.name, policyFile, part.chart, part.kust)
			}
		}
		kustomizeBudget := kustomizeObjects(t, budgetFile).get(t, "PodDisruptionBudget", "", "konnect-operator")
		chartBudget := r.get(t, "PodDisruptionBudget", operatorNamespace, "konnect-operator")
		chartMax, _, _ := unstructured.NestedFieldNoCopy(chartBudget.Object, "spec", "maxUnavailable")
		kustomizeMax, _, _ := unstructured.NestedFieldNoCopy(kustomizeBudget.Object, "spec", "maxUnavailable")
		if !jsonEqual(chartMax, kustomizeMax) {
			t.Errorf("the chart's PodDisruptionBudget lets %v pods go, manifests/%s %v", chartMax, budgetFile, kustomizeMax)
		}
		kustomizeDeployment := deploymentOf(t, kustomizeObjects(t, filepath.Join("operator", "deployment.yaml")).get(t, "Deployment", "", operatorDeployment))
		if selector, _, _ := unstructured.NestedFieldNoCopy(kustomizeBudget.Object, "spec", "selector"); !jsonEqual(selector, kustomizeDeployment.Spec.Selector) {
			t.Errorf("manifests/%s selects %v, its Deployment %v", budgetFile, selector, kustomizeDeployment.Spec.Selector)
		}
		for _, problem := range networkPolicyProblems(kustomizePolicy, kustomizeDeployment) {
			t.Errorf("manifests/%s: %s", policyFile, problem)
		}
		if !selectsPod(t, &kustomizePolicy.Spec.PodSelector, kustomizeDeployment.Spec.Template.Labels) {
			t.Errorf("manifests/%s does not select the Deployment's pods %v", policyFile, kustomizeDeployment.Spec.Template.Labels)
		}
	})

	t.Run("every instance's pods are selected, the test pod's are not", func(t *testing.T) {
		r := h.template(ctx, t, nil, "shards={a,b}")
		p := networkPolicyOf(t, r.get(t, "NetworkPolicy", operatorNamespace, "konnect-operator"))
		for _, name := range []string{"konnect-operator", "konnect-operator-a", "konnect-operator-b"} {
			d := deploymentOf(t, r.get(t, "Deployment", operatorNamespace, name))
			if !selectsPod(t, &p.Spec.PodSelector, d.Spec.Template.Labels) {
				t.Errorf("the NetworkPolicy does not select the pods of %s (%v)", name, d.Spec.Template.Labels)
			}
			for _, problem := range networkPolicyProblems(p, d) {
				t.Errorf("%s: %s", name, problem)
			}
		}
		testPod := r.get(t, "Pod", operatorNamespace, "konnect-operator-test-readyz")
		if selectsPod(t, &p.Spec.PodSelector, labels.Set(testPod.GetLabels())) {
			t.Errorf("the NetworkPolicy selects the helm test pod %v, whose egress it would cut", testPod.GetLabels())
		}
		other := h.templateRelease(ctx, t, "other", operatorNamespace, nil)
		otherPod := deploymentOf(t, other.get(t, "Deployment", operatorNamespace, "other-konnect-operator")).Spec.Template.Labels
		if selectsPod(t, &p.Spec.PodSelector, otherPod) {
			t.Errorf("the NetworkPolicy selects the pods of another release in the namespace (%v)", otherPod)
		}
	})

	t.Run("values narrow the rules", func(t *testing.T) {
		values := writeValues(t, "network-policy.yaml", `
networkPolicy:
  metricsFrom:
  - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
  dns:
    to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}
      podSelector: {matchLabels: {k8s-app: kube-dns}}
  apiServer:
    cidrs: [172.18.0.2/32]
    ports: [6443]
  konnectEgress:
    cidrs: [203.0.113.0/24, "2001:db8::/32"]
  extraEgress:
  - to: [{ipBlock: {cidr: 10.0.0.10/32}}]
    ports: [{protocol: TCP, port: 3128}]
`)
		r := h.template(ctx, t, []string{values})
		obj := r.get(t, "NetworkPolicy", operatorNamespace, "konnect-operator")
		p := networkPolicyOf(t, obj)
		metricsRule, healthRule := p.Spec.Ingress[0], p.Spec.Ingress[1]
		if len(metricsRule.From) != 1 || metricsRule.From[0].NamespaceSelector == nil || len(healthRule.From) != 0 {
			t.Errorf("ingress: /metrics from %v, health from %v; want /metrics from the monitoring namespace alone, health from anywhere", metricsRule.From, healthRule.From)
		}
		if len(p.Spec.Egress) != 4 {
			t.Fatalf("%d egress rules, want DNS, the API server, Konnect and the proxy: %v", len(p.Spec.Egress), p.Spec.Egress)
		}
		dns, apiServer, konnect, proxy := p.Spec.Egress[0], p.Spec.Egress[1], p.Spec.Egress[2], p.Spec.Egress[3]
		for _, check := range []struct {
			what string
			ok   bool
		}{
			{"DNS to kube-dns alone", len(dns.To) == 1 && dns.To[0].PodSelector != nil && dns.To[0].PodSelector.MatchLabels["k8s-app"] == "kube-dns"},
			{"the API server at its address and port", slices.Equal(cidrsOf(apiServer.To), []string{"172.18.0.2/32"}) && sameSet(portsOf(apiServer.Ports), []string{"6443/TCP"})},
			{"Konnect at the addresses given", slices.Equal(cidrsOf(konnect.To), []string{"203.0.113.0/24", "2001:db8::/32"}) && sameSet(portsOf(konnect.Ports), []string{"443/TCP"})},
			{"the proxy", len(proxy.To) == 1 && sameSet(portsOf(proxy.Ports), []string{"3128/TCP"})},
		} {
			if !check.ok {
				t.Errorf("egress: not %s: %v", check.what, p.Spec.Egress)
			}
		}
		// What the values render, the API server accepts: its validation
		// is the schema check of record (a dry run stores nothing).
		p.Namespace = "default"
		p.ResourceVersion = ""
		if _, err := suite.cluster.kube.NetworkingV1().NetworkPolicies("default").Create(ctx, p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Errorf("the API server refuses the rendered NetworkPolicy: %v", err)
		}
	})

	t.Run("metrics over plain HTTP on loopback: only the health port is let in", func(t *testing.T) {
		r := h.template(ctx, t, nil, "metrics.scheme=http", "metrics.service.enabled=false")
		p := networkPolicyOf(t, r.get(t, "NetworkPolicy", operatorNamespace, "konnect-operator"))
		d := deploymentOf(t, r.get(t, "Deployment", operatorNamespace, operatorDeployment))
		for _, problem := range networkPolicyProblems(p, d) {
			t.Error(problem)
		}
	})

	t.Run("turned off, or one replica: no policy, no budget", func(t *testing.T) {
		r := h.template(ctx, t, nil, "networkPolicy.enabled=false", "replicaCount=1")
		if n := len(r.ofKind("NetworkPolicy")) + len(r.ofKind("PodDisruptionBudget")); n != 0 {
			t.Errorf("%d NetworkPolicies and PodDisruptionBudgets rendered, want none", n)
		}
	})

	t.Run("bad values are refused with a message naming them", func(t *testing.T) {
		for _, tt := range []struct{ set, want string }{
			{"networkPolicy.konnectEgress.cidrs={us.api.konghq.com}", "at '/networkPolicy/konnectEgress/cidrs/0'"},
			{"networkPolicy.apiServer.ports={0}", "at '/networkPolicy/apiServer/ports/0'"},
			{"networkPolicy.dns.ports={domain}", "at '/networkPolicy/dns/ports/0'"},
			{"networkPolicy.egress=all", "additional properties 'egress' not allowed"},
		} {
			out, err := h.run(ctx, "template", "konnect-operator", chartDir, "--set", tt.set)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("--set %s: %v\nwant it refused with a message containing %q", tt.set, lastLines(errString(err), 4), tt.want)
			}
			if err != nil && out != "" {
				t.Errorf("--set %s: refused, but printed manifests", tt.set)
			}
		}
	})
}

// TestHelmChartPinsTheImageByDigest renders the values make
// release-manifests writes: the operator and the `helm test` pod run the
// image by its digest, which wins over a tag.
func TestHelmChartPinsTheImageByDigest(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	values := writeValues(t, "values-image.yaml", "image:\n  repository: registry.example.com/konnect-operator\n  digest: "+digest+"\n  tag: v9.9.9\n")
	r := newHelm(t, nil).template(t.Context(), t, []string{values})
	want := "registry.example.com/konnect-operator@" + digest
	_, operator := renderedOperator(t, r)
	containers, _, _ := unstructured.NestedSlice(r.get(t, "Pod", operatorNamespace, "konnect-operator-test-readyz").Object, "spec", "containers")
	if operator.Image != want || len(containers) != 1 || containers[0].(map[string]any)["image"] != want {
		t.Errorf("the operator runs %s and the test pod %v, want %s", operator.Image, containers, want)
	}
}
