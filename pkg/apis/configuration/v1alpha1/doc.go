// Package v1alpha1 holds the v1alpha1 API types of the configuration.konghq.com group.
//
// +k8s:deepcopy-gen=package
// +groupName=configuration.konghq.com
package v1alpha1
