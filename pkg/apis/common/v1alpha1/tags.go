package v1alpha1

// Tags are user tags for a Konnect entity. The operator adds its own
// identity tags before sending them; at most 20 tags reach Konnect.
//
// +kubebuilder:validation:MaxItems=20
// +kubebuilder:validation:XValidation:rule="self.all(tag, size(tag) >= 1 && size(tag) <= 128)",message="every tag must be between 1 and 128 characters long"
type Tags []string
