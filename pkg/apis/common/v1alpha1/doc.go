// Package v1alpha1 holds the types that several konnect-operator kinds share:
// control-plane and object references, adoption options, tags, and the
// status blocks that record where an object lives in Konnect.
//
// +k8s:deepcopy-gen=package
package v1alpha1
