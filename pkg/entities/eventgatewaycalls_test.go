package entities

import (
	"net/http"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// TestAnEventGatewayWriteIsReadAgainAndStaysDoneWhenTheReadFails: a schema
// registry's create is read again for the config the SDK's answer drops;
// when that read fails, the create is still reported done (with the SDK's
// answer), so that it is not tried again as a second entity.
func TestAnEventGatewayWriteIsReadAgainAndStaysDoneWhenTheReadFails(t *testing.T) {
	s := startSimulator(t)
	ctx := t.Context()
	gw, err := eventGatewaySDK.calls().create(ctx, s.api, controller.Placement{}, egBody{"name": "gw"})
	if err != nil {
		t.Fatalf("create the gateway: %v", err)
	}
	p := controller.Placement{ParentID: (*gw)["id"].(string)}
	registry := func(name string) egBody {
		return egBody{"name": name, "type": "confluent", "config": map[string]any{"schema_type": "avro", "endpoint": "https://registry.example.com"}}
	}
	calls := schemaRegistrySDK.calls()

	read, err := calls.create(ctx, s.api, p, registry("whole"))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if config, _ := (*read)["config"].(map[string]any); config["endpoint"] != "https://registry.example.com" {
		t.Errorf("the written registry as remembered: %v, want its config read again", *read)
	}

	s.sim.Faults().Set("get-event-gateway-schema-registry", konnectsim.Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable})
	written, err := calls.create(ctx, s.api, p, registry("unread"))
	if err != nil {
		t.Fatalf("a create whose read failed: %v, want it done", err)
	}
	if id, _ := (*written)["id"].(string); id == "" {
		t.Fatalf("a create whose read failed answered no ID: %v", *written)
	}
	if s.sim.Served().ServerErrors == 0 {
		t.Fatal("the read after the write did not fail: the fault was not met")
	}
}
