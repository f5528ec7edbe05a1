package entities

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// API groups and kinds as grants and messages name them.
const (
	groupKonnect       = "konnect.konghq.com"
	groupConfiguration = "configuration.konghq.com"
	groupCore          = "core"

	kindControlPlane = "KonnectGatewayControlPlane"
	kindAuthConfig   = "KonnectAPIAuthConfiguration"
	kindSecret       = "Secret"

	clusterTypeGroup = "CLUSTER_TYPE_CONTROL_PLANE_GROUP"
)

// Refs resolves the references that many kinds share — control planes,
// their KonnectAPIAuthConfiguration and its token, KongReferenceGrants —
// through informers. It keeps no token in memory: deletes read the token
// from its Secret, which a finalizer keeps while a configuration uses it
// (see TokenSecretReconciler), so a restarted operator can still delete.
type Refs struct {
	ControlPlanes *controller.Informer[*konnectv1alpha2.KonnectGatewayControlPlane]
	AuthConfigs   *controller.Informer[*konnectv1alpha1.KonnectAPIAuthConfiguration]
	// Secrets holds only the Secrets with the operator's labels.
	Secrets *controller.Informer[*corev1.Secret]
	Grants  *controller.Informer[*configurationv1alpha1.KongReferenceGrant]
	// SecretClient reads Secrets past the cache and protects token
	// Secrets; nil in tests that need neither.
	SecretClient SecretClient
	// Networks are the Dedicated Cloud Gateway networks, which name an
	// auth configuration of their own; nil when they are not watched.
	Networks *controller.Informer[*konnectv1alpha1.KonnectCloudGatewayNetwork]
	// AuthUsers are the other kinds whose objects name an auth
	// configuration of their own (portals).
	AuthUsers []AuthUser
}

// referrer is the object that holds a reference.
type referrer struct {
	group, kind, namespace string
}

func referrerOf(gvk schema.GroupVersionKind, obj metav1.Object) referrer {
	return referrer{group: gvk.Group, kind: gvk.Kind, namespace: obj.GetNamespace()}
}

// permitted reports whether a KongReferenceGrant in the target namespace
// lets from refer to the named object of the given group and kind
// (api-reference §2.8: group, kind and namespace of from; group, kind and
// optional name of to; versions play no part; the core group is "core").
//
// Grants are read from the informers of the watched namespaces, and every
// referrer watches the grants of the namespaces it refers into, so adding a
// grant fixes a refused reference without touching the referrer. Removing
// the grant that allowed a reference refuses it again: the referrer stops
// syncing (Programmed=False, ConditionWithStatusFalseExists) but what it
// created in Konnect is left in place, since revoking trust should not
// destroy configuration. Deleting the referrer still deletes its entity:
// grants are not enforced when deleting.
func (r *Refs) permitted(from referrer, toGroup, toKind, toNamespace, toName string) bool {
	if from.namespace == toNamespace {
		return true
	}
	grants, err := r.Grants.ByIndex(cache.NamespaceIndex, toNamespace)
	if err != nil {
		return false
	}
	for _, g := range grants {
		if grantAllows(g, from, toGroup, toKind, toName) {
			return true
		}
	}
	return false
}

func grantAllows(g *configurationv1alpha1.KongReferenceGrant, from referrer, toGroup, toKind, toName string) bool {
	fromOK := false
	for _, f := range g.Spec.From {
		if coreGroup(f.Group) == coreGroup(from.group) && f.Kind == from.kind && f.Namespace == from.namespace {
			fromOK = true
			break
		}
	}
	if !fromOK {
		return false
	}
	for _, t := range g.Spec.To {
		if coreGroup(t.Group) == coreGroup(toGroup) && t.Kind == toKind && (t.Name == nil || *t.Name == toName) {
			return true
		}
	}
	return false
}

// grantFor names a cross-namespace reference and the KongReferenceGrant
// that would allow it, for the messages of refused references.
func grantFor(from referrer, toGroup, toKind, toNamespace, toName string) string {
	return fmt.Sprintf("%s %s/%s (it needs a KongReferenceGrant in namespace %s with from {group: %s, kind: %s, namespace: %s} and to {group: %s, kind: %s, name: %s or unset})",
		toKind, toNamespace, toName, toNamespace, coreGroup(from.group), from.kind, from.namespace, coreGroup(toGroup), toKind, toName)
}

// crossNamespaceRef checks a reference from another namespace against the
// grants and records it for ResolvedRefs; a refusal names the grant that
// would allow it.
func (r *Refs) crossNamespaceRef(b *resolver, from referrer, toGroup, toKind, toNamespace, toName string) bool {
	return b.crossNamespace(grantFor(from, toGroup, toKind, toNamespace, toName), r.permitted(from, toGroup, toKind, toNamespace, toName))
}

// coreGroup names the core API group "core", as grants do.
func coreGroup(group string) string {
	if group == "" {
		return groupCore
	}
	return group
}

func namespaceOr(namespace, fallback string) string {
	if namespace == "" {
		return fallback
	}
	return namespace
}

