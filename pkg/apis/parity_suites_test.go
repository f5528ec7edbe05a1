package apis

import (
	"fmt"
	"strings"
)

// Kong Operator runs two shared suites of control-plane reference cases for
// every kind that has one; expand writes them out as parity cases, with
// Kong Operator's inputs and messages.

const (
	cpRefImmutable       = "spec.controlPlaneRef is immutable when an entity is already Programmed"
	cpRefKICWithNSRef    = "when type is kic, konnectNamespacedRef must not be set"
	cpRefNamespace       = "spec.controlPlaneRef cannot specify namespace for namespaced resource"
	cpRefRequired        = "spec.controlPlaneRef: Required value"
	cpRefKICNotSupported = "KIC is not supported as control plane"
	tagsTooMany          = "spec.tags: Too many: 21: must have at most 20 items"
	tagTooLong           = "tags entries must not be longer than 128 characters"
)

// koProgrammed returns a status whose Programmed condition has the given
// status, as Kong Operator's suites write it.
func koProgrammed(status string) map[string]any {
	reason := "Valid"
	if status != "True" {
		reason = "NotProgrammed"
	}
	return map[string]any{"conditions": []any{map[string]any{
		"type": "Programmed", "status": status, "reason": reason, "message": "",
		"lastTransitionTime": "2025-01-01T00:00:00Z",
	}}}
}

func namespacedCPRef(name string) map[string]any {
	return map[string]any{"spec": map[string]any{"controlPlaneRef": map[string]any{
		"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": name},
	}}}
}

func cpRefPatch(ref any) map[string]any {
	return map[string]any{"spec": map[string]any{"controlPlaneRef": ref}}
}

