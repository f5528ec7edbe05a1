package entities

import (
	"fmt"
	"strings"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// serviceCertificateConditions are the conditions of a KongService's
// certificate references.
var serviceCertificateConditions = []string{
	commonv1alpha1.ConditionKongCertificateRefValid,
	commonv1alpha1.ConditionKongCACertificateRefsValid,
}

// resolveCertificates resolves a service's client certificate and CA
// certificates, which must be Programmed in the service's control plane,
// and records their Konnect IDs in its status (the body takes them from
// there).
func (a *ServiceAdapter) resolveCertificates(b *resolver, svc kongService, controlPlaneID string) {
	from := referrerOf(a.GroupVersionKind(), svc)
	svc.Status.Konnect.CertificateID = a.Refs.certificateRef(b, a.Certificates, from, svc.Spec.ClientCertificateRef, controlPlaneID)
	svc.Status.Konnect.CACertificateIDs = a.caCertificates(b, from, svc.Spec.CACertificateRefs, controlPlaneID)
}

// caCertificates resolves caCertificateRefs, in order, and sets
// KongCACertificateRefsValid when there are any.
func (a *ServiceAdapter) caCertificates(b *resolver, from referrer, refs []commonv1alpha1.NamespacedRef, controlPlaneID string) []string {
	if len(refs) == 0 {
		return nil
	}
	var ids, problems []string
	refused := false
	for _, ref := range refs {
		namespace := namespaceOr(ref.Namespace, from.namespace)
		if namespace != from.namespace && !b.crossNamespace(fmt.Sprintf("%s %s/%s", kindCACertificate, namespace, ref.Name),
			a.Refs.permitted(from, groupConfiguration, kindCACertificate, namespace, ref.Name)) {
			b.notReady()
			refused = true
			continue
		}
		id, problem := inControlPlane(a.CACertificates, kindCACertificate, namespace, ref.Name, controlPlaneID)
		if problem != "" {
			problems = append(problems, problem)
			continue
		}
		ids = append(ids, id)
	}
	switch {
	case len(problems) > 0:
		b.invalid(commonv1alpha1.ConditionKongCACertificateRefsValid, commonv1alpha1.ReasonInvalid, "%s", strings.Join(problems, "; "))
	case !refused: // a refused reference is reported by ResolvedRefs
		b.valid(commonv1alpha1.ConditionKongCACertificateRefsValid, "")
	}
	if len(problems) > 0 || refused {
		return nil
	}
	return ids
}

// certificateDependencies reconcile a service again when a certificate it
// presents or trusts changes.
func (a *ServiceAdapter) certificateDependencies() []controller.Dependency[kongService] {
	return []controller.Dependency[kongService]{
		{
			Name:   "clientCertificate",
			Source: a.Certificates,
			Keys:   func(svc kongService) []string { return namespacedRefKeys(svc.Spec.ClientCertificateRef, svc.Namespace) },
		},
		{
			Name:   "caCertificates",
			Source: a.CACertificates,
			Keys: func(svc kongService) []string {
				var keys []string
				for i := range svc.Spec.CACertificateRefs {
					keys = append(keys, namespacedRefKeys(&svc.Spec.CACertificateRefs[i], svc.Namespace)...)
				}
				return keys
			},
		},
	}
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
