package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// PortalCustomization is the look of a Portal: its theme, layout, menus, CSS and
// robots.txt. A portal has exactly one customization, which always exists:
// the object writes it, and deleting the object writes Konnect's defaults
// back.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the portal whose customization it is"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the customization is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.portalRef == oldSelf.spec.portalRef",message="spec.portalRef is immutable when an entity is already Programmed: create a new object for another portal"
type PortalCustomization struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired customization.
	//
	// +required
	Spec PortalCustomizationSpec `json:"spec"`

	// Status is the customization as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status PortalEntityStatus `json:"status,omitempty"`
}

// PortalCustomizationSpec is the desired state of a PortalCustomization.
type PortalCustomizationSpec struct {
	// PortalRef names the Portal the customization belongs to.
	//
	// +required
	PortalRef commonv1alpha1.ObjectRef `json:"portalRef,omitzero"`

	// APISpec is the customization as Konnect's API describes it.
	//
	// +optional
	APISpec PortalCustomizationAPISpec `json:"apiSpec,omitzero"`
}

// PortalCustomizationList is a list of PortalCustomizations.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PortalCustomizationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the PortalCustomizations.
	Items []PortalCustomization `json:"items"`
}

// PortalCustomizationAPISpec is a portal's customization as Konnect's API
// describes it, with Kong Operator's field names. Unset fields are
// Konnect's defaults.
type PortalCustomizationAPISpec struct {
	// Theme is the portal's colors and mode.
	//
	// +optional
	Theme *PortalTheme `json:"theme,omitempty"`

	// Layout names the portal's layout.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Layout string `json:"layout,omitempty"`

	// CSS is CSS added to every page.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	CSS *string `json:"css,omitempty"`

	// Menu is the portal's main and footer menus.
	//
	// +optional
	Menu *PortalMenu `json:"menu,omitempty"`

	// SpecRenderer is how API specifications are shown.
	//
	// +optional
	SpecRenderer *PortalSpecRenderer `json:"specRenderer,omitempty"`

	// Robots is the portal's robots.txt.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Robots *string `json:"robots,omitempty"`
}

// PortalTheme is a portal's theme.
type PortalTheme struct {
	// Name of the theme.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`

	// Mode is light, dark or system.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=light;dark;system
	// +optional
	Mode string `json:"mode,omitempty"`

	// Colors are the theme's colors.
	//
	// +optional
	Colors *PortalThemeColors `json:"colors,omitempty"`
}

// PortalThemeColors are a theme's colors.
type PortalThemeColors struct {
	// Primary is the primary color, as #rgb or #rrggbb.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^#([a-fA-F0-9]{6}|[a-fA-F0-9]{3})$`
	// +optional
	Primary string `json:"primary,omitempty"`
}

// PortalMenu is a portal's menus.
type PortalMenu struct {
	// Main is the main menu.
	//
	// +optional
	Main []PortalMenuItem `json:"main,omitempty"`

	// FooterSections are the footer's sections.
	//
	// +optional
	FooterSections []PortalFooterMenuSection `json:"footerSections,omitempty"`

	// FooterBottom is the menu at the bottom of the footer.
	//
	// +optional
	FooterBottom []PortalMenuItem `json:"footerBottom,omitempty"`
}

// PortalFooterMenuSection is a titled section of a portal's footer.
type PortalFooterMenuSection struct {
	// Title of the section.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +required
	Title string `json:"title"`

	// Items are the section's links.
	//
	// +required
	Items []PortalMenuItem `json:"items"`
}

// PortalMenuItem is a link of a portal's menu.
type PortalMenuItem struct {
	// Path is the page's absolute path in the portal, or a URL.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +required
	Path string `json:"path"`

	// Title is the link's text.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Title string `json:"title"`

	// Visibility is public, or private: only for developers who signed in.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=public;private
	// +required
	Visibility string `json:"visibility"`

	// External opens the link in a new window.
	//
	// +required
	External Toggle `json:"external"`
}

// PortalSpecRenderer is how a portal shows API specifications.
type PortalSpecRenderer struct {
	// TryItUI enables in-browser testing of the APIs.
	//
	// +optional
	TryItUI Toggle `json:"tryItUi,omitempty"`

	// TryItInsomnia lets developers open public specifications in
	// Insomnia.
	//
	// +optional
	TryItInsomnia Toggle `json:"tryItInsomnia,omitempty"`

	// InfiniteScroll shows a whole specification on one page.
	//
	// +optional
	InfiniteScroll Toggle `json:"infiniteScroll,omitempty"`

	// ShowSchemas shows the schemas below the endpoints.
	//
	// +optional
	ShowSchemas Toggle `json:"showSchemas,omitempty"`

	// HideInternal hides internal endpoints and models.
	//
	// +optional
	HideInternal Toggle `json:"hideInternal,omitempty"`

	// HideDeprecated hides deprecated endpoints and models.
	//
	// +optional
	HideDeprecated Toggle `json:"hideDeprecated,omitempty"`

	// AllowCustomServerUrls lets developers set their own server URL for
	// code snippets and tests.
	//
	// +optional
	AllowCustomServerUrls Toggle `json:"allowCustomServerUrls,omitempty"`
}
