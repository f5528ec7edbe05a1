// Package v1alpha2 holds the v1alpha2 API types of the konnect.konghq.com group.
//
// +k8s:deepcopy-gen=package
// +groupName=konnect.konghq.com
package v1alpha2
