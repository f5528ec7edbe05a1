package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%02d", prefix, i)
	}
	return out
}

// identityTags are the tags every entity of the test's namespace carries,
// whatever the limit.
func identityTags(e *env, obj metav1.Object, kind, version string) []string {
	return []string{
		fmt.Sprintf("k8s-generation:%d", obj.GetGeneration()), "k8s-group:configuration.konghq.com", "k8s-kind:" + kind,
		"k8s-name:" + obj.GetName(), "k8s-uid:" + string(obj.GetUID()), "k8s-version:" + version,
		"managed-by:konnect-operator", "k8s-namespace:" + e.ns, "k8s-cluster:" + e.clusterIdentity(),
	}
}

func TestTagLimitDropsAnnotationTagsThenSpecTags(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	cases := []struct {
		name       string
		spec, anno []string
		// want are the user tags that must reach Konnect, next to the 9
		// identity tags; the others must not.
		want []string
	}{
		{
			name: "under the limit", spec: numbered("spec", 2), anno: numbered("anno", 2),
			want: append(numbered("spec", 2), numbered("anno", 2)...),
		},
		{
			name: "annotation tags go first", spec: numbered("spec", 10), anno: numbered("anno", 5),
			want: append(numbered("spec", 10), numbered("anno", 1)...),
		},
		{
			name: "then spec tags", spec: numbered("spec", 15), anno: numbered("anno", 3),
			want: numbered("spec", 11),
		},
		{
			name: "duplicates count once", spec: []string{"shared", "spec-00"}, anno: []string{"shared", "anno-00"},
			want: []string{"shared", "spec-00", "anno-00"},
		},
	}
	check := func(t *testing.T, ent map[string]any, identity, want, all []string) {
		t.Helper()
		got := tagsOf(ent)
		if !slices.IsSorted(got) {
			t.Errorf("tags %v are not sorted", got)
		}
		if len(got) != len(identity)+len(want) {
			t.Errorf("%d tags %v, want %d", len(got), got, len(identity)+len(want))
		}
		for _, tag := range append(slices.Clone(identity), want...) {
			if !slices.Contains(got, tag) {
				t.Errorf("tags %v lack %q", got, tag)
			}
		}
		for _, tag := range all {
			if !slices.Contains(want, tag) && slices.Contains(got, tag) {
				t.Errorf("tags %v carry %q beyond the limit", got, tag)
			}
		}
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			annotation := map[string]string{commonv1alpha1.AnnotationTags: strings.Join(tc.anno, ",")}
			all := append(slices.Clone(tc.spec), tc.anno...)

			svcName := fmt.Sprintf("svc-%d", i)
			e.createService(svcName, func(s *configurationv1alpha1.KongService) {
				s.Spec.Tags, s.Annotations = tc.spec, annotation
			})
			svc := e.programmedService(svcName)
			check(t, e.serviceEntity(cpID, svc.Status.Konnect.ID), identityTags(e, svc, "KongService", "v1alpha1"), tc.want, all)

			consumerName := fmt.Sprintf("consumer-%d", i)
			c := &configurationv1.KongConsumer{
				ObjectMeta: metav1.ObjectMeta{Name: consumerName, Annotations: annotation},
				Username:   consumerName,
				Spec:       configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef("cp"), Tags: tc.spec},
			}
			if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, c, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			consumer := e.programmedConsumer(consumerName)
			ent, _ := e.entity(cpID, "consumers", consumer.Status.Konnect.ID)
			check(t, ent, identityTags(e, consumer, "KongConsumer", "v1"), tc.want, all)
		})
	}
}

func TestPluginAnnotationTagsReachItsPlugins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	e.createService("svc")
	e.createPlugin("rate", "rate-limiting", `{"minute": 5}`)
	tagPlugin := func(tags string) {
		e.retryUpdate(func() error {
			p, err := e.cs.ConfigurationV1().KongPlugins(e.ns).Get(e.ctx, "rate", metav1.GetOptions{})
			if err == nil {
				p.Annotations = map[string]string{commonv1alpha1.AnnotationTags: tags}
				p.Tags = []string{"plugin-spec-tag"}
				_, err = e.cs.ConfigurationV1().KongPlugins(e.ns).Update(e.ctx, p, metav1.UpdateOptions{})
			}
			return err
		})
	}
	tagPlugin("team:edge,cost:42")
	e.createBinding("user", "rate", func(b *configurationv1alpha1.KongPluginBinding) {
		b.Spec.Scope = configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane
		b.Spec.Tags = []string{"binding-spec-tag", "plugin-spec-tag"}
		b.Annotations = map[string]string{commonv1alpha1.AnnotationTags: "binding:user"}
	})
	e.annotate("KongService", "svc", "rate")

	pluginTags := func() map[string][]string {
		out := map[string][]string{}
		for _, ent := range e.entities(cpID, "plugins") {
			kind := "managed"
			if refID(ent, "service") == "" {
				kind = "user"
			}
			out[kind] = tagsOf(ent)
		}
		return out
	}
	e.eventually("both plugins carry the KongPlugin's tags and annotation tags", func() error {
		tags := pluginTags()
		for _, kind := range []string{"user", "managed"} {
			for _, want := range []string{"team:edge", "cost:42", "plugin-spec-tag", "k8s-kind:KongPluginBinding", "managed-by:konnect-operator"} {
				if !slices.Contains(tags[kind], want) {
					return fmt.Errorf("%s plugin tags %v lack %q", kind, tags[kind], want)
				}
			}
		}
		for _, want := range []string{"binding:user", "binding-spec-tag"} {
			if !slices.Contains(tags["user"], want) {
				return fmt.Errorf("user plugin tags %v lack the binding's tag %q", tags["user"], want)
			}
		}
		if slices.Contains(tags["managed"], "binding-spec-tag") {
			return fmt.Errorf("managed plugin tags %v carry another binding's tag", tags["managed"])
		}
		for kind, ts := range tags {
			if len(slices.Compact(slices.Clone(ts))) != len(ts) {
				return fmt.Errorf("%s plugin tags %v repeat one", kind, ts)
			}
		}
		return nil
	})

	tagPlugin("team:core")
	e.eventually("a change of the annotation reaches both plugins", func() error {
		for kind, ts := range pluginTags() {
			if !slices.Contains(ts, "team:core") || slices.Contains(ts, "team:edge") || slices.Contains(ts, "cost:42") {
				return fmt.Errorf("%s plugin tags %v", kind, ts)
			}
		}
		return nil
	})
}
