package v1alpha1

import (
	"strings"
	"testing"
)

func TestShardNamesAndSelectors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		valid bool
	}{
		{"a", true}, {"eu-west-1", true}, {strings.Repeat("x", 30), true},
		{strings.Repeat("x", 31), false}, {"Upper", false}, {"under_score", false}, {"-a", false}, {"", false},
	} {
		if err := ValidShardName(tc.name); (err == nil) != tc.valid {
			t.Errorf("ValidShardName(%q) = %v, want valid %v", tc.name, err, tc.valid)
		}
	}
	if got := ShardSelector(""); got != "!konnect.konghq.com/shard" {
		t.Errorf("the default shard selects %q, want the objects without the label", got)
	}
	if got := ShardSelector("a"); got != "konnect.konghq.com/shard=a" {
		t.Errorf("shard a selects %q", got)
	}
	if got := ShardFinalizer(FinalizerNamespaceRights, ""); got != FinalizerNamespaceRights {
		t.Errorf("the default shard's finalizer is %q, want the one earlier versions put", got)
	}
	if got := ShardFinalizer(FinalizerNamespaceRights, strings.Repeat("x", 30)); len(got[strings.Index(got, "/")+1:]) > 63 {
		t.Errorf("a shard finalizer's name %q is longer than 63 characters", got)
	}
}
