package entities

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// egSampleFiles are the manifests with objects of every Event Gateway kind
// and of every union member they use: the project's sample and Kong
// Operator's.
var egSampleFiles = []string{"../../manifests/samples/event-gateway.yaml", "../../e2e/integration/testdata/kong-operator/konnect_eventgateway*.yaml"}

// egAPISpecOf returns a pointer to the apiSpec of an Event Gateway object
// of the given kind, decoded from its manifest, and a new one to read into.
func egAPISpecOf(t *testing.T, kind string, doc []byte) (spec, empty any) {
	t.Helper()
	var into any
	switch kind {
	case KindEventGateway:
		into = &struct {
			Spec struct {
				APISpec konnectv1alpha1.KonnectEventGatewayAPISpec `json:"apiSpec"`
			} `json:"spec"`
		}{}
	default:
		specs := map[string]any{
			KindEventGatewayBackendCluster:       &configurationv1alpha1.EventGatewayBackendCluster{},
			KindEventGatewayListener:             &configurationv1alpha1.EventGatewayListener{},
			KindEventGatewayVirtualCluster:       &configurationv1alpha1.EventGatewayVirtualCluster{},
			KindEventGatewaySchemaRegistry:       &configurationv1alpha1.EventGatewaySchemaRegistry{},
			KindEventGatewayDataPlaneCertificate: &configurationv1alpha1.EventGatewayDataPlaneCertificate{},
			KindEventGatewayListenerPolicy:       &configurationv1alpha1.EventGatewayListenerPolicy{},
			KindEventGatewayClusterPolicy:        &configurationv1alpha1.EventGatewayVirtualClusterPolicy{},
			KindEventGatewayConsumePolicy:        &configurationv1alpha1.EventGatewayVirtualClusterConsumePolicy{},
			KindEventGatewayProducePolicy:        &configurationv1alpha1.EventGatewayVirtualClusterProducePolicy{},
		}
		if into = specs[kind]; into == nil {
			return nil, nil
		}
	}
	if err := yaml.Unmarshal(doc, into); err != nil {
		t.Fatal(err)
	}
	field := reflect.ValueOf(into).Elem().FieldByName("Spec").FieldByName("APISpec")
	return field.Addr().Interface(), reflect.New(field.Type()).Interface()
}

// TestAnEventGatewayEntityReadBackIsWrittenAsKonnectHoldsIt reads every
// Event Gateway object of the samples as Konnect would hold it (its body,
// sensitive values as their strings, a schema registry named by ID), reads
// that body back into a new apiSpec, and checks that the body written
// from it is the same: what an exported object asks for is what Konnect
// holds. Identity labels Konnect holds are not read back.
func TestAnEventGatewayEntityReadBackIsWrittenAsKonnectHoldsIt(t *testing.T) {
	encoder := egEncoder{
		secret: func(s egSensitiveData) (string, error) {
			if s.SecretRef != nil {
				return "from " + s.SecretRef.Name + "/" + s.SecretRef.Key, nil
			}
			return deref(s.Value), nil
		},
		schemaRegistry: func(ref egSchemaRegistryBy) (any, error) { return map[string]any{"id": "id-of-" + ref.Name}, nil },
	}
	registries := func(ref map[string]any) (string, error) {
		return strings.TrimPrefix(ref["id"].(string), "id-of-"), nil
	}
	kinds := map[string]int{}
	for _, pattern := range egSampleFiles {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("no samples %s: %v", pattern, err)
		}
		for _, file := range files {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, doc := range strings.Split(string(raw), "\n---") {
				var meta struct {
					Kind     string `json:"kind"`
					Metadata struct {
						Name string `json:"name"`
					} `json:"metadata"`
				}
				if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				spec, empty := egAPISpecOf(t, meta.Kind, []byte(doc))
				if spec == nil {
					continue
				}
				kinds[meta.Kind]++
				what := filepath.Base(file) + " " + meta.Kind + " " + meta.Metadata.Name
				written, err := encoder.body(reflect.ValueOf(spec).Elem().Interface())
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				stored := AsJSON(written).(map[string]any)
				stored["id"], stored["created_at"] = "an-id", "2026-01-01T00:00:00Z"
				if meta.Kind != KindEventGatewayDataPlaneCertificate {
					labels, _ := stored["labels"].(map[string]any)
					if labels == nil {
						labels = map[string]any{}
					}
					labels["k8s-uid"], labels["managed-by"] = "an-old-uid", "konnect-operator"
					stored["labels"] = labels
				}
				if err := DecodeEventGatewaySpec(stored, empty, registries); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				again, err := encoder.body(reflect.ValueOf(empty).Elem().Interface())
				if err != nil {
					t.Fatalf("%s, read back: %v", what, err)
				}
				if !reflect.DeepEqual(AsJSON(again), AsJSON(written)) {
					t.Errorf("%s: written %v, read back and written %v", what, AsJSON(written), AsJSON(again))
				}
				if want, got := egAsRead(AsJSON(spec)), egAsRead(AsJSON(empty)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: read back as\n%v\nwant\n%v", what, got, want)
				}
			}
		}
	}
	if len(kinds) != 10 {
		t.Errorf("the samples hold %d Event Gateway kinds, want all 10: %v", len(kinds), kinds)
	}
}

