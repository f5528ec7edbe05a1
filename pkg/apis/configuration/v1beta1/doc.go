// Package v1beta1 holds the v1beta1 API types of the configuration.konghq.com group.
//
// +k8s:deepcopy-gen=package
// +groupName=configuration.konghq.com
package v1beta1