func isBeingDeleted(obj metav1.Object) bool { return obj.GetDeletionTimestamp() != nil }

// controlPlane resolves a control-plane reference held by from and sets
// ControlPlaneRefValid. It returns the control plane when the reference can
// be used for the resolver's purpose. checkGrant is false when the
// reference is inherited from a parent, which checked it itself.
func (r *Refs) controlPlane(b *resolver, from referrer, ref *commonv1alpha1.ControlPlaneRef, allowGroup, checkGrant bool) *konnectv1alpha2.KonnectGatewayControlPlane {
	if !ref.IsKonnect() {
		b.refuse(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid, "controlPlaneRef is not of type konnectNamespacedRef")
		return nil
	}
	name := ref.KonnectNamespacedRef.Name
	namespace := namespaceOr(ref.KonnectNamespacedRef.Namespace, from.namespace)
	what := fmt.Sprintf("%s %s/%s", kindControlPlane, namespace, name)
	if checkGrant && namespace != from.namespace &&
		!r.crossNamespaceRef(b, from, groupKonnect, kindControlPlane, namespace, name) {
		b.notReady()
		return nil
	}
	cp, err := r.ControlPlanes.Get(namespace, name)
	if err != nil {
		absent(b, r.ControlPlanes, commonv1alpha1.ConditionControlPlaneRefValid, what, namespace, name, func() {
			b.missing(commonv1alpha1.ConditionControlPlaneRefValid, what)
		})
		return nil
	}
	if b.forDelete() {
		if cp.Status.ID == "" {
			b.gone()
			return nil
		}
		// A control plane deleted with the orphan policy stays in Konnect,
		// and its entities with it; so does a protected one, which only a
		// namespace deleted whole can delete.
		if isBeingDeleted(cp) && (cp.Annotations[commonv1alpha1.AnnotationDeletionPolicy] == string(commonv1alpha1.DeletionPolicyOrphan) ||
			cp.Annotations[commonv1alpha1.AnnotationProtected] == "true") {
			b.res.ParentOrphans = true
		}
		return cp
	}
	switch {
	case isBeingDeleted(cp):
		b.invalid(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid, "%s is being deleted", what)
	case !allowGroup && isControlPlaneGroup(cp):
		b.refuse(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid,
			"%s is a control plane group (%s); only KongDataPlaneClientCertificates can be attached to a group", what, clusterTypeGroup)
	case cp.Status.ID == "" || !meta.IsStatusConditionTrue(cp.Status.Conditions, commonv1alpha1.ConditionProgrammed):
		reason := commonv1alpha1.ReasonNotProgrammed
		if !checkGrant {
			reason = commonv1alpha1.ReasonInvalid
		}
		b.notProgrammed(commonv1alpha1.ConditionControlPlaneRefValid, reason, what, cp.Status.Conditions)
	default:
		b.valid(commonv1alpha1.ConditionControlPlaneRefValid, what+" is Programmed")
		return cp
	}
	return nil
}

func isControlPlaneGroup(cp *konnectv1alpha2.KonnectGatewayControlPlane) bool {
	if cp.Status.ClusterType != "" {
		return cp.Status.ClusterType == clusterTypeGroup
	}
	req := cp.Spec.CreateControlPlaneRequest
	return req != nil && req.ClusterType != nil && *req.ClusterType == clusterTypeGroup
}

// auth resolves the KonnectAPIAuthConfiguration of a control plane and its
// token, and sets APIAuthResolvedRef and APIAuthValid. checkGrant is true
// for the control plane itself; its children inherit its verdict.
func (r *Refs) auth(b *resolver, cp *konnectv1alpha2.KonnectGatewayControlPlane, checkGrant bool) controller.Auth {
	return r.authOf(b, referrer{group: groupKonnect, kind: kindControlPlane, namespace: cp.Namespace}, cp.Name, cp.Spec.Konnect, checkGrant)
}