// TestAnEventGatewayUnionIsReadFromWhatKonnectWritesInItsPlace: a union
// whose member is a list or a string is that list or string in Konnect;
// reading it back names the member by its shape, and a body whose value
// has neither shape is refused with its path.
func TestAnEventGatewayUnionIsReadFromWhatKonnectWritesInItsPlace(t *testing.T) {
	cases := []struct {
		name  string
		body  map[string]any
		check func(configurationv1alpha1.EventGatewayVirtualClusterPolicyAPISpec) bool
		err   string
	}{
		{
			name: "a list", body: aclsBody([]any{map[string]any{"match": "orders.*"}}),
			check: func(s configurationv1alpha1.EventGatewayVirtualClusterPolicyAPISpec) bool {
				names := s.ACLs.Config.Rules[0].ResourceNames
				return s.Type == "acls" && names.Type == "stat" && len(names.Stat) == 1 && names.Stat[0].Match == "orders.*"
			},
		},
		{
			name: "a string", body: aclsBody("${context.topic}"),
			check: func(s configurationv1alpha1.EventGatewayVirtualClusterPolicyAPISpec) bool {
				names := s.ACLs.Config.Rules[0].ResourceNames
				return names.Type == "dynam" && deref(names.Dynam) == "${context.topic}"
			},
		},
		{name: "a number", body: aclsBody(7.0), err: "resourceNames"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var spec configurationv1alpha1.EventGatewayVirtualClusterPolicyAPISpec
			err := DecodeEventGatewaySpec(tc.body, &spec, nil)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one naming %s", err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err == "" && !tc.check(spec):
				t.Fatalf("read %+v", spec)
			}
		})
	}
	var listener configurationv1alpha1.EventGatewayListenerAPISpec
	if err := DecodeEventGatewaySpec(map[string]any{"name": "l", "ports": []any{9092.0, "19092-19095"}}, &listener, nil); err != nil {
		t.Fatal(err)
	}
	if want := []intstr.IntOrString{intstr.FromInt32(9092), intstr.FromString("19092-19095")}; !reflect.DeepEqual(listener.Ports, want) {
		t.Fatalf("ports %v, want %v", listener.Ports, want)
	}
}

// egAsRead is the JSON of an apiSpec as it reads back from Konnect: a
// sensitive value inline, a schema registry by name alone, and an empty
// member of a union (anonymous: {}) the same as none.
func egAsRead(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["secretRef"].(map[string]any); ok && x["type"] == "secretRef" {
			return map[string]any{"type": "inline", "value": "from " + ref["name"].(string) + "/" + ref["key"].(string)}
		}
		out := map[string]any{}
		for k, item := range x {
			if m, ok := item.(map[string]any); ok && len(m) == 0 {
				continue
			}
			if k == "schemaRegistry" {
				if m, ok := item.(map[string]any); ok && m["type"] == nil {
					item = map[string]any{"name": m["name"]}
				}
			}
			out[k] = egAsRead(item)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = egAsRead(item)
		}
		return out
	}
	return v
}

func aclsBody(resourceNames any) map[string]any {
	return map[string]any{"type": "acls", "name": "acls", "config": map[string]any{"rules": []any{map[string]any{
		"action": "allow", "resource_type": "topic", "operations": []any{map[string]any{"name": "read"}}, "resource_names": resourceNames,
	}}}}
}
