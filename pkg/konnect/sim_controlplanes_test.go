package konnect

import (
	"context"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

func exerciseControlPlanes(t *testing.T, c *Client) ControlPlane {
	t.Helper()
	ctx := context.Background()
	labels := map[string]string{"k8s-uid": "u-1", "env": "test"}
	desired := ControlPlane{
		Name: "cp-1", Description: "first", ClusterType: "CLUSTER_TYPE_CONTROL_PLANE", AuthType: "pinned_client_certs",
		Labels: labels, ProxyURLs: []ProxyURL{{Host: "proxy.example.com", Port: 443, Protocol: "https"}},
	}
	cp := must[ControlPlane](t, "create control plane")(c.CreateControlPlane(ctx, desired))
	if cp.ID == "" || cp.Name != "cp-1" || cp.ClusterType != desired.ClusterType || !reflect.DeepEqual(cp.Labels, labels) ||
		!reflect.DeepEqual(cp.ProxyURLs, desired.ProxyURLs) || cp.AuthType != desired.AuthType {
		t.Errorf("created control plane %+v does not reflect %+v", cp, desired)
	}
	if got := must[ControlPlane](t, "get control plane")(c.GetControlPlane(ctx, cp.ID)); !reflect.DeepEqual(got, cp) {
		t.Errorf("get control plane = %+v, want %+v", got, cp)
	}
	desired.Description = "changed"
	desired.Labels = map[string]string{"k8s-uid": "u-1", "env": "prod"}
	cp = must[ControlPlane](t, "update control plane")(c.UpdateControlPlane(ctx, cp.ID, desired))
	if cp.Description != "changed" || cp.Labels["env"] != "prod" {
		t.Errorf("updated control plane = %+v", cp)
	}
	for _, filter := range []ControlPlaneFilter{
		{ID: cp.ID}, {Name: "cp-1"}, {Labels: map[string]string{"k8s-uid": "u-1"}}, {Labels: map[string]string{"k8s-uid": "u-1", "env": "prod"}},
	} {
		listed := must[[]ControlPlane](t, "list control planes")(c.ListControlPlanes(ctx, filter))
		if len(listed) != 1 || listed[0].ID != cp.ID {
			t.Errorf("list control planes %+v = %d entries, want only cp-1", filter, len(listed))
		}
	}
	if listed := must[[]ControlPlane](t, "list control planes")(c.ListControlPlanes(ctx, ControlPlaneFilter{Labels: map[string]string{"env": "test"}})); len(listed) != 0 {
		t.Errorf("list by a label value no control plane has returned %d", len(listed))
	}

	group := must[ControlPlane](t, "create group")(c.CreateControlPlane(ctx, ControlPlane{Name: "group", ClusterType: "CLUSTER_TYPE_CONTROL_PLANE_GROUP"}))
	second := must[ControlPlane](t, "create control plane")(c.CreateControlPlane(ctx, ControlPlane{Name: "cp-2"}))
	members := []string{cp.ID, second.ID}
	sort.Strings(members)
	if err := c.SetControlPlaneGroupMembers(ctx, group.ID, members); err != nil {
		t.Fatalf("set group members: %v", err)
	}
	got := must[[]string](t, "list group members")(c.ListControlPlaneGroupMembers(ctx, group.ID))
	sort.Strings(got)
	if !reflect.DeepEqual(got, members) {
		t.Errorf("group members = %v, want %v", got, members)
	}
	if err := c.SetControlPlaneGroupMembers(ctx, group.ID, nil); err != nil {
		t.Fatalf("empty the group: %v", err)
	}
	if got := must[[]string](t, "list group members")(c.ListControlPlaneGroupMembers(ctx, group.ID)); len(got) != 0 {
		t.Errorf("emptied group still has members %v", got)
	}
	for _, id := range []string{group.ID, second.ID} {
		if err := c.DeleteControlPlane(ctx, id); err != nil {
			t.Errorf("delete control plane: %v", err)
		}
	}
	if _, err := c.GetControlPlane(ctx, second.ID); !IsNotFound(err) {
		t.Errorf("get deleted control plane = %v, want not found", err)
	}
	return cp
}

func exerciseDataPlaneCertificates(t *testing.T, c *Client, cpID string) {
	t.Helper()
	ctx := context.Background()
	pki := newTestPKI(t)
	cert := must[DataPlaneCertificate](t, "create DP certificate")(c.CreateDataPlaneCertificate(ctx, cpID, pki.leafCert))
	if cert.ID == "" || cert.Cert == "" {
		t.Fatalf("created DP certificate %+v", cert)
	}
	if got := must[DataPlaneCertificate](t, "get DP certificate")(c.GetDataPlaneCertificate(ctx, cpID, cert.ID)); got != cert {
		t.Errorf("get DP certificate = %+v, want %+v", got, cert)
	}
	if listed := must[[]DataPlaneCertificate](t, "list DP certificates")(c.ListDataPlaneCertificates(ctx, cpID)); !slices.Contains(listed, cert) {
		t.Errorf("list DP certificates = %+v, want it to contain %s", listed, cert.ID)
	}
	if err := c.DeleteDataPlaneCertificate(ctx, cpID, cert.ID); err != nil {
		t.Fatalf("delete DP certificate: %v", err)
	}
	if _, err := c.GetDataPlaneCertificate(ctx, cpID, cert.ID); !IsNotFound(err) {
		t.Errorf("get deleted DP certificate = %v, want not found", err)
	}
}

func TestListsFollowEveryPageOfTheSimulator(t *testing.T) {
	sim, factory := startSim(t, konnectsim.Options{}, Options{})
	c := simClient(t, sim, factory, testToken)
	ctx := context.Background()
	const controlPlanes = controlPlanePageSize + 3
	var cpID string
	for i := range controlPlanes {
		cp := must[ControlPlane](t, "create control plane")(c.CreateControlPlane(ctx, ControlPlane{
			Name: "cp-" + strconv.Itoa(i), Labels: map[string]string{"batch": "paging"},
		}))
		cpID = cp.ID
	}
	listed := must[[]ControlPlane](t, "list control planes")(c.ListControlPlanes(ctx, ControlPlaneFilter{Labels: map[string]string{"batch": "paging"}}))
	if len(listed) != controlPlanes {
		t.Errorf("listed %d control planes, want %d across two pages", len(listed), controlPlanes)
	}

	c.pageSize = 3
	for i := range 7 {
		must[Consumer](t, "create consumer")(c.CreateConsumer(ctx, cpID, Consumer{Username: "u" + strconv.Itoa(i), Tags: []string{"paging"}}))
	}
	must[Consumer](t, "create consumer")(c.CreateConsumer(ctx, cpID, Consumer{Username: "untagged"}))
	consumers := must[[]Consumer](t, "list consumers")(c.ListConsumers(ctx, cpID, ListFilter{Tags: []string{"paging"}}))
	if len(consumers) != 7 {
		t.Errorf("listed %d consumers, want 7 across three pages", len(consumers))
	}
	if got := sim.CallCount("GET", "/v2/control-planes/{controlPlaneId}/core-entities/consumers"); got != 3 {
		t.Errorf("%d list requests, want 3 pages of 3", got)
	}
}
