package v1alpha1

// Condition types written on Konnect entities.
const (
	// ConditionProgrammed is True when the entity exists in Konnect and
	// equals the spec.
	ConditionProgrammed = "Programmed"
	// ConditionAPIAuthResolvedRef says whether the KonnectAPIAuthConfiguration
	// to use was found and may be used.
	ConditionAPIAuthResolvedRef = "APIAuthResolvedRef"
	// ConditionAPIAuthValid says whether the KonnectAPIAuthConfiguration holds
	// a token that Konnect accepts.
	ConditionAPIAuthValid = "APIAuthValid"
	// ConditionControlPlaneRefValid says whether the control plane exists and
	// is Programmed.
	ConditionControlPlaneRefValid = "ControlPlaneRefValid"
	// ConditionResolvedRefs says whether every cross-namespace reference is
	// allowed by a KongReferenceGrant.
	ConditionResolvedRefs = "ResolvedRefs"
	// ConditionKongServiceRefValid says whether the referenced KongService is
	// usable.
	ConditionKongServiceRefValid = "KongServiceRefValid"
	// ConditionKongUpstreamRefValid says whether the referenced KongUpstream
	// is usable.
	ConditionKongUpstreamRefValid = "KongUpstreamRefValid"
	// ConditionKongCertificateRefValid says whether the referenced
	// KongCertificate is usable.
	ConditionKongCertificateRefValid = "KongCertificateRefValid"
	// ConditionKongCACertificateRefsValid says whether every referenced
	// KongCACertificate is usable.
	ConditionKongCACertificateRefsValid = "KongCACertificateRefsValid"
	// ConditionKeySetRefValid says whether the referenced KongKeySet is
	// usable.
	ConditionKeySetRefValid = "KeySetRefValid"
	// ConditionKongConsumerRefValid says whether the referenced KongConsumer
	// is usable.
	ConditionKongConsumerRefValid = "KongConsumerRefValid"
	// ConditionKongConsumerGroupRefsValid says whether every consumer group a
	// KongConsumer joins is usable.
	ConditionKongConsumerGroupRefsValid = "KongConsumerGroupRefsValid"
	// ConditionCredentialSecretRefsValid says whether every credential Secret
	// a KongConsumer lists exists and is well formed.
	ConditionCredentialSecretRefsValid = "CredentialSecretRefsValid"
	// ConditionSecretRefValid says whether the referenced Secrets exist and
	// hold the needed keys.
	ConditionSecretRefValid = "SecretRefValid"
	// ConditionPluginRefValid says whether the referenced plugin exists.
	ConditionPluginRefValid = "PluginRefValid"
	// ConditionConfigStoreRefValid says whether the referenced config store
	// is usable.
	ConditionConfigStoreRefValid = "ConfigStoreRefValid"
	// ConditionKonnectNetworkRefsValid says whether the Dedicated Cloud
	// Gateway networks an object refers to exist and are ready.
	ConditionKonnectNetworkRefsValid = "KonnectNetworkRefsValid"
	// ConditionAdopted reports the outcome of adopting an existing entity.
	ConditionAdopted = "Adopted"
	// ConditionMirrored reports whether a mirrored control plane was found.
	ConditionMirrored = "Mirrored"
	// ConditionMembersReferenceResolved reports whether the members of a
	// control-plane group were resolved and set.
	ConditionMembersReferenceResolved = "MembersReferenceResolved"
)

// The conditions tools that know nothing of Konnect read, with kstatus's
// conventions (sigs.k8s.io/cli-utils/pkg/kstatus): Ready is normal-true,
// Reconciling and Stalled are abnormal-true and absent when normal. They
// are derived from Programmed (APIAuthValid on an auth configuration) in
// one place, pkg/controller's SetReadiness.
const (
	// ConditionReady is True when the object is Programmed for its current
	// generation: what `kubectl wait --for=condition=Ready` waits for.
	ConditionReady = "Ready"
	// ConditionReconciling is True while the operator works towards the
	// spec: creating, updating, provisioning, deleting, retrying a failure
	// that may pass, or waiting for references that may still come.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when the object cannot progress without a
	// change: Konnect refuses the spec, another cluster owns the entity, a
	// reference is refused or fails in a way only its own change fixes (a
	// token Konnect rejects), or the object is paused with changes not
	// written.
	ConditionStalled = "Stalled"
)

// The reasons of Programmed=False when references are not usable. Kong
// Operator says ConditionWithStatusFalseExists for all of them; it is kept
// for a reference that is refused or invalid as the object names it (no
// KongReferenceGrant allows it, a control plane of the wrong type), which
// only a change of the object, or a grant, fixes. The other two tell the
// states that are not the object's own fault apart.
const (
	// ReasonWaitingForReferences: a reference does not exist yet, is on its
	// way to Konnect, is being deleted, or fails for a while (its own
	// failure is retried): the object goes on by itself once it is usable.
	ReasonWaitingForReferences = "WaitingForReferences"
	// ReasonBlockedByReference: a reference exists but cannot progress
	// without a change of its own (it is Stalled: a control plane whose
	// auth configuration holds a token Konnect rejects, a service Konnect
	// refuses), and neither can the object.
	ReasonBlockedByReference = "BlockedByReference"
)

