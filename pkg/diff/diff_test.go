package diff

import (
	"bytes"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

func TestObjectsAreNamedAsKubectlNamesThem(t *testing.T) {
	cases := []struct {
		arg  string
		kind string // "" when refused
	}{
		{"KongService/orders", "KongService"},
		{"kongservices/orders", "KongService"},
		{"kongservice/orders", "KongService"},
		{"kc/alice", "KongConsumer"},
		{"kv/env", "KongVault"},
		{"konnectgatewaycontrolplane/prod", "KonnectGatewayControlPlane"},
		{"kongplugin/rate-limiting", ""}, // not an entity: its bindings are
		{"deployment/web", ""},
		{"orders", ""},
		{"kongservice/", ""},
	}
	for _, tc := range cases {
		targets, err := parseTargets([]string{tc.arg})
		switch {
		case tc.kind == "" && err == nil:
			t.Errorf("%s: taken as %s, want refused", tc.arg, targets[0].kind.name)
		case tc.kind != "" && err != nil:
			t.Errorf("%s: %v", tc.arg, err)
		case tc.kind != "" && targets[0].kind.name != tc.kind:
			t.Errorf("%s: taken as %s, want %s", tc.arg, targets[0].kind.name, tc.kind)
		}
	}
}

func TestDifferencesShowBothValuesButNoSecret(t *testing.T) {
	var out bytes.Buffer
	printDifferences(&printer{w: &out}, "KongCertificate ns/shop", entities.Comparison{
		State: entities.StateDiffers, ID: "cert-1",
		Fields: []entities.FieldDifference{
			{Field: "key", Hidden: true, Cluster: "never", Konnect: "shown"},
			{Field: "tags", Cluster: `["a"]`},
		},
	})
	want := "diff KongCertificate ns/shop (Konnect ID cert-1)\n" +
		"  key: differs (secret: values not shown)\n" +
		"  tags:\n  - Konnect: (unset)\n  + cluster: [\"a\"]\n"
	if out.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}
