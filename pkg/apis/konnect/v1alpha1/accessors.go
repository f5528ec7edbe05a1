package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GetConditions returns the status conditions.
func (o *KonnectAPIAuthConfiguration) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *KonnectAPIAuthConfiguration) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}
