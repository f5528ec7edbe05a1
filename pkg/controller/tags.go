package controller

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// Limits Konnect puts on tags and labels.
const (
	MaxTags        = 20
	MaxTagLength   = 128
	MaxLabelLength = 63
	ManagedBy      = "konnect-operator"
	// LabelManagedBy is the tag key (and control-plane label) whose value
	// is ManagedBy on every entity the operator writes.
	LabelManagedBy    = "managed-by"
	TagKeyUID         = "k8s-uid"
	identityNamespace = "k8s-namespace"
	identityName      = "k8s-name"
	identityKind      = "k8s-kind"
)

// IsIdentityTag reports whether a tag (key:value), or a control-plane label
// key, is part of the identity an operator writes (k8s-… and managed-by),
// this one's or Kong Operator's, rather than one a user asked for.
func IsIdentityTag(tag string) bool {
	key, _, _ := strings.Cut(tag, ":")
	return strings.HasPrefix(key, "k8s-") || key == LabelManagedBy
}

// UserTags returns the tags among tags that are not identity tags, sorted:
// what a spec asks for and an adopted entity must already carry.
func UserTags(tags []string) []string {
	out := slices.DeleteFunc(slices.Clone(tags), IsIdentityTag)
	slices.Sort(out)
	return out
}

// UserLabels returns the labels that are not identity labels.
func UserLabels(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		if !IsIdentityTag(k) {
			out[k] = v
		}
	}
	return out
}

// ObjectIdentity is what an entity's identity tags (or a control plane's
// identity labels) say of the object it was written for: its kind,
// namespace and name, which, unlike its UID, survive a cluster rebuilt from
// Git or objects restored from a backup. Zero when the entity carries none.
type ObjectIdentity struct {
	Kind, Namespace, Name string
	// UID is the object's UID when the entity was last written.
	UID string
}

// IdentityFromTags reads the object identity among tags (key:value).
func IdentityFromTags(tags []string) ObjectIdentity {
	var id ObjectIdentity
	for _, t := range tags {
		key, value, _ := strings.Cut(t, ":")
		id.set(key, value)
	}
	return id
}

// IdentityFromLabels reads the object identity among a control plane's
// labels.
func IdentityFromLabels(labels map[string]string) ObjectIdentity {
	var id ObjectIdentity
	for key, value := range labels {
		id.set(key, value)
	}
	return id
}

func (id *ObjectIdentity) set(key, value string) {
	switch key {
	case identityKind:
		id.Kind = value
	case identityName:
		id.Name = value
	case identityNamespace:
		id.Namespace = value
	case TagKeyUID:
		id.UID = value
	}
}

// Names reports whether the identity names obj, an object of kind: its
// name may have been cut to what a tag (128 characters with its key) or a
// label value (63) holds.
func (id ObjectIdentity) Names(kind string, obj metav1.Object) bool {
	return id.Kind == kind && id.Namespace == obj.GetNamespace() && id.Name != "" && slices.Contains(cutNames(obj.GetName()), id.Name)
}

// cutNames are the forms a name takes in identity tags and labels: whole,
// cut to fit a tag, cut to fit a label value.
func cutNames(name string) []string {
	forms := []string{name, truncateRunes(name, MaxTagLength-len(identityName)-1), truncateRunes(name, MaxLabelLength)}
	return slices.Compact(forms)
}

// String names the object as Events and conditions do.
func (id ObjectIdentity) String() string {
	if id.Namespace == "" {
		return id.Kind + " " + id.Name
	}
	return id.Kind + " " + id.Namespace + "/" + id.Name
}

// KindTag is the tag that lists the entities of a kind, whichever
// operator wrote them: k8s-kind:<Kind>.
func KindTag(kind string) string { return identityKind + ":" + kind }

// UIDTag is the tag that finds an object's entity again: k8s-uid:<uid>.
func UIDTag(obj metav1.Object) string {
	return TagKeyUID + ":" + string(obj.GetUID())
}

// identity returns the identity key/value pairs of obj, in a fixed order:
// with the k8s-cluster pair when cluster (this cluster's identity) is set.
func identity(obj metav1.Object, gvk schema.GroupVersionKind, cluster string) [][2]string {
	pairs := [][2]string{
		{"k8s-generation", strconv.FormatInt(obj.GetGeneration(), 10)},
		{"k8s-group", gvk.Group},
		{identityKind, gvk.Kind},
		{identityName, obj.GetName()},
		{TagKeyUID, string(obj.GetUID())},
		{"k8s-version", gvk.Version},
		{LabelManagedBy, ManagedBy},
	}
	if ns := obj.GetNamespace(); ns != "" {
		pairs = append(pairs, [2]string{identityNamespace, ns})
	}
	if cluster != "" {
		pairs = append(pairs, [2]string{TagKeyCluster, cluster})
	}
	return pairs
}

// Tags returns the Konnect tags of an entity: the identity tags of obj
// (k8s-cluster:<cluster> among them when cluster is set), then the extra
// tags, then the tags of the konghq.com/tags annotation of each annotated
// object (usually obj itself). Each is cut to 128 characters; duplicates
// keep their first place; the first 20 are kept, sorted. So when there are
// too many, annotation tags go first and user tags after them; the identity
// tags always stay. A user's identity tag (k8s-… or managed-by:…, which the
// API refuses but an object stored before that rule may still carry) is
// dropped: it would shadow the operator's own, and an entity names one owner,
// the cluster whose operator writes it.
func Tags(obj metav1.Object, gvk schema.GroupVersionKind, cluster string, extra []string, annotated ...metav1.Object) []string {
	var all []string
	for _, kv := range identity(obj, gvk, cluster) {
		all = append(all, kv[0]+":"+kv[1])
	}
	identities := len(all)
	all = append(all, extra...)
	for _, a := range annotated {
		all = append(all, AnnotationTags(a)...)
	}
	seen := map[string]bool{}
	out := make([]string, 0, MaxTags)
	for i, tag := range all {
		tag = truncateRunes(tag, MaxTagLength)
		if tag == "" || seen[tag] || i >= identities && IsIdentityTag(tag) {
			continue
		}
		seen[tag] = true
		out = append(out, tag)
		if len(out) == MaxTags {
			break
		}
	}
	slices.Sort(out)
	return out
}

// AnnotationTags splits the konghq.com/tags annotation of obj.
func AnnotationTags(obj metav1.Object) []string {
	value := obj.GetAnnotations()[commonv1alpha1.AnnotationTags]
	if value == "" {
		return nil
	}
	return strings.Split(value, ",")
}

// Labels returns the Konnect labels of a control plane: the user's labels
// and the identity pairs of obj (k8s-cluster=<cluster> among them when
// cluster is set); every value cut to 63 characters. A user's identity label
// (managed-by or k8s-…, which the API refuses but an object stored before
// that rule may still carry) is dropped, so that the identity is always the
// operator's: listing by managed-by and finding by k8s-uid depend on it.
func Labels(obj metav1.Object, gvk schema.GroupVersionKind, cluster string, user map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range UserLabels(user) {
		out[k] = truncateRunes(v, MaxLabelLength)
	}
	for _, kv := range identity(obj, gvk, cluster) {
		out[kv[0]] = truncateRunes(kv[1], MaxLabelLength)
	}
	return out
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
