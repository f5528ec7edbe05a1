package e2e

import (
	"context"
	"fmt"
	"strings"
)

// manifest is the world at spec version v: what changes between versions
// is every service's host, every route's path and every consumer's
// custom_id, so that Konnect shows which version it holds.
func (w *chaosWorld) manifest(v int) string {
	var b strings.Builder
	b.WriteString(controlPlaneWorld(w.sim.token, w.sim.url, w.ns))
	cpRef := "  controlPlaneRef:\n    type: konnectNamespacedRef\n    konnectNamespacedRef:\n      name: cp\n"
	for i := range w.n {
		fmt.Fprintf(&b, "---\napiVersion: configuration.konghq.com/v1alpha1\nkind: KongService\nmetadata:\n  name: svc-%d\nspec:\n  name: svc-%d\n  host: %s\n%s",
			i, i, serviceHost(i, v), cpRef)
		fmt.Fprintf(&b, "---\napiVersion: configuration.konghq.com/v1alpha1\nkind: KongRoute\nmetadata:\n  name: route-%d\nspec:\n  name: route-%d\n  paths: [%s]\n  serviceRef:\n    type: namespacedRef\n    namespacedRef:\n      name: svc-%d\n",
			i, i, routePath(i, v), i)
		fmt.Fprintf(&b, "---\napiVersion: configuration.konghq.com/v1\nkind: KongConsumer\nmetadata:\n  name: consumer-%d\nusername: consumer-%d\ncustom_id: %s\nspec:\n%s",
			i, i, consumerID(i, v), cpRef)
	}
	return b.String()
}

func serviceHost(i, v int) string { return fmt.Sprintf("svc-%d-v%d.example.com", i, v) }
func routePath(i, v int) string   { return fmt.Sprintf("/svc-%d/v%d", i, v) }
func consumerID(i, v int) string  { return fmt.Sprintf("consumer-%d-v%d", i, v) }

// apply applies spec version v server-side.
func (w *chaosWorld) apply(ctx context.Context, v int) {
	w.t.Helper()
	if _, err := w.c.kubectl(ctx, w.manifest(v), "apply", "--server-side", "-n", w.ns, "-f", "-"); err != nil {
		w.t.Fatal(err)
	}
	w.version = v
}

// controlPlaneWorld is what the chaos and outage worlds declare first: a
// token Secret, the auth configuration "auth" that names it and serverURL,
// and the control plane "cp" (named name in Konnect).
func controlPlaneWorld(token, serverURL, name string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  name: konnect-token
  labels:
    konghq.com/credential: konnect
stringData:
  token: %s
---
apiVersion: konnect.konghq.com/v1alpha1
kind: KonnectAPIAuthConfiguration
metadata:
  name: auth
spec:
  type: secretRef
  secretRef:
    name: konnect-token
  serverURL: %s
---
apiVersion: konnect.konghq.com/v1alpha2
kind: KonnectGatewayControlPlane
metadata:
  name: cp
spec:
  createControlPlaneRequest:
    name: %s
    cluster_type: CLUSTER_TYPE_CONTROL_PLANE
  konnect:
    authRef:
      name: auth
`, token, serverURL, name)
}
