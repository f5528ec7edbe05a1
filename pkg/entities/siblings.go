package entities

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// inControlPlane looks up an entity that another one refers to by its
// Konnect ID (a service's client certificate, a key's key set): it must
// exist, not be deleting, be Programmed, and live in the referrer's control
// plane, since Konnect only resolves references within one control plane.
// It returns the entity's Konnect ID, or why it cannot be used and what
// the referrer needs before it can go on.
//
// A reference to an object of another shard is reported on the resolver
// (as resolver.inOtherShard says) and answers problem "".
func inControlPlane[P placedEntity](b *resolver, inf *controller.Informer[P], conditionType, kind, namespace, name, controlPlaneID string) (id, problem string, refState controller.RefState) {
	what := fmt.Sprintf("%s %s/%s", kind, namespace, name)
	p, err := inf.Get(namespace, name)
	if err != nil {
		if other := otherShard(b, inf, namespace, name); other != nil {
			b.inOtherShard(conditionType, what, other)
			return "", "", controller.RefWaiting
		}
		return "", what + " not found", controller.RefWaiting
	}
	status := p.ControlPlaneStatus(false)
	switch {
	case isBeingDeleted(p):
		return "", what + " is being deleted", controller.RefWaiting
	case status == nil || status.ID == "" || !controller.IsConditionTrue(p.GetConditions(), commonv1alpha1.ConditionProgrammed):
		return "", notProgrammedMessage(what, p.GetConditions()), controller.RefStateOf(p.GetConditions())
	case status.ControlPlaneID != controlPlaneID:
		return "", fmt.Sprintf("%s is in control plane %s, not in %s", what, status.ControlPlaneID, controlPlaneID), controller.RefRefused
	}
	return status.ID, "", controller.RefWaiting
}

// certificateRef resolves a reference from a KongService or KongUpstream to
// the KongCertificate it presents as client certificate, and sets
// KongCertificateRefValid. It returns the certificate's Konnect ID, "" when
// it cannot be used (or there is no reference).
func (r *Refs) certificateRef(b *resolver, certs *controller.Informer[kongCertificate], from referrer, ref *commonv1alpha1.NamespacedRef, controlPlaneID string) string {
	if ref == nil {
		return ""
	}
	namespace := namespaceOr(ref.Namespace, from.namespace)
	if namespace != from.namespace && !b.crossNamespace(fmt.Sprintf("%s %s/%s", kindCertificate, namespace, ref.Name),
		r.permitted(from, groupConfiguration, kindCertificate, namespace, ref.Name)) {
		b.notReady()
		return ""
	}
	id, problem, refState := inControlPlane(b, certs, commonv1alpha1.ConditionKongCertificateRefValid, kindCertificate, namespace, ref.Name, controlPlaneID)
	if problem != "" {
		b.invalid(commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ReasonInvalid, "%s", problem)
		b.refStateAt(refState)
	}
	if id == "" {
		return ""
	}
	b.valid(commonv1alpha1.ConditionKongCertificateRefValid, fmt.Sprintf("%s %s/%s is Programmed", kindCertificate, namespace, ref.Name))
	return id
}

// namespacedRefKeys returns the key of the object a NamespacedRef names,
// for dependency indexes.
func namespacedRefKeys(ref *commonv1alpha1.NamespacedRef, own string) []string {
	if ref == nil || ref.Name == "" {
		return nil
	}
	return []string{key(namespaceOr(ref.Namespace, own), ref.Name)}
}

// namespacedRefNamespace returns the namespace a NamespacedRef points into
// ("" when there is no reference).
func namespacedRefNamespace(ref *commonv1alpha1.NamespacedRef, own string) string {
	if ref == nil || ref.Name == "" {
		return ""
	}
	return namespaceOr(ref.Namespace, own)
}

// Kinds as messages and grants name them.
const (
	kindCertificate   = "KongCertificate"
	kindCACertificate = "KongCACertificate"
	kindUpstream      = "KongUpstream"
	kindKeySet        = "KongKeySet"
)

// configurationGVK names a kind of configuration.konghq.com/v1alpha1.
func configurationGVK(kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: configurationv1alpha1.GroupName, Version: configurationv1alpha1.GroupVersion.Version, Kind: kind}
}
