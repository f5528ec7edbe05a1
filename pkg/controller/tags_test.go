package controller

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var testGVK = schema.GroupVersionKind{Group: "configuration.konghq.com", Version: "v1alpha1", Kind: "KongService"}

func testMeta(annotations map[string]string) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{Name: "svc", Namespace: "team-a", UID: "1234", Generation: 3, Annotations: annotations}
}

func TestTags(t *testing.T) {
	identity := []string{
		"k8s-generation:3", "k8s-group:configuration.konghq.com", "k8s-kind:KongService", "k8s-name:svc",
		"k8s-namespace:team-a", "k8s-uid:1234", "k8s-version:v1alpha1", "managed-by:konnect-operator",
	}
	manyUserTags := make([]string, 15)
	for i := range manyUserTags {
		manyUserTags[i] = fmt.Sprintf("user-%02d", i)
	}
	withCluster := slices.Sorted(slices.Values(append(slices.Clone(identity), "k8s-cluster:cluster-a")))
	tests := []struct {
		name        string
		cluster     string
		extra       []string
		annotations map[string]string
		want        func(t *testing.T, got []string)
	}{
		{
			name: "identity tags only, sorted",
			want: func(t *testing.T, got []string) {
				if !slices.Equal(got, identity) {
					t.Fatalf("got %v, want %v", got, identity)
				}
			},
		},
		{
			name:        "user and annotation tags are merged and de-duplicated",
			extra:       []string{"team:a", "team:a"},
			annotations: map[string]string{"konghq.com/tags": "env:prod,team:a"},
			want: func(t *testing.T, got []string) {
				want := slices.Sorted(slices.Values(append(slices.Clone(identity), "env:prod", "team:a")))
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			},
		},
		{
			name:        "over twenty tags drop annotation tags first, never identity tags",
			extra:       manyUserTags,
			annotations: map[string]string{"konghq.com/tags": "from-annotation"},
			want: func(t *testing.T, got []string) {
				if len(got) != MaxTags {
					t.Fatalf("got %d tags, want %d", len(got), MaxTags)
				}
				if slices.Contains(got, "from-annotation") {
					t.Fatal("annotation tags must go first when over the limit")
				}
				for _, tag := range identity {
					if !slices.Contains(got, tag) {
						t.Fatalf("identity tag %q was dropped", tag)
					}
				}
			},
		},
		{
			name:    "the cluster's identity is an identity tag",
			cluster: "cluster-a",
			want: func(t *testing.T, got []string) {
				if !slices.Equal(got, withCluster) {
					t.Fatalf("got %v, want %v", got, withCluster)
				}
				if owner := OwnerFromTags(got); owner != "cluster-a" {
					t.Fatalf("owner %q, want cluster-a", owner)
				}
			},
		},
		{
			name: "no cluster identity, no k8s-cluster tag",
			want: func(t *testing.T, got []string) {
				if owner := OwnerFromTags(got); owner != "" {
					t.Fatalf("tags %v name owner %q", got, owner)
				}
			},
		},
		{
			name:        "the cluster tag stays when over twenty tags",
			cluster:     "cluster-a",
			extra:       manyUserTags,
			annotations: map[string]string{"konghq.com/tags": "from-annotation"},
			want: func(t *testing.T, got []string) {
				if len(got) != MaxTags {
					t.Fatalf("got %d tags, want %d", len(got), MaxTags)
				}
				for _, tag := range withCluster {
					if !slices.Contains(got, tag) {
						t.Fatalf("identity tag %q was dropped from %v", tag, got)
					}
				}
				if slices.Contains(got, manyUserTags[len(manyUserTags)-1]) {
					t.Fatalf("%v kept the last user tag, beyond the limit", got)
				}
			},
		},
		{
			name:        "a user's k8s-cluster tag never names another owner",
			cluster:     "cluster-a",
			extra:       []string{"k8s-cluster:cluster-b"},
			annotations: map[string]string{"konghq.com/tags": "k8s-cluster:cluster-c"},
			want: func(t *testing.T, got []string) {
				if !slices.Equal(got, withCluster) {
					t.Fatalf("got %v, want %v", got, withCluster)
				}
			},
		},
		{
			name:        "a user's identity tags never replace or shadow the operator's",
			cluster:     "cluster-a",
			extra:       []string{"k8s-uid:5678", "k8s-kind:KongRoute", "managed-by:someone-else", "team:a"},
			annotations: map[string]string{"konghq.com/tags": "k8s-name:other,k8s-anything:x"},
			want: func(t *testing.T, got []string) {
				want := slices.Sorted(slices.Values(append(slices.Clone(withCluster), "team:a")))
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
				if uid := UIDFromTags(got); uid != "1234" {
					t.Fatalf("the entity is found as %q, want the object's own UID 1234", uid)
				}
			},
		},
		{
			name:  "long tags are cut to 128 characters",
			extra: []string{strings.Repeat("x", 200)},
			want: func(t *testing.T, got []string) {
				if !slices.Contains(got, strings.Repeat("x", 128)) {
					t.Fatalf("no 128-character tag in %v", got)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := testMeta(tt.annotations)
			tt.want(t, Tags(obj, testGVK, tt.cluster, tt.extra, obj))
		})
	}
}

func TestLabels(t *testing.T) {
	cpGVK := schema.GroupVersionKind{Group: "konnect.konghq.com", Version: "v1alpha2", Kind: "KonnectGatewayControlPlane"}
	obj := &metav1.ObjectMeta{Name: strings.Repeat("n", 80), Namespace: "team-a", UID: "1234", Generation: 1}
	got := Labels(obj, cpGVK, "", map[string]string{"env": "prod"})
	if got["k8s-uid"] != "1234" || got["env"] != "prod" || got["managed-by"] != ManagedBy {
		t.Fatalf("unexpected labels %v", got)
	}
	if len(got["k8s-name"]) != MaxLabelLength {
		t.Fatalf("label values must be cut to %d characters, got %d", MaxLabelLength, len(got["k8s-name"]))
	}
	if _, ok := got[TagKeyCluster]; ok {
		t.Fatalf("labels %v name a cluster, without an identity", got)
	}

	owned := Labels(obj, cpGVK, "cluster-a", map[string]string{"env": "prod", TagKeyCluster: "cluster-b"})
	if owned[TagKeyCluster] != "cluster-a" || owned["env"] != "prod" || owned["k8s-uid"] != "1234" {
		t.Fatalf("labels %v: want k8s-cluster=cluster-a (the operator's, never the user's) next to the others", owned)
	}
	// An object stored before the API refused identity labels keeps the
	// operator's identity: its own labels of those keys are dropped.
	shadowed := Labels(obj, cpGVK, "cluster-a", map[string]string{
		LabelManagedBy: "someone-else", TagKeyUID: "5678", "k8s-kind": "Other", "k8s-extra": "x", "env": "prod",
	})
	if shadowed[LabelManagedBy] != ManagedBy || shadowed[TagKeyUID] != "1234" || shadowed["k8s-kind"] != cpGVK.Kind {
		t.Fatalf("labels %v: a user's identity label replaced the operator's", shadowed)
	}
	if _, ok := shadowed["k8s-extra"]; ok || shadowed["env"] != "prod" {
		t.Fatalf("labels %v: want the user's env label and no user k8s- label", shadowed)
	}
	if !IsIdentityTag(TagKeyCluster) {
		t.Fatalf("%s is not an identity label: comparisons would not ignore it", TagKeyCluster)
	}
	if _, ok := UserLabels(owned)[TagKeyCluster]; ok {
		t.Fatal("UserLabels keeps the cluster label")
	}
}

// The identity written on an entity names its object again, however long
// its name: what Tags and Labels wrote (cut to fit) is read back by
// IdentityFromTags and IdentityFromLabels and matched by Names.
func TestIdentityNamesTheObjectItWasWrittenFor(t *testing.T) {
	cpGVK := schema.GroupVersionKind{Group: "konnect.konghq.com", Version: "v1alpha2", Kind: "KonnectGatewayControlPlane"}
	for _, name := range []string{"svc", strings.Repeat("n", 80), strings.Repeat("l", 200)} {
		obj := &metav1.ObjectMeta{Name: name, Namespace: "team-a", UID: "1234", Generation: 2}
		fromTags := IdentityFromTags(Tags(obj, testGVK, "cluster-a", []string{"env:prod"}))
		if !fromTags.Names(testGVK.Kind, obj) || fromTags.UID != "1234" {
			t.Errorf("tags of %d-character name: identity %+v does not name the object", len(name), fromTags)
		}
		fromLabels := IdentityFromLabels(Labels(obj, cpGVK, "cluster-a", nil))
		if !fromLabels.Names(cpGVK.Kind, obj) {
			t.Errorf("labels of %d-character name: identity %+v does not name the object", len(name), fromLabels)
		}
		for _, other := range []*metav1.ObjectMeta{{Name: name, Namespace: "team-b"}, {Name: "other", Namespace: "team-a"}} {
			if fromLabels.Names(cpGVK.Kind, other) || fromTags.Names(testGVK.Kind, other) {
				t.Errorf("the identity of %s/%s names %s/%s too", obj.Namespace, name, other.Namespace, other.Name)
			}
		}
		// Names longer than a label value differ only past the cut: the
		// identity cannot tell them apart, the rest of the name can.
		longer := &metav1.ObjectMeta{Name: name + "x", Namespace: "team-a"}
		if len(name) < MaxLabelLength && fromLabels.Names(cpGVK.Kind, longer) {
			t.Errorf("the labels of %q name %q too", name, longer.Name)
		}
		if fromTags.Names("KongRoute", obj) {
			t.Errorf("the identity of a KongService names a KongRoute")
		}
	}
	if got := IdentityFromTags([]string{"env:prod"}); got != (ObjectIdentity{}) {
		t.Errorf("an entity without identity tags names %+v", got)
	}
}