// authOf resolves the KonnectAPIAuthConfiguration that konnectConfig (the
// spec.konnect of the object name, of from's kind and namespace) names, as
// auth does for control planes.
func (r *Refs) authOf(b *resolver, from referrer, name string, konnectConfig *konnectv1alpha2.KonnectConfiguration, checkGrant bool) controller.Auth {
	if konnectConfig == nil || konnectConfig.AuthRef.Name == "" {
		b.refuse(commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ReasonRefInvalid,
			"%s %s/%s has no spec.konnect.authRef", from.kind, from.namespace, name)
		return controller.Auth{}
	}
	ref := konnectConfig.AuthRef
	namespace := from.namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		namespace = *ref.Namespace
	}
	what := fmt.Sprintf("%s %s/%s", kindAuthConfig, namespace, ref.Name)
	if checkGrant && namespace != from.namespace && !b.forDelete() {
		if !r.permitted(from, groupKonnect, kindAuthConfig, namespace, ref.Name) {
			b.refuse(commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ReasonRefNotPermitted,
				"no KongReferenceGrant allows the reference to %s", grantFor(from, groupKonnect, kindAuthConfig, namespace, ref.Name))
			return controller.Auth{}
		}
	}
	authConfig, err := r.AuthConfigs.Get(namespace, ref.Name)
	if err != nil {
		absent(b, r.AuthConfigs, commonv1alpha1.ConditionAPIAuthResolvedRef, what, namespace, ref.Name, func() {
			b.invalid(commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ReasonRefNotFound, "%s not found", what)
		})
		return controller.Auth{}
	}
	b.set(controller.TrueCondition(commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ReasonResolvedRef, what))

	if !b.forDelete() {
		valid := meta.FindStatusCondition(authConfig.Status.Conditions, commonv1alpha1.ConditionAPIAuthValid)
		if valid == nil || valid.Status != metav1.ConditionTrue {
			message := what + " has not been validated yet"
			switch {
			case valid != nil && valid.Status == metav1.ConditionUnknown && valid.Message != "":
				message = what + " could not be validated yet: " + valid.Message
			case valid != nil && valid.Message != "":
				message = what + " is not valid: " + valid.Message
			}
			b.invalid(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, "%s", message)
			// A token Konnect rejects blocks everything that uses it.
			b.holdAt(controller.HoldOf(authConfig.Status.Conditions))
			return controller.Auth{}
		}
	}
	token, err := r.Token(authConfig)
	if err != nil {
		b.invalid(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, "%s: %v", what, err)
		return controller.Auth{}
	}
	b.set(controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, what+" is valid"))
	serverURL := authConfig.Status.ServerURL
	if serverURL == "" {
		if serverURL, err = konnect.NormalizeServerURL(authConfig.Spec.ServerURL); err != nil {
			b.invalid(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, "%s: %v", what, err)
			return controller.Auth{}
		}
	}
	return controller.Auth{ServerURL: serverURL, Token: token, OrgID: authConfig.Status.OrganizationID}
}

// errTokenUnavailable wraps the reasons a token cannot be read.
var errTokenUnavailable = errors.New("token unavailable")

// Token returns the token of a KonnectAPIAuthConfiguration, inline or from
// its Secret.
func (r *Refs) Token(authConfig *konnectv1alpha1.KonnectAPIAuthConfiguration) (string, error) {
	token, err := r.readToken(authConfig)
	if err != nil {
		return "", err
	}
	// Go refuses such a header value, and the answer would only say
	// "invalid header field value".
	if trimmed := strings.TrimRight(token, "\r\n"); trimmed != token && !strings.ContainsAny(trimmed, "\r\n") {
		return "", fmt.Errorf("%w: the token ends with a newline (write it without one: printf %%s \"$TOKEN\", or kubectl create secret --from-literal)", errTokenInvalid)
	}
	if strings.ContainsAny(token, "\r\n") {
		return "", fmt.Errorf("%w: the token contains a line break", errTokenInvalid)
	}
	return token, nil
}

// errTokenInvalid wraps what makes a token unusable as it is.
var errTokenInvalid = errors.New("invalid token")

func (r *Refs) readToken(authConfig *konnectv1alpha1.KonnectAPIAuthConfiguration) (string, error) {
	switch authConfig.Spec.Type {
	case konnectv1alpha1.KonnectAPIAuthTypeToken:
		if authConfig.Spec.Token == "" {
			return "", fmt.Errorf("%w: spec.token is empty", errTokenUnavailable)
		}
		return authConfig.Spec.Token, nil
	case konnectv1alpha1.KonnectAPIAuthTypeSecretRef:
		ref := authConfig.Spec.SecretRef
		if ref == nil || ref.Name == "" {
			return "", fmt.Errorf("%w: spec.secretRef is not set", errTokenUnavailable)
		}
		namespace := namespaceOr(ref.Namespace, authConfig.Namespace)
		secret, err := r.Secrets.Get(namespace, ref.Name)
		if apierrors.IsNotFound(err) {
			return "", fmt.Errorf("%w: %w", errTokenUnavailable, &uncachedSecretError{namespace: namespace, name: ref.Name, label: tokenSecretLabel})
		}
		if err != nil {
			return "", err
		}
		if !tokenSecretLabel.on(secret) {
			return "", fmt.Errorf("%w: %w", errTokenUnavailable, unlabelled(namespace, ref.Name, tokenSecretLabel, hasLabel(secret, tokenSecretLabel.key)))
		}
		token := string(secret.Data["token"])
		if token == "" {
			return "", fmt.Errorf("%w: Secret %s/%s has no data key \"token\"", errTokenUnavailable, namespace, ref.Name)
		}
		return token, nil
	default:
		return "", fmt.Errorf("%w: unknown spec.type %q", errTokenUnavailable, authConfig.Spec.Type)
	}
}

// controlPlaneKeys returns the key of the control plane a reference names,
// for dependency indexes.
func controlPlaneKeys(ref *commonv1alpha1.ControlPlaneRef, namespace string) []string {
	if !ref.IsKonnect() {
		return nil
	}
	return []string{key(namespaceOr(ref.KonnectNamespacedRef.Namespace, namespace), ref.KonnectNamespacedRef.Name)}
}

func key(namespace, name string) string { return cache.NewObjectName(namespace, name).String() }
