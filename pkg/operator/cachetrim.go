package operator

import (
	"encoding/binary"
	"hash/fnv"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
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
// trimmed objects alike, at every start. The conditions are kept in a
// slice of their length (see internConditions).
func trimForCache(obj any) (any, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return obj, nil
	}
	m.SetManagedFields(nil)
	internMeta(m)
	if c, ok := obj.(conditioned); ok {
		c.SetConditions(internConditions(c.GetConditions()))
	}
	if k, ok := obj.(placed); ok {
		internPlacement(k)
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
	SetConditions([]metav1.Condition)
}

// placed is a cached object with a Konnect status.
type placed interface {
	KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus
}

// inControlPlane is a cached object whose status names its control plane.
type inControlPlane interface {
	ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef
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

// internConditions shares the repeated strings of conditions and returns
// them in a slice of their length: the decoder grows a slice by doubling,
// so six conditions arrive in room for eight (two thirds of a KiB a
// cached object would hold for nothing). Conditions equal to those of an
// object cached shortly before are shared with it (see sharedConditions).
func internConditions(conditions []metav1.Condition) []metav1.Condition {
	if len(conditions) == 0 {
		return conditions
	}
	for i := range conditions {
		c := &conditions[i]
		c.Type, c.Reason, c.Message = intern(c.Type), intern(c.Reason), intern(c.Message)
		c.Status = metav1.ConditionStatus(intern(string(c.Status)))
	}
	if shared := recentConditions.share(conditions); shared != nil {
		return shared
	}
	if cap(conditions) > len(conditions) {
		conditions = slices.Clone(conditions)
	}
	recentConditions.remember(conditions)
	return conditions
}

// maxSharedConditions bounds how many sets of conditions are remembered
// for sharing; once as many are, the memory starts afresh.
const maxSharedConditions = 4096

// sharedConditions remembers the conditions of recently cached objects.
// Objects of one kind that one operator made at about the same time
// often carry equal conditions (transitions in the same second, with the
// same messages), and six conditions weigh more than half a KiB; equal
// ones are kept once. The operator never changes a cached object (it
// changes copies), so a shared slice is never written.
//
// Only the last few thousand are remembered, and never looked up
// otherwise: conditions no object holds any more are let go once the
// memory starts afresh.
type sharedConditions struct {
	sync.Mutex
	bySum map[uint64][]metav1.Condition
}

var recentConditions = sharedConditions{bySum: map[uint64][]metav1.Condition{}}

// share returns remembered conditions equal to conditions, nil if none.
func (s *sharedConditions) share(conditions []metav1.Condition) []metav1.Condition {
	s.Lock()
	defer s.Unlock()
	shared, ok := s.bySum[conditionsSum(conditions)]
	if !ok || !slices.EqualFunc(shared, conditions, equalConditions) {
		return nil
	}
	return shared
}

// remember keeps conditions to share with objects cached after.
func (s *sharedConditions) remember(conditions []metav1.Condition) {
	s.Lock()
	defer s.Unlock()
	if len(s.bySum) >= maxSharedConditions {
		clear(s.bySum)
	}
	s.bySum[conditionsSum(conditions)] = conditions
}

func conditionsSum(conditions []metav1.Condition) uint64 {
	h := fnv.New64a()
	var number [8]byte
	for _, c := range conditions {
		for _, part := range []string{c.Type, string(c.Status), c.Reason, c.Message} {
			_, _ = h.Write([]byte(part))
			_, _ = h.Write([]byte{0})
		}
		binary.LittleEndian.PutUint64(number[:], uint64(c.ObservedGeneration))
		_, _ = h.Write(number[:])
		binary.LittleEndian.PutUint64(number[:], uint64(c.LastTransitionTime.UnixNano()))
		_, _ = h.Write(number[:])
	}
	return h.Sum64()
}

func equalConditions(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.ObservedGeneration == b.ObservedGeneration &&
		a.LastTransitionTime.Equal(&b.LastTransitionTime) && a.Reason == b.Reason && a.Message == b.Message
}

// internPlacement shares the strings that every entity of an
// organisation or control plane repeats in its status: the server URL,
// the organisation's ID and the control plane's.
func internPlacement(k placed) {
	if s := k.KonnectStatus(false); s != nil {
		s.ServerURL, s.OrgID = intern(s.ServerURL), intern(s.OrgID)
	}
	if cp, ok := k.(inControlPlane); ok {
		if s := cp.ControlPlaneStatus(false); s != nil {
			s.ControlPlaneID = intern(s.ControlPlaneID)
		}
	}
}
