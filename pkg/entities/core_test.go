package entities

import (
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// TestCallsWithoutAnIDAreRefusedBeforeSending: a request for one entity
// must never become one for its whole collection.
func TestCallsWithoutAnIDAreRefusedBeforeSending(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	before := len(s.sim.Requests())
	ctx := t.Context()
	cases := []struct {
		name string
		call func() error
	}{
		{"get without an ID", func() error { _, err := serviceCalls.doGet(ctx, s.api, p, ""); return err }},
		{"upsert without an ID", func() error {
			_, err := serviceCalls.doUpsert(ctx, s.api, p, "", components.Service{Host: "h"})
			return err
		}},
		{"delete without an ID", func() error { return vaultCalls.doDelete(ctx, s.api, p, "") }},
		{"create without a control plane", func() error {
			_, err := keySetCalls.doCreate(ctx, s.api, controller.Placement{}, components.KeySet{})
			return err
		}},
		{"list without a control plane", func() error { _, err := keySetCalls.doList(ctx, s.api, controller.Placement{}); return err }},
		{"a target without its upstream", func() error {
			_, err := targetCalls.doCreate(ctx, s.api, p, components.TargetWithoutParents{Target: ptr("a:80")})
			return err
		}},
		{"a credential without its consumer", func() error { return basicAuthCalls.doDelete(ctx, s.api, p, "id") }},
	}
	for _, tc := range cases {
		if err := tc.call(); !konnect.IsInvalidInput(err) {
			t.Errorf("%s: %v, want invalid input", tc.name, err)
		}
	}
	if sent := len(s.sim.Requests()) - before; sent != 0 {
		t.Errorf("%d requests reached Konnect", sent)
	}
}
