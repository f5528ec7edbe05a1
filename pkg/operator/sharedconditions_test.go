package operator

import (
	"encoding/json"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// decodedConditions decodes conditions as an informer does, each time into
// new memory.
func decodedConditions(t *testing.T, raw string) []metav1.Condition {
	t.Helper()
	var conditions []metav1.Condition
	if err := json.Unmarshal([]byte(raw), &conditions); err != nil {
		t.Fatal(err)
	}
	return conditions
}

func TestEqualConditionsAreCachedOnce(t *testing.T) {
	const programmed = `[{"type":"Programmed","status":"True","observedGeneration":1,"lastTransitionTime":"2026-11-28T22:15:32Z","reason":"Programmed","message":""},` +
		`{"type":"ControlPlaneRefValid","status":"True","observedGeneration":1,"lastTransitionTime":"2026-11-28T22:15:32Z","reason":"Valid","message":"KonnectGatewayControlPlane ns/cp is Programmed"},` +
		`{"type":"Ready","status":"True","observedGeneration":1,"lastTransitionTime":"2026-11-28T22:15:32Z","reason":"Programmed","message":""}]`
	first := internConditions(decodedConditions(t, programmed))
	second := internConditions(decodedConditions(t, programmed))
	if len(first) != 3 || cap(first) != 3 {
		t.Fatalf("the cached conditions are %d in room for %d, want 3 in room for 3", len(first), cap(first))
	}
	if unsafe.SliceData(first) != unsafe.SliceData(second) {
		t.Error("two objects with equal conditions hold a copy each")
	}

	for name, differing := range map[string]string{
		"a later transition": `"lastTransitionTime":"2026-11-28T22:15:33Z","reason":"Valid","message":"KonnectGatewayControlPlane ns/cp is Programmed"`,
		"another message":    `"lastTransitionTime":"2026-11-28T22:15:32Z","reason":"Valid","message":"KonnectGatewayControlPlane ns/other is Programmed"`,
		"another reason":     `"lastTransitionTime":"2026-11-28T22:15:32Z","reason":"Invalid","message":"KonnectGatewayControlPlane ns/cp is Programmed"`,
	} {
		raw := `[{"type":"Programmed","status":"True","observedGeneration":1,"lastTransitionTime":"2026-11-28T22:15:32Z","reason":"Programmed","message":""},` +
			`{"type":"ControlPlaneRefValid","status":"True","observedGeneration":1,` + differing + `},` +
			`{"type":"Ready","status":"True","observedGeneration":1,"lastTransitionTime":"2026-11-28T22:15:32Z","reason":"Programmed","message":""}]`
		other := internConditions(decodedConditions(t, raw))
		if unsafe.SliceData(other) == unsafe.SliceData(first) {
			t.Errorf("conditions with %s are shared with the first object's", name)
		}
	}
}

func TestTheSharedConditionsAreBounded(t *testing.T) {
	for i := range maxSharedConditions + 10 {
		raw, err := json.Marshal([]metav1.Condition{{Type: "Programmed", Status: metav1.ConditionTrue, Reason: "Programmed", ObservedGeneration: int64(i + 1)}})
		if err != nil {
			t.Fatal(err)
		}
		internConditions(decodedConditions(t, string(raw)))
	}
	recentConditions.Lock()
	defer recentConditions.Unlock()
	if n := len(recentConditions.bySum); n == 0 || n > maxSharedConditions {
		t.Errorf("%d sets of conditions remembered, want between 1 and %d", n, maxSharedConditions)
	}
}
