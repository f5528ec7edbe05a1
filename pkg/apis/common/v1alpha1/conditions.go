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
	// ConditionPortalRefValid says whether the Portal an object belongs to
	// exists and is Programmed.
	ConditionPortalRefValid = "PortalRefValid"
	// ConditionEventGatewayRefValid says whether the KonnectEventGateway an
	// object belongs to exists and is Programmed.
	ConditionEventGatewayRefValid = "EventGatewayRefValid"
	// ConditionEventGatewayBackendClusterRefValid says whether the backend
	// cluster a virtual cluster stands for exists and is Programmed.
	ConditionEventGatewayBackendClusterRefValid = "EventGatewayBackendClusterRefValid"
	// ConditionEventGatewayListenerRefValid says whether the listener a
	// listener policy belongs to exists and is Programmed.
	ConditionEventGatewayListenerRefValid = "EventGatewayListenerRefValid"
	// ConditionEventGatewayVirtualClusterRefValid says whether the virtual
	// cluster a policy belongs to exists and is Programmed.
	ConditionEventGatewayVirtualClusterRefValid = "EventGatewayVirtualClusterRefValid"
	// ConditionEventGatewaySchemaRegistryRefValid says whether the schema
	// registry a policy validates records with exists, is Programmed and
	// belongs to the policy's gateway.
	ConditionEventGatewaySchemaRegistryRefValid = "EventGatewaySchemaRegistryRefValid"
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
	// ReasonPending: the operator has not reported on the object's current
	// spec yet (what the schema seeds on a new object).
	ReasonPending = "Pending"
	// ReasonProgrammed: Programmed=True, Konnect holds what the object
	// declares.
	ReasonProgrammed = "Programmed"
	// ReasonFailedToCreate: Konnect refused to create the entity, or could
	// not be asked; the message is Konnect's.
	ReasonFailedToCreate = "FailedToCreate"
	// ReasonFailedToUpdate: Konnect refused to update the entity, or could
	// not be asked; the message is Konnect's.
	ReasonFailedToUpdate = "FailedToUpdate"
	// ReasonFailedToAdopt: spec.adopt could not take the entity over; the
	// Adopted condition says why.
	ReasonFailedToAdopt = "FailedToAdopt"
	// ReasonKonnectAPIOpFailed: Konnect could not be reached or answered
	// with a server error (or a delete failed); retried with backoff.
	ReasonKonnectAPIOpFailed = "KonnectAPIOpFailed"
	// ReasonConditionWithStatusFalseExists: a reference is refused or
	// invalid as the object names it (no KongReferenceGrant allows it, a
	// control plane of the wrong type, a Secret without the data it needs);
	// Kong Operator's reason, which only a change of the object, or a
	// grant, fixes.
	ReasonConditionWithStatusFalseExists = "ConditionWithStatusFalseExists"
	// ReasonFailedToSetControlPlaneGroupMembers: the members of a
	// control-plane group could not be set in Konnect, or a member is not
	// usable.
	ReasonFailedToSetControlPlaneGroupMembers = "FailedToSetControlPlaneGroupMembers"
	// ReasonFailedToAttachConsumerToGroup: a consumer could not be added to
	// (or removed from) one of its consumer groups in Konnect.
	ReasonFailedToAttachConsumerToGroup = "FailedToAttachConsumerToConsumerGroup"
	// ReasonResolvedRef: the reference (an auth configuration) was found
	// and may be used.
	ReasonResolvedRef = "ResolvedRef"
	// ReasonRefNotFound: the object a reference names does not exist.
	ReasonRefNotFound = "RefNotFound"
	// ReasonRefNotPermitted: a reference into another namespace that no
	// KongReferenceGrant there allows.
	ReasonRefNotPermitted = "RefNotPermitted"
	// ReasonRefInvalid: the reference names something that cannot be used
	// as named (for example an auth configuration of the wrong type).
	ReasonRefInvalid = "RefInvalid"
	// ReasonValid: the reference, or the token, is usable.
	ReasonValid = "Valid"
	// ReasonInvalid: the reference, the Secret, or the token cannot be used
	// as it is (Konnect rejects the token, a Secret lacks a key or label);
	// the message says which.
	ReasonInvalid = "Invalid"
	// ReasonNotProgrammed: the referenced object exists but is not
	// Programmed (not in Konnect yet).
	ReasonNotProgrammed = "NotProgrammed"
	// ReasonResolvedRefs: every cross-namespace reference is allowed.
	ReasonResolvedRefs = "ResolvedRefs"
	// ReasonAdopted: spec.adopt took the entity over (Adopted=True).
	ReasonAdopted = "Adopted"
	// ReasonFetchFailed: the entity spec.adopt names could not be read from
	// Konnect.
	ReasonFetchFailed = "FetchFailed"
	// ReasonUIDConflict: the entity spec.adopt names carries the k8s-uid
	// tag of another object.
	ReasonUIDConflict = "UIDConflict"
	// ReasonNotMatch: in match mode, the entity spec.adopt names differs
	// from the spec in the fields the message lists.
	ReasonNotMatch = "NotMatch"
	// ReasonMirrored: the control plane a mirror names was found
	// (Mirrored=True).
	ReasonMirrored = "Mirrored"
	// ReasonFailed: the control plane a mirror names could not be read
	// (Mirrored=False).
	ReasonFailed = "Failed"
	// ReasonResolved: every member of a control-plane group was found and
	// set (MembersReferenceResolved=True).
	ReasonResolved = "Resolved"
	// ReasonSomeMemberNotResolved: a member of a control-plane group does
	// not exist or is not Programmed yet.
	ReasonSomeMemberNotResolved = "SomeMemberNotResolved"
	// ReasonSetGroupMemberFailed: Konnect refused the members of a
	// control-plane group.
	ReasonSetGroupMemberFailed = "SetGroupMemberFailed"
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
	// operator sends none but a probe every few seconds (up to 20s), and
	// writes the object as soon as Konnect answers again.
	ReasonKonnectUnreachable = "KonnectUnreachable"
	// ReasonKonnectTokenRejected: Konnect rejects the token the object's
	// auth configuration holds (401: revoked, expired); the operator
	// checks it every few seconds (up to 20s) and writes the object as
	// soon as it is valid again or replaced.
	ReasonKonnectTokenRejected = "KonnectTokenRejected"
)

// Finalizers the operator puts on objects.
const (
	// FinalizerKonnectCleanup keeps an object until its Konnect entity is
	// deleted.
	FinalizerKonnectCleanup = "gateway.konghq.com/konnect-cleanup"
	// FinalizerAPIAuthInUse keeps a KonnectAPIAuthConfiguration while an
	// object uses it.
	FinalizerAPIAuthInUse = "konnect.konghq.com/konnectapiauth-in-use"
	// FinalizerSecretInUse keeps a Secret while a KonnectAPIAuthConfiguration
	// reads its token.
	FinalizerSecretInUse = "gateway.konghq.com/secret-in-use-by-konnect-resource"
	// FinalizerPluginInUse keeps a KongPlugin while a binding or an annotation
	// uses it.
	FinalizerPluginInUse = "gateway.konghq.com/plugin-in-use"
	// FinalizerCleanupPluginBinding keeps a plugin target until the
	// KongPluginBindings that target it are deleted.
	FinalizerCleanupPluginBinding = "gateway.konghq.com/cleanup-plugin-binding"
	// FinalizerNamespaceRights keeps the RoleBinding that grants the
	// operator its rights in a watched namespace (a namespaced install)
	// while the namespace has objects the operator must still clean up,
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
