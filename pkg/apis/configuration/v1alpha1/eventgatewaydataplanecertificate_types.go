package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// EventGatewayDataPlaneCertificate is a certificate an event gateway's
// data planes authenticate with: a data plane holding its private key may
// connect to the gateway. Konnect keys it on the certificate itself.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the certificate"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the certificate is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.gatewayRef == oldSelf.spec.gatewayRef",message="spec.gatewayRef is immutable when an entity is already Programmed: create a new object for another gateway"
type EventGatewayDataPlaneCertificate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired certificate.
	//
	// +required
	Spec EventGatewayDataPlaneCertificateSpec `json:"spec"`

	// Status is the certificate as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status EventGatewayEntityStatus `json:"status,omitempty"`
}

// EventGatewayDataPlaneCertificateSpec is the desired state of an
// EventGatewayDataPlaneCertificate.
type EventGatewayDataPlaneCertificateSpec struct {
	// GatewayRef names the KonnectEventGateway the certificate belongs to
	// (type namespacedRef); another namespace needs a KongReferenceGrant
	// there.
	//
	// +required
	GatewayRef commonv1alpha1.ObjectRef `json:"gatewayRef,omitzero"`

	// APISpec is the certificate as Konnect's API describes it.
	//
	// +required
	APISpec EventGatewayDataPlaneCertificateAPISpec `json:"apiSpec"`
}

// EventGatewayDataPlaneCertificateAPISpec is a data-plane certificate as
// Konnect's API describes it, with Kong Operator's field names.
type EventGatewayDataPlaneCertificateAPISpec struct {
	// Certificate is the PEM certificate, inline or from a Secret (its
	// tls.crt, typically).
	//
	// +required
	Certificate SensitiveDataSource `json:"certificate"`

	// Name identifies the certificate in Konnect.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`

	// Description of the certificate.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Description string `json:"description,omitempty"`
}

// EventGatewayDataPlaneCertificateList is a list of
// EventGatewayDataPlaneCertificates.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type EventGatewayDataPlaneCertificateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the EventGatewayDataPlaneCertificates.
	Items []EventGatewayDataPlaneCertificate `json:"items"`
}
