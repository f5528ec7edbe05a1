package main

import "testing"

func TestSlugFollowsGitHubAnchors(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Quick start", "quick-start"},
		{"Konnect's rate limits", "konnects-rate-limits"},
		{"CRDs with the release", "crds-with-the-release"},
		{"configuration.konghq.com/v1alpha1", "configurationkonghqcomv1alpha1"},
		{"spec.adopt", "specadopt"},
		{"kubectl konnect", "kubectl-konnect"},
		{"Day-2 controls", "day-2-controls"},
		{"konnect_operator_objects", "konnect_operator_objects"},
		{"Moved to a new cluster (blue/green)", "moved-to-a-new-cluster-bluegreen"},
		{"Où ça?", "où-ça"},
	} {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

func TestHeadingTextIsWhatGitHubRenders(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"`kubectl konnect status`", "kubectl konnect status"},
		{"The [chart](install.md)'s values", "The chart's values"},
		{"<a id=\"x\"></a>Flags", "Flags"},
	} {
		if got := headingText(tc.raw); got != tc.want {
			t.Errorf("headingText(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestCellEscapesMarkupOutsideCodeSpans(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a | b", `a \| b`},
		{"label shard=<name>", "label shard=&lt;name&gt;"},
		{"run `kubectl wait --for=condition=Ready` now", "run `kubectl wait --for=condition=Ready` now"},
		{"k8s-* tags\n  and  more", `k8s-\* tags and more`},
		{"`a|b`", "`a\\|b`"},
		{"an unpaired ` quote", "an unpaired \\` quote"},
	} {
		if got := cell(tc.in); got != tc.want {
			t.Errorf("cell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExternalLinksAreToldApart(t *testing.T) {
	for _, tc := range []struct {
		target string
		want   bool
	}{
		{"https://konghq.com", true},
		{"mailto:someone@example.com", true},
		{"//example.com/x", true},
		{"install.md", false},
		{"install.md#helm", false},
		{"#flags", false},
		{"../manifests/chart/values.yaml", false},
	} {
		if got := isExternal(tc.target); got != tc.want {
			t.Errorf("isExternal(%q) = %v, want %v", tc.target, got, tc.want)
		}
	}
}
