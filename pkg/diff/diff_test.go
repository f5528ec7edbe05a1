package diff

import (
	"bytes"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/catalog"
)

func TestDifferencesShowBothValuesButNoSecret(t *testing.T) {
	var out bytes.Buffer
	printDifferences(&printer{w: &out}, "KongCertificate ns/shop", catalog.Comparison{
		State: catalog.StateDiffers, ID: "cert-1",
		Fields: []catalog.FieldDifference{
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
