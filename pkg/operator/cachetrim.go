package operator

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// trimForCache keeps out of the informers' caches what the operator never
// reads and what can outweigh the rest of an object: its field-ownership
// records, and the copy of the whole object that kubectl apply keeps in an
// annotation (for a Secret, its values once more). With 100,000 objects
// that is most of the memory the caches would hold. What is left shares
// the strings that most objects repeat (see internMeta).
//
// The operator writes its objects' metadata with patches and their status
// through the status subresource, which leave both on the server as they
// are; the hash of what a Konnect write depends on is taken on these
// trimmed objects alike, at every start.
func trimForCache(obj any) (any, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return obj, nil
	}
	m.SetManagedFields(nil)
	internMeta(m)
	if c, ok := obj.(conditioned); ok {
		internConditions(c.GetConditions())
	}
	if annotations := m.GetAnnotations(); annotations != nil {
		if _, ok := annotations[corev1.LastAppliedConfigAnnotation]; ok {
			delete(annotations, corev1.LastAppliedConfigAnnotation)
			if len(annotations) == 0 {
				annotations = nil
			}
			m.SetAnnotations(annotations)
		}
	}
	return obj, nil
}

// conditioned is a cached object with status conditions.
type conditioned interface {
	GetConditions() []metav1.Condition
}

// The strings that most cached objects repeat (their namespace, labels,
// finalizers, owners' kinds, the types, statuses, reasons and messages of
// their conditions) are decoded as a copy per object; the caches keep one
// copy of each instead. Only short strings are shared, and only as many
// as maxInterned: what is unique per object (names, resource versions)
// is left as it is.
const (
	maxInternedLength = 128
	maxInterned       = 1 << 16
)

var interned = struct {
	sync.Mutex
	strings map[string]string
}{strings: map[string]string{}}

// intern returns the shared copy of s.
func intern(s string) string {
	if s == "" || len(s) > maxInternedLength {
		return s
	}
	interned.Lock()
	defer interned.Unlock()
	if shared, ok := interned.strings[s]; ok {
		return shared
	}
	if len(interned.strings) < maxInterned {
		interned.strings[s] = s
	}
	return s
}

// internMeta shares the repeated strings of an object's metadata.
func internMeta(m metav1.Object) {
	m.SetNamespace(intern(m.GetNamespace()))
	if labels := m.GetLabels(); len(labels) > 0 {
		shared := make(map[string]string, len(labels))
		for k, v := range labels {
			shared[intern(k)] = intern(v)
		}
		m.SetLabels(shared)
	}
	if annotations := m.GetAnnotations(); len(annotations) > 0 {
		shared := make(map[string]string, len(annotations))
		for k, v := range annotations {
			shared[intern(k)] = intern(v)
		}
		m.SetAnnotations(shared)
	}
	finalizers := m.GetFinalizers()
	for i := range finalizers {
		finalizers[i] = intern(finalizers[i])
	}
	owners := m.GetOwnerReferences()
	for i := range owners {
		owners[i].APIVersion, owners[i].Kind = intern(owners[i].APIVersion), intern(owners[i].Kind)
	}
}

// internConditions shares the repeated strings of conditions, in place.
func internConditions(conditions []metav1.Condition) {
	for i := range conditions {
		c := &conditions[i]
		c.Type, c.Reason, c.Message = intern(c.Type), intern(c.Reason), intern(c.Message)
		c.Status = metav1.ConditionStatus(intern(string(c.Status)))
	}
}
