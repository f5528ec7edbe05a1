package entities

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
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
// from its Secret, which a finalizer keeps while a configuration allowed to
// read it uses it (see TokenSecretReconciler), so a restarted operator can
// still delete.
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
	// Validations prove tokens valid before they are used (see
	// credentials); the auth configurations' controller keeps them.
	Validations *Validations
	// AllowedHosts are the servers a token may be sent to.
	AllowedHosts konnect.AllowedHosts
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
// destroy configuration. Deleting the referrer needs the grant too: the
// delete uses the token the reference reaches, and without the grant the
// object keeps its finalizer and says how to go on (restore the grant, or
// leave the entity in Konnect with the orphan deletion policy).
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
// be used for the resolver's purpose. inherited is true when the reference
// is a parent's: its grant is checked all the same, since the child uses
// the control plane's token through it.
func (r *Refs) controlPlane(b *resolver, from referrer, ref *commonv1alpha1.ControlPlaneRef, allowGroup, inherited bool) *konnectv1alpha2.KonnectGatewayControlPlane {
	if !ref.IsKonnect() {
		b.refuse(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid, "controlPlaneRef is not of type konnectNamespacedRef")
		return nil
	}
	name := ref.KonnectNamespacedRef.Name
	namespace := namespaceOr(ref.KonnectNamespacedRef.Namespace, from.namespace)
	what := fmt.Sprintf("%s %s/%s", kindControlPlane, namespace, name)
	if b.forDelete() {
		return r.controlPlaneToDelete(b, from, namespace, name, inherited)
	}
	if !r.controlPlaneAllowed(b, from, namespace, name, inherited) {
		return nil
	}
	cp, err := r.ControlPlanes.Get(namespace, name)
	if err != nil {
		absent(b, r.ControlPlanes, commonv1alpha1.ConditionControlPlaneRefValid, what, namespace, name, func() {
			b.missing(commonv1alpha1.ConditionControlPlaneRefValid, what)
		})
		return nil
	}
	switch {
	case isBeingDeleted(cp):
		b.invalid(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid, "%s is being deleted", what)
	case !allowGroup && isControlPlaneGroup(cp):
		b.refuse(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid,
			"%s is a control plane group (%s); only KongDataPlaneClientCertificates can be attached to a group", what, clusterTypeGroup)
	case cp.Status.ID == "" || !meta.IsStatusConditionTrue(cp.Status.Conditions, commonv1alpha1.ConditionProgrammed):
		reason := commonv1alpha1.ReasonNotProgrammed
		if inherited {
			reason = commonv1alpha1.ReasonInvalid
		}
		b.notProgrammed(commonv1alpha1.ConditionControlPlaneRefValid, reason, what, cp.Status.Conditions)
	default:
		b.valid(commonv1alpha1.ConditionControlPlaneRefValid, what+" is Programmed")
		return cp
	}
	return nil
}

// controlPlaneAllowed checks the grant of a reference to a control plane
// of another namespace. A parent's (inherited) is reported with the
// control plane's condition: the child's own references to other
// namespaces are its ResolvedRefs.
func (r *Refs) controlPlaneAllowed(b *resolver, from referrer, namespace, name string, inherited bool) bool {
	switch {
	case namespace == from.namespace:
		return true
	case inherited:
		if r.permitted(from, groupKonnect, kindControlPlane, namespace, name) {
			return true
		}
		b.refuse(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonRefNotPermitted,
			"no KongReferenceGrant allows the reference to %s", grantFor(from, groupKonnect, kindControlPlane, namespace, name))
		return false
	case r.crossNamespaceRef(b, from, groupKonnect, kindControlPlane, namespace, name):
		return true
	}
	b.notReady()
	return false
}

// controlPlaneToDelete resolves the control plane a delete needs. One that
// is gone took the entity with it: nothing is sent, and no grant is
// needed. One that is there must still be allowed, since its token would
// be used.
func (r *Refs) controlPlaneToDelete(b *resolver, from referrer, namespace, name string, inherited bool) *konnectv1alpha2.KonnectGatewayControlPlane {
	what := fmt.Sprintf("%s %s/%s", kindControlPlane, namespace, name)
	cp, err := r.ControlPlanes.Get(namespace, name)
	if err != nil {
		absent(b, r.ControlPlanes, commonv1alpha1.ConditionControlPlaneRefValid, what, namespace, name, func() {
			b.missing(commonv1alpha1.ConditionControlPlaneRefValid, what)
		})
		return nil
	}
	if cp.Status.ID == "" {
		b.gone()
		return nil
	}
	// A control plane deleted with the orphan policy stays in Konnect, and
	// its entities with it; so does a protected one, which only a namespace
	// deleted whole can delete. An object that follows it sends nothing,
	// allowed or not.
	if isBeingDeleted(cp) && (cp.Annotations[commonv1alpha1.AnnotationDeletionPolicy] == string(commonv1alpha1.DeletionPolicyOrphan) ||
		cp.Annotations[commonv1alpha1.AnnotationProtected] == "true") {
		b.res.ParentOrphans = true
	}
	if !r.controlPlaneAllowed(b, from, namespace, name, inherited) {
		return nil
	}
	return cp
}

func isControlPlaneGroup(cp *konnectv1alpha2.KonnectGatewayControlPlane) bool {
	if cp.Status.ClusterType != "" {
		return cp.Status.ClusterType == clusterTypeGroup
	}
	req := cp.Spec.CreateControlPlaneRequest
	return req != nil && req.ClusterType != nil && *req.ClusterType == clusterTypeGroup
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
