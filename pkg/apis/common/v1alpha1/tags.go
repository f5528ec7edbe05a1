package v1alpha1

// Tags are user tags for a Konnect entity. The operator adds its own
// identity tags (k8s-… and managed-by:…) before sending them, so a user's
// tag of those forms is refused: it would shadow the operator's identity.
// At most 20 tags reach Konnect.
//
// +kubebuilder:validation:MaxItems=20
// +kubebuilder:validation:XValidation:rule="self.all(tag, !tag.startsWith('k8s-') && !tag.startsWith('managed-by:'))",message="tags entries must not start with k8s- or managed-by: the operator writes those tags itself to identify the object"
// +kubebuilder:validation:XValidation:rule="self.all(tag, size(tag) >= 1 && size(tag) <= 128)",message="tags entries must not be longer than 128 characters"
type Tags []string
