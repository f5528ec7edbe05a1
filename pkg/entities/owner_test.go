package entities

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// TestBodiesNameTheWritingCluster: the body every kind writes carries the
// operator's cluster identity (a tag; a label on control planes) when the
// reconciler places it so, and none without an identity.
func TestBodiesNameTheWritingCluster(t *testing.T) {
	owners := map[string]func(t *testing.T, p controller.Placement) string{
		"KongService": func(t *testing.T, p controller.Placement) string {
			body, err := ServiceKind(testRefs(), nil, nil).Desired(t.Context(), testService("s"), p)
			return ownerOf(t, body.Tags, err)
		},
		"KongRoute": func(t *testing.T, p controller.Placement) string {
			body, err := RouteKind(testRefs(), cacheOf[kongService]("kongservices")).Desired(t.Context(), testRoute("r", ""), p)
			return ownerOf(t, routeTags(&body), err)
		},
		"KongUpstream": func(t *testing.T, p controller.Placement) string {
			body, err := UpstreamKind(testRefs(), cacheOf[kongCertificate]("kongcertificates")).Desired(t.Context(), testUpstream("u"), p)
			return ownerOf(t, body.Tags, err)
		},
		"KongConsumerGroup": func(t *testing.T, p controller.Placement) string {
			body, err := ConsumerGroupKind(testRefs()).Desired(t.Context(), testConsumerGroup("g"), p)
			return ownerOf(t, body.Tags, err)
		},
		"KongKeySet": func(t *testing.T, p controller.Placement) string {
			body, err := KeySetKind(testRefs()).Desired(t.Context(), testKeySet("k"), p)
			return ownerOf(t, body.Tags, err)
		},
		"KonnectGatewayControlPlane": func(t *testing.T, p controller.Placement) string {
			desired, err := ControlPlaneKind(testRefs()).Desired(t.Context(), testControlPlane("cp", "CLUSTER_TYPE_CONTROL_PLANE"), p)
			if err != nil {
				t.Fatal(err)
			}
			create, update := desired.Create.Labels[controller.TagKeyCluster], desired.Update.Labels[controller.TagKeyCluster]
			if create != update {
				t.Fatalf("the create names %q, the update %q", create, update)
			}
			return create
		},
	}
	for kind, owner := range owners {
		t.Run(kind, func(t *testing.T) {
			if got := owner(t, controller.Placement{Cluster: "cluster-a"}); got != "cluster-a" {
				t.Errorf("written by cluster-a, the body names %q", got)
			}
			if got := owner(t, controller.Placement{}); got != "" {
				t.Errorf("without an identity, the body names %q", got)
			}
		})
	}
}

func ownerOf(t *testing.T, tags []string, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return controller.OwnerFromTags(tags)
}

// TestAnEntityWithoutTheClusterTagIsNotDrift: an entity written before the
// operator wrote its identity (or by Kong Operator) equals a spec that
// asks for the same, so it is not written again just to add the tag.
func TestAnEntityWithoutTheClusterTagIsNotDrift(t *testing.T) {
	svc := testService("s")
	desired, err := ServiceKind(testRefs(), nil, nil).Desired(t.Context(), svc, controller.Placement{Cluster: "cluster-a"})
	if err != nil {
		t.Fatal(err)
	}
	var actual components.ServiceOutput
	raw, _ := json.Marshal(desired)
	if err := json.Unmarshal(raw, &actual); err != nil {
		t.Fatal(err)
	}
	actual.Tags = slices.DeleteFunc(slices.Clone(desired.Tags), func(tag string) bool { return controller.OwnerFromTags([]string{tag}) != "" })
	if len(actual.Tags) != len(desired.Tags)-1 {
		t.Fatalf("the body's tags %v carry no cluster tag to leave out", desired.Tags)
	}
	services := core[kongService, components.Service, components.ServiceOutput]{calls: serviceCalls, matches: serviceMatches}
	if d := services.differences(desired, &actual); len(d) != 0 {
		t.Errorf("a service without the cluster tag differs in %v", d)
	}

	cp := testControlPlane("cp", "CLUSTER_TYPE_CONTROL_PLANE")
	want, err := ControlPlaneKind(testRefs()).Desired(t.Context(), cp, controller.Placement{Cluster: "cluster-a"})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	for k, v := range want.Create.Labels {
		if k != controller.TagKeyCluster {
			labels[k] = v
		}
	}
	listed := &components.ControlPlane{Name: cp.Spec.CreateControlPlaneRequest.Name, Labels: labels}
	listed.Config.AuthType = components.ControlPlaneAuthTypePinnedClientCerts
	want.Update.AuthType = nil
	if d := controlPlaneDifferences(want, listed, nil); len(d) != 0 {
		t.Errorf("a control plane without the cluster label differs in %v", d)
	}
}
