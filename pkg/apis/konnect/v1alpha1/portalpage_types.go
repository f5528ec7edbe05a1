package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// PortalPage is a page of a Portal, written in Markdown. Konnect keys a
// page on its slug within the portal.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the page"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the page is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.portalRef == oldSelf.spec.portalRef",message="spec.portalRef is immutable when an entity is already Programmed: create a new object for another portal"
type PortalPage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired page.
	//
	// +required
	Spec PortalPageSpec `json:"spec"`

	// Status is the page as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status PortalEntityStatus `json:"status,omitempty"`
}

// PortalPageSpec is the desired state of a PortalPage.
type PortalPageSpec struct {
	// PortalRef names the Portal the page belongs to.
	//
	// +required
	PortalRef commonv1alpha1.ObjectRef `json:"portalRef,omitzero"`

	// APISpec is the page as Konnect's API describes it.
	//
	// +optional
	APISpec PortalPageAPISpec `json:"apiSpec,omitzero"`
}

// PortalPageAPISpec is a page as Konnect's API describes it, with Kong
// Operator's field names.
//
// +kubebuilder:validation:XValidation:rule="!has(self.parentPageIDRef)",message="cannot set parentPageIDRef: nested pages are not supported; leave parentPageIDRef out"
type PortalPageAPISpec struct {
	// Slug is the page's path segment within the portal, unique among the
	// pages of the portal.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +required
	Slug string `json:"slug"`

	// Content is the page's Markdown.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1000000
	// +required
	Content string `json:"content"`

	// Title of the page.
	//
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Title string `json:"title,omitempty"`

	// Description of the page.
	//
	// +kubebuilder:validation:MaxLength=160
	// +optional
	Description string `json:"description,omitempty"`

	// Status says whether the page is published or unpublished (Konnect's
	// default).
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=published;unpublished
	// +optional
	Status string `json:"status,omitempty"`

	// Visibility says whether developers who are not signed in see the
	// page (public) or not (private); unset takes the portal's default
	// page visibility.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=public;private
	// +optional
	Visibility string `json:"visibility,omitempty"`

	// ParentPageIDRef would nest the page below another (Kong Operator
	// names it with an ObjectRef); it cannot be set, whatever it holds.
	//
	// +kubebuilder:validation:Type=object
	// +optional
	ParentPageIDRef *apiextensionsv1.JSON `json:"parentPageIDRef,omitempty"`
}

// PortalPageList is a list of PortalPages.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PortalPageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the PortalPages.
	Items []PortalPage `json:"items"`
}