// Condition reasons.
const (
	ReasonPending                             = "Pending"
	ReasonProgrammed                          = "Programmed"
	ReasonFailedToCreate                      = "FailedToCreate"
	ReasonFailedToUpdate                      = "FailedToUpdate"
	ReasonFailedToAdopt                       = "FailedToAdopt"
	ReasonKonnectAPIOpFailed                  = "KonnectAPIOpFailed"
	ReasonConditionWithStatusFalseExists      = "ConditionWithStatusFalseExists"
	ReasonFailedToSetControlPlaneGroupMembers = "FailedToSetControlPlaneGroupMembers"
	ReasonFailedToAttachConsumerToGroup       = "FailedToAttachConsumerToConsumerGroup"
	ReasonResolvedRef                         = "ResolvedRef"
	ReasonRefNotFound                         = "RefNotFound"
	ReasonRefNotPermitted                     = "RefNotPermitted"
	ReasonRefInvalid                          = "RefInvalid"
	ReasonValid                               = "Valid"
	ReasonInvalid                             = "Invalid"
	ReasonNotProgrammed                       = "NotProgrammed"
	ReasonResolvedRefs                        = "ResolvedRefs"
	ReasonAdopted                             = "Adopted"
	ReasonFetchFailed                         = "FetchFailed"
	ReasonUIDConflict                         = "UIDConflict"
	ReasonNotMatch                            = "NotMatch"
	ReasonMirrored                            = "Mirrored"
	ReasonFailed                              = "Failed"
	ReasonResolved                            = "Resolved"
	ReasonSomeMemberNotResolved               = "SomeMemberNotResolved"
	ReasonSetGroupMemberFailed                = "SetGroupMemberFailed"
	// ReasonProvisioning: Konnect is still provisioning the entity (or
	// changing it); the operator reads it again shortly.
	ReasonProvisioning = "Provisioning"
	// ReasonProvisioningFailed: Konnect reports that it could not
	// provision the entity.
	ReasonProvisioningFailed = "ProvisioningFailed"
	// ReasonDeleting: Konnect is deleting the entity; the object stays
	// until Konnect has finished.
	ReasonDeleting = "Deleting"
	// ReasonKonnectUnreachable: Konnect has stopped answering the
	// organisation's requests (5xx, timeouts, connections refused); the
	// operator sends none but a probe every few seconds (up to 30s), and
	// writes the object as soon as Konnect answers again.
	ReasonKonnectUnreachable = "KonnectUnreachable"
	// ReasonKonnectTokenRejected: Konnect rejects the token the object's
	// auth configuration holds (401: revoked, expired); the operator
	// checks it every few seconds (up to 30s) and writes the object as
	// soon as it is valid again or replaced.
	ReasonKonnectTokenRejected = "KonnectTokenRejected"
)

// Finalizers the operator puts on objects.
const (
	// FinalizerKonnectCleanup holds an object until its Konnect entity is
	// deleted.
	FinalizerKonnectCleanup = "gateway.konghq.com/konnect-cleanup"
	// FinalizerAPIAuthInUse holds a KonnectAPIAuthConfiguration while an
	// object uses it.
	FinalizerAPIAuthInUse = "konnect.konghq.com/konnectapiauth-in-use"
	// FinalizerSecretInUse holds a Secret while a KonnectAPIAuthConfiguration
	// reads its token.
	FinalizerSecretInUse = "gateway.konghq.com/secret-in-use-by-konnect-resource"
	// FinalizerPluginInUse holds a KongPlugin while a binding or an annotation
	// uses it.
	FinalizerPluginInUse = "gateway.konghq.com/plugin-in-use"
	// FinalizerCleanupPluginBinding holds a plugin target until the
	// KongPluginBindings that target it are deleted.
	FinalizerCleanupPluginBinding = "gateway.konghq.com/cleanup-plugin-binding"
	// FinalizerNamespaceRights holds the RoleBinding that grants the
	// operator its rights in a watched namespace (a namespaced install)
	// while the namespace holds objects the operator must still clean up,
	// so that deleting the namespace cannot take the rights away first.
	FinalizerNamespaceRights = "konnect.konghq.com/namespace-rights-in-use"
	// FinalizerGatewayControlPlane is put on control planes by Kong
	// Operator's Gateway controller; the operator removes it on deletion.
	FinalizerGatewayControlPlane = "gateway.operator.konghq.com/konnect-gateway-controlplane"
)

// Annotations and labels the operator reads.
const (
	// AnnotationPlugins lists KongPlugin names to bind to the annotated
	// object.
	AnnotationPlugins = "konghq.com/plugins"
	// AnnotationTags lists extra Konnect tags, comma separated.
	AnnotationTags = "konghq.com/tags"
	// LabelCredential marks a Secret as a Konnect token (value konnect) or a
	// consumer credential (basic-auth, key-auth, acl, jwt, hmac).
	LabelCredential = "konghq.com/credential"
	// LabelSecret, set to "true", marks a Secret of TLS material that
	// KongCertificates and KongCACertificates may read (Kong's convention
	// for the Secrets its controllers read).
	LabelSecret = "konghq.com/secret"
)
