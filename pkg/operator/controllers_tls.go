package operator

import (
	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/generated/informers/externalversions"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// certificateInformers are the informers of the certificate kinds, which
// KongServices refer to as well.
type certificateInformers struct {
	certificates   *controller.Informer[*configurationv1alpha1.KongCertificate]
	caCertificates *controller.Informer[*configurationv1alpha1.KongCACertificate]
}

func newCertificateInformers(f *informerFactories) certificateInformers {
	return certificateInformers{
		certificates: namespaced[*configurationv1alpha1.KongCertificate](f, configurationv1alpha1.Resource("kongcertificates"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCertificates().Informer()
			}),
		caCertificates: namespaced[*configurationv1alpha1.KongCACertificate](f, configurationv1alpha1.Resource("kongcacertificates"),
			func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
				return f.Configuration().V1alpha1().KongCACertificates().Informer()
			}),
	}
}

// buildUpstreamAndTLSControllers constructs the controllers of upstreams,
// targets, certificates, CA certificates, SNIs, keys, key sets, vaults and
// data-plane certificates.
func buildUpstreamAndTLSControllers(f *informerFactories, d dependencies, refs *entities.Refs, certs certificateInformers) ([]runnable, error) {
	cs := d.clientset.ConfigurationV1alpha1()
	upstreams := namespaced[*configurationv1alpha1.KongUpstream](f, configurationv1alpha1.Resource("kongupstreams"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongUpstreams().Informer()
		})
	targets := namespaced[*configurationv1alpha1.KongTarget](f, configurationv1alpha1.Resource("kongtargets"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongTargets().Informer()
		})
	snis := namespaced[*configurationv1alpha1.KongSNI](f, configurationv1alpha1.Resource("kongsnis"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongSNIs().Informer()
		})
	keys := namespaced[*configurationv1alpha1.KongKey](f, configurationv1alpha1.Resource("kongkeys"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongKeys().Informer()
		})
	keySets := namespaced[*configurationv1alpha1.KongKeySet](f, configurationv1alpha1.Resource("kongkeysets"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongKeySets().Informer()
		})
	dpCertificates := namespaced[*configurationv1alpha1.KongDataPlaneClientCertificate](f, configurationv1alpha1.Resource("kongdataplaneclientcertificates"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongDataPlaneClientCertificates().Informer()
		})
	vaults := clusterScoped[*configurationv1alpha1.KongVault](f, configurationv1alpha1.Resource("kongvaults"),
		func(f externalversions.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Configuration().V1alpha1().KongVaults().Informer()
		})

	var built []runnable
	add := func(c runnable, err error) error {
		if err == nil {
			built = append(built, c)
		}
		return err
	}
	for _, err := range []error{
		add(kindController(d, entities.UpstreamKind(refs, certs.certificates), upstreams,
			func(ns string) controller.Client[*configurationv1alpha1.KongUpstream] { return cs.KongUpstreams(ns) })),
		add(kindController(d, entities.TargetKind(refs, upstreams), targets,
			func(ns string) controller.Client[*configurationv1alpha1.KongTarget] { return cs.KongTargets(ns) })),
		add(kindController(d, entities.CertificateKind(refs), certs.certificates,
			func(ns string) controller.Client[*configurationv1alpha1.KongCertificate] {
				return cs.KongCertificates(ns)
			})),
		add(kindController(d, entities.CACertificateKind(refs), certs.caCertificates,
			func(ns string) controller.Client[*configurationv1alpha1.KongCACertificate] {
				return cs.KongCACertificates(ns)
			})),
		add(kindController(d, entities.SNIKind(refs, certs.certificates), snis,
			func(ns string) controller.Client[*configurationv1alpha1.KongSNI] { return cs.KongSNIs(ns) })),
		add(kindController(d, entities.KeySetKind(refs), keySets,
			func(ns string) controller.Client[*configurationv1alpha1.KongKeySet] { return cs.KongKeySets(ns) })),
		add(kindController(d, entities.KeyKind(refs, keySets), keys,
			func(ns string) controller.Client[*configurationv1alpha1.KongKey] { return cs.KongKeys(ns) })),
		add(kindController(d, entities.VaultKind(refs, f.watches), vaults,
			func(string) controller.Client[*configurationv1alpha1.KongVault] { return cs.KongVaults() })),
		add(kindController(d, entities.DataPlaneCertificateKind(refs), dpCertificates,
			func(ns string) controller.Client[*configurationv1alpha1.KongDataPlaneClientCertificate] {
				return cs.KongDataPlaneClientCertificates(ns)
			})),
	} {
		if err != nil {
			return nil, err
		}
	}
	return built, nil
}
