package e2e

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// helmObjects are a control plane and a service that refer to the auth
// configuration the chart creates.
const helmObjects = `
apiVersion: konnect.konghq.com/v1alpha2
kind: KonnectGatewayControlPlane
metadata:
  name: helm-cp
  namespace: team-a
spec:
  createControlPlaneRequest:
    name: e2e-helm
    cluster_type: CLUSTER_TYPE_CONTROL_PLANE
  konnect:
    authRef:
      name: konnect-auth
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongService
metadata:
  name: orders
  namespace: team-a
spec:
  name: orders
  host: orders.team-a.svc.cluster.local
  port: 8080
  controlPlaneRef:
    type: konnectNamespacedRef
    konnectNamespacedRef:
      name: helm-cp
`

// waitReady waits for objects given as (kind, name) pairs in team-a to be
// Programmed (APIAuthValid for the auth configuration).
func waitReady(ctx context.Context, t *testing.T, c *clusterEnv, pairs ...any) {
	t.Helper()
	err := eventually(ctx, patience, func(ctx context.Context) error {
		for i := 0; i < len(pairs); i += 2 {
			if err := ready(ctx, c, pairs[i].(schema.GroupVersionKind), "team-a", pairs[i+1].(string), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
