package entities

import (
	"fmt"
	"strings"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// serviceCertificates is the reference of a KongService to the client
// certificate it presents and the CA certificates it trusts, which must be
// Programmed in the service's control plane. Their Konnect IDs are recorded
// in its status, where the body takes them from. They are only needed to
// write the service, not to delete it.
func serviceCertificates(refs *Refs, gvk schemaGVK, certs *controller.Informer[kongCertificate], caCerts *controller.Informer[kongCACertificate]) reference[kongService] {
	return reference[kongService]{
		conditions: []string{commonv1alpha1.ConditionKongCertificateRefValid, commonv1alpha1.ConditionKongCACertificateRefsValid},
		resolve: func(b *resolver, svc kongService) {
			cpID := b.res.Placement.ControlPlaneID
			if b.forDelete() || cpID == "" {
				return
			}
			from := referrerOf(gvk, svc)
			svc.Status.Konnect.CertificateID = refs.certificateRef(b, certs, from, svc.Spec.ClientCertificateRef, cpID)
			svc.Status.Konnect.CACertificateIDs = caCertificateRefs(b, refs, caCerts, from, svc.Spec.CACertificateRefs, cpID)
		},
		dependencies: []controller.Dependency[kongService]{
			{
				Name:   "clientCertificate",
				Source: certs,
				Keys:   func(svc kongService) []string { return namespacedRefKeys(svc.Spec.ClientCertificateRef, svc.Namespace) },
			},
			{
				Name:   "caCertificates",
				Source: caCerts,
				Keys: func(svc kongService) []string {
					var keys []string
					for i := range svc.Spec.CACertificateRefs {
						keys = append(keys, namespacedRefKeys(&svc.Spec.CACertificateRefs[i], svc.Namespace)...)
					}
					return keys
				},
			},
		},
		namespaces: certificateNamespaces,
	}
}

// caCertificateRefs resolves caCertificateRefs, in order, and sets
// KongCACertificateRefsValid when there are any.
func caCertificateRefs(b *resolver, r *Refs, caCerts *controller.Informer[kongCACertificate], from referrer, refs []commonv1alpha1.NamespacedRef, controlPlaneID string) []string {
	if len(refs) == 0 {
		return nil
	}
	var ids, problems []string
	refused := false
	// Those in another shard, reported as one condition.
	elsewhere := newResolver(b.ctx, b.purpose)
	for _, ref := range refs {
		namespace := namespaceOr(ref.Namespace, from.namespace)
		if namespace != from.namespace && !b.crossNamespace(fmt.Sprintf("%s %s/%s", kindCACertificate, namespace, ref.Name),
			r.permitted(from, groupConfiguration, kindCACertificate, namespace, ref.Name)) {
			b.notReady()
			refused = true
			continue
		}
		id, problem, refState := inControlPlane(elsewhere, caCerts, commonv1alpha1.ConditionKongCACertificateRefsValid, kindCACertificate, namespace, ref.Name, controlPlaneID)
		switch {
		case problem != "":
			problems = append(problems, problem)
			b.refStateAt(refState)
		case id != "":
			ids = append(ids, id)
		}
	}
	switch {
	case len(problems) > 0:
		b.invalid(commonv1alpha1.ConditionKongCACertificateRefsValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, "; "))
	case len(elsewhere.res.Conditions) > 0:
		b.summarize(commonv1alpha1.ConditionKongCACertificateRefsValid, commonv1alpha1.ReasonRefInOtherShard, elsewhere)
	case !refused: // a refused reference is reported by ResolvedRefs
		b.valid(commonv1alpha1.ConditionKongCACertificateRefsValid, "")
	}
	if len(problems) > 0 || len(elsewhere.res.Conditions) > 0 || refused {
		return nil
	}
	return ids
}

// certificateNamespaces returns the namespaces a service's certificate
// references point into, for the grant dependency.
func certificateNamespaces(svc kongService) []string {
	out := []string{namespacedRefNamespace(svc.Spec.ClientCertificateRef, svc.Namespace)}
	for i := range svc.Spec.CACertificateRefs {
		out = append(out, namespacedRefNamespace(&svc.Spec.CACertificateRefs[i], svc.Namespace))
	}
	return out
}