// expand returns the file's cases after the suites' cases.
func (f *parityFile) expand() []parityCase {
	var cases []parityCase
	if suite := f.Suites.ControlPlaneRef; suite != nil {
		toNewCP := namespacedCPRef("new-konnect-control-plane")
		if suite.KIC {
			cases = append(cases, parityCase{Name: "cpRef/no cpRef is valid", Patch: cpRefPatch(nil)})
		}
		withNamespace := parityCase{
			Name: "cpRef/konnectNamespacedRef with a namespace",
			Patch: cpRefPatch(map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{
				"name": "test-konnect-control-plane", "namespace": "another-namespace",
			}}),
		}
		if !suite.NamespaceAllowed {
			withNamespace.Refused = cpRefNamespace
			withNamespace.Differs = "the stored suite predates Kong Operator's cross-namespace control-plane " +
				"references, allowed with a KongReferenceGrant (api-reference §2.8), which this project follows"
		}
		if !suite.ClusterScoped {
			cases = append(cases, withNamespace)
		}
		cases = append(cases,
			parityCase{
				Name: "cpRef/type kic with konnectNamespacedRef is refused",
				Patch: cpRefPatch(map[string]any{"type": "kic", "konnectNamespacedRef": map[string]any{
					"name": "test-konnect-control-plane",
				}}),
				Refused: cpRefKICWithNSRef,
			})
		if suite.KIC {
			cases = append(cases, parityCase{Name: "cpRef/type kic is allowed", Patch: cpRefPatch(map[string]any{"type": "kic"})})
		}
		cases = append(cases,
			parityCase{
				Name:          "cpRef/konnectNamespacedRef change refused when Programmed=True",
				Patch:         namespacedCPRef("test-konnect-control-plane"),
				Status:        koProgrammed("True"),
				Update:        toNewCP,
				UpdateRefused: cpRefImmutable,
			},
			parityCase{
				Name:   "cpRef/konnectNamespacedRef change allowed when Programmed=False",
				Patch:  namespacedCPRef("test-konnect-control-plane"),
				Status: koProgrammed("False"),
				Update: toNewCP,
			})
		if suite.KIC {
			cases = append(cases,
				parityCase{
					Name:          "cpRef/kic change refused when Programmed=True",
					Patch:         cpRefPatch(map[string]any{"type": "kic"}),
					Status:        koProgrammed("True"),
					Update:        toNewCP,
					UpdateRefused: cpRefImmutable,
				},
				parityCase{
					Name:   "cpRef/kic change allowed when Programmed=False",
					Patch:  cpRefPatch(map[string]any{"type": "kic"}),
					Status: koProgrammed("False"),
					Update: toNewCP,
				},
				parityCase{
					Name:   "cpRef/unset to set allowed when Programmed=False",
					Status: koProgrammed("False"),
					Update: toNewCP,
				},
				parityCase{
					Name:          "cpRef/empty to set refused when Programmed=True",
					Patch:         cpRefPatch(map[string]any{}),
					Status:        koProgrammed("True"),
					Update:        toNewCP,
					UpdateRefused: cpRefImmutable,
				})
		}
		if suite.Required {
			cases = append(cases, parityCase{Name: "cpRef/is required", Patch: cpRefPatch(nil), Refused: cpRefRequired})
		}
	}
	if suite := f.Suites.KICUnsupported; suite != nil {
		cases = append(cases, parityCase{
			Name:    "cpRef kic unsupported/type kic is refused",
			Patch:   cpRefPatch(map[string]any{"type": "kic"}),
			Refused: cpRefKICNotSupported,
		})
		unset := parityCase{Name: "cpRef kic unsupported/no cpRef", Patch: cpRefPatch(nil)}
		if !suite.EmptyAllowed {
			unset.Refused = "controlPlaneRef"
		}
		cases = append(cases, unset)
	}
	if suite := f.Suites.Tags; suite != nil {
		withTags := func(tags []any) map[string]any {
			return mergePatch(mergePatch(map[string]any{}, suite.Patch), map[string]any{"spec": map[string]any{"tags": tags}})
		}
		if !suite.NoMaxItems {
			cases = append(cases,
				parityCase{Name: "tags/up to 20 tags are allowed", Patch: withTags(numberedTags(20))},
				parityCase{Name: "tags/more than 20 tags are refused", Patch: withTags(numberedTags(21)), Refused: tagsTooMany})
		}
		cases = append(cases, parityCase{
			Name:    "tags/entries longer than 128 characters are refused",
			Patch:   withTags([]any{strings.Repeat("x", 129)}),
			Refused: tagTooLong,
		})
	}
	if suite := f.Suites.ParentRef; suite != nil {
		cases = append(cases, parentRefCases(suite.Field)...)
	}
	return append(cases, f.Cases...)
}

// parentRefImmutable is Kong Operator's message for a parent reference
// changed once the object is Programmed.
const parentRefImmutable = "immutable when an entity is already Programmed"

// parentRefCases are Kong Operator's cases of a parent reference (an
// ObjectRef in spec.<field>) that changes: refused once the object is
// Programmed, allowed while it is not.
func parentRefCases(field string) []parityCase {
	toOther := map[string]any{"spec": map[string]any{field: map[string]any{
		"type": "namespacedRef", "namespacedRef": map[string]any{"name": "different"},
	}}}
	readyFalse := map[string]any{"conditions": []any{map[string]any{
		"type": "Ready", "status": "False", "reason": "NotReady", "message": "",
		"lastTransitionTime": "2025-01-01T00:00:00Z",
	}}}
	return []parityCase{
		{Name: field + "/cannot change when Programmed", Status: koProgrammed("True"), Update: toOther, UpdateRefused: parentRefImmutable},
		{Name: field + "/can change when not Programmed", Status: readyFalse, Update: toOther},
		{Name: field + "/can change when Programmed is False", Status: koProgrammed("False"), Update: toOther},
	}
}

func numberedTags(n int) []any {
	tags := make([]any, n)
	for i := range tags {
		tags[i] = fmt.Sprintf("tag-%d", i)
	}
	return tags
}
