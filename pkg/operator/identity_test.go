package operator

import (
	"strings"
	"testing"
)

func TestClusterIdentityMustBeWrittenWhole(t *testing.T) {
	cases := []struct {
		identity string
		valid    bool
	}{
		{identity: "4f1c2d9e-0a7b-4c3d-9e8f-1a2b3c4d5e6f", valid: true}, // a kube-system UID
		{identity: "restored-cluster", valid: true},
		{identity: "eu.prod_1", valid: true},
		{identity: strings.Repeat("a", 63), valid: true},
		{identity: strings.Repeat("a", 64)},
		{identity: "-cluster"},
		{identity: "cluster:a"},
		{identity: "cluster a"},
	}
	for _, c := range cases {
		if err := validClusterIdentity(c.identity); (err == nil) != c.valid {
			t.Errorf("%q: valid %v, error %v", c.identity, c.valid, err)
		}
	}
}
