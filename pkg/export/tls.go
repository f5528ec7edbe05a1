package export

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// Data keys and label of the Secrets certificates are read from, as the
// operator reads them.
const (
	secretKeyTLSCert = "tls.crt"
	secretKeyTLSKey  = "tls.key"
)

// isVaultReference reports whether a certificate or key is a reference to
// a vault rather than the material itself.
func isVaultReference(value string) bool {
	return strings.HasPrefix(strings.TrimSpace(value), "{vault://")
}

// certificates puts each key pair into a Secret labelled
// konghq.com/secret=true (the alternative pair into a second one) and
// refers to it; a pair given as vault references stays inline, as there is
// no secret in it.
func (b *builder) certificates(c entities.Contents) error {
	for _, cert := range sortedByID(c.Certificates, func(c *components.Certificate) *string { return c.ID }) {
		id := deref(cert.ID)
		name := b.names.name(kindCertificate, "", "certificate", id)
		obj := &configurationv1alpha1.KongCertificate{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, kindCertificate),
			ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.KongCertificateSpec{
				ControlPlaneRef: b.controlPlaneRef(), Adopt: adopt(id),
				KongCertificateAPISpec: configurationv1alpha1.KongCertificateAPISpec{Tags: b.userTags("certificate", id, cert.Tags)},
			},
		}
		pairs := [][2]string{{cert.Cert, cert.Key}, {deref(cert.CertAlt), deref(cert.KeyAlt)}}
		inline := isVaultReference(cert.Key) || isVaultReference(deref(cert.KeyAlt))
		if inline {
			obj.Spec.Type = configurationv1alpha1.CertificateSourceInline
			obj.Spec.Cert, obj.Spec.Key = cert.Cert, cert.Key
			obj.Spec.CertAlt, obj.Spec.KeyAlt = deref(cert.CertAlt), deref(cert.KeyAlt)
		} else {
			obj.Spec.Type = configurationv1alpha1.CertificateSourceSecretRef
			obj.Spec.SecretRef = b.tlsSecret(name, id, pairs[0])
			if pairs[1][0] != "" {
				obj.Spec.SecretRefAlt = b.tlsSecret(name+"-alt", id, pairs[1])
			}
		}
		b.add(obj, kindCertificate, id, name)
	}
	return nil
}

// tlsSecret adds a Secret holding one key pair and refers to it.
func (b *builder) tlsSecret(preferred, id string, pair [2]string) *commonv1alpha1.NamespacedRef {
	name := b.names.name(kindSecret, preferred, "certificate", id)
	b.add(b.secret(name, commonv1alpha1.LabelSecret, "true", map[string]string{secretKeyTLSCert: pair[0], secretKeyTLSKey: pair[1]}), kindSecret, "", name)
	return &commonv1alpha1.NamespacedRef{Name: name}
}

// caCertificates are inline: a CA certificate is public.
func (b *builder) caCertificates(c entities.Contents) error {
	for _, ca := range sortedByID(c.CACertificates, func(c *components.CACertificate) *string { return c.ID }) {
		id := deref(ca.ID)
		name := b.names.name(kindCACertificate, "", "ca-certificate", id)
		b.add(&configurationv1alpha1.KongCACertificate{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, kindCACertificate),
			ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.KongCACertificateSpec{
				ControlPlaneRef: b.controlPlaneRef(), Adopt: adopt(id), Type: configurationv1alpha1.CertificateSourceInline,
				KongCACertificateAPISpec: configurationv1alpha1.KongCACertificateAPISpec{Cert: ca.Cert, Tags: b.userTags("CA certificate", id, ca.Tags)},
			},
		}, kindCACertificate, id, name)
	}
	return nil
}

func (b *builder) snis(c entities.Contents) error {
	for _, sni := range sortedByID(c.SNIs, func(s *components.Sni) *string { return s.ID }) {
		id := deref(sni.ID)
		certificate := b.nameOf(kindCertificate, deref(sni.Certificate.ID))
		if certificate == "" {
			b.skip("SNI", id, "its certificate is not exported")
			continue
		}
		name := b.names.name(kindSNI, sni.Name, "sni", id)
		b.add(&configurationv1alpha1.KongSNI{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, kindSNI),
			ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.KongSNISpec{
				CertificateRef: commonv1alpha1.NamespacedRef{Name: certificate}, Adopt: adopt(id),
				KongSNIAPISpec: configurationv1alpha1.KongSNIAPISpec{Name: sni.Name, Tags: b.userTags("SNI", id, sni.Tags)},
			},
		}, kindSNI, id, name)
	}
	return nil
}

func (b *builder) keySets(c entities.Contents) error {
	for _, set := range sortedByID(c.KeySets, func(s *components.KeySet) *string { return s.ID }) {
		id := deref(set.ID)
		if set.Name == nil {
			b.skip("key set", id, "it has no name, which KongKeySet requires")
			continue
		}
		name := b.names.name(kindKeySet, *set.Name, "key-set", id)
		b.add(&configurationv1alpha1.KongKeySet{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, kindKeySet),
			ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.KongKeySetSpec{
				ControlPlaneRef: b.controlPlaneRef(), Adopt: adopt(id),
				KongKeySetAPISpec: configurationv1alpha1.KongKeySetAPISpec{Name: *set.Name, Tags: b.userTags("key set", id, set.Tags)},
			},
		}, kindKeySet, id, name)
	}
	return nil
}

// keys stay inline: KongKey has no field that reads a Secret, so a private
// key is in the spec, as Kong Operator has it.
func (b *builder) keys(c entities.Contents) error {
	for _, key := range sortedByID(c.Keys, func(k *components.Key) *string { return k.ID }) {
		id := deref(key.ID)
		name := b.names.name(kindKey, deref(key.Name), "key-"+key.Kid, id)
		spec := configurationv1alpha1.KongKeySpec{
			ControlPlaneRef: b.controlPlaneRef(), Adopt: adopt(id),
			KongKeyAPISpec: configurationv1alpha1.KongKeyAPISpec{
				KID: key.Kid, Name: deref(key.Name), JWK: deref(key.Jwk), Tags: b.userTags("key", id, key.Tags),
			},
		}
		if pem := key.Pem; pem != nil {
			spec.PEM = &configurationv1alpha1.PEMKeyPair{PrivateKey: deref(pem.PrivateKey), PublicKey: deref(pem.PublicKey)}
			if spec.PEM.PrivateKey != "" {
				b.note("KongKey %s holds the private key of key %s in its spec (KongKey cannot read it from a Secret)", name, id)
			}
		}
		if set := deref(deref(key.Set).ID); set != "" {
			ref := b.nameOf(kindKeySet, set)
			if ref == "" {
				b.skip("key", id, "its key set "+set+" is not exported")
				continue
			}
			spec.KeySetRef = &configurationv1alpha1.KeySetRef{Type: configurationv1alpha1.KeySetRefNamespacedRef, NamespacedRef: &commonv1alpha1.NameRef{Name: ref}}
		}
		b.add(&configurationv1alpha1.KongKey{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kindKey), ObjectMeta: b.meta(name), Spec: spec,
		}, kindKey, id, name)
	}
	return nil
}

// vaults are cluster-scoped: each is named after its control plane's
// object and its prefix, and a KongReferenceGrant lets them refer to the
// control plane.
func (b *builder) vaults(c entities.Contents) error {
	if len(c.Vaults) > 0 {
		b.vaultGrant(slices.ContainsFunc(c.Vaults, func(v components.Vault) bool { return b.exportedStore(&v) != "" }))
	}
	for _, v := range sortedByID(c.Vaults, func(v *components.Vault) *string { return v.ID }) {
		id := deref(v.ID)
		name := b.names.name(kindVault, b.cpName+"-"+v.Prefix, b.cpName+"-vault", id)
		obj := &configurationv1alpha1.KongVault{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kindVault),
			Spec: configurationv1alpha1.KongVaultSpec{
				ControlPlaneRef: &commonv1alpha1.ControlPlaneRef{
					Type:                 commonv1alpha1.ControlPlaneRefKonnectNamespacedRef,
					KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: b.cpName, Namespace: b.opts.Namespace},
				},
				Adopt: adopt(id), Backend: v.Name, Prefix: v.Prefix, Description: deref(v.Description),
				Tags: b.userTags("vault", id, v.Tags),
			},
		}
		obj.Name = name
		config := v.Config
		if store := b.exportedStore(&v); store != "" {
			// The store's object names it: the operator sends its ID.
			config = maps.Clone(config)
			delete(config, configStoreIDField)
			obj.Spec.ConfigStoreRef = &configurationv1alpha1.KonnectConfigStoreRef{Name: store, Namespace: b.opts.Namespace}
		}
		if len(config) > 0 {
			raw, err := json.Marshal(config)
			if err != nil {
				return err
			}
			obj.Spec.Config = &apiextensionsv1.JSON{Raw: raw}
		}
		b.add(obj, kindVault, id, name)
	}
	return nil
}

// vaultGrant lets the cluster-scoped KongVaults refer to the control plane
// and, when some vault names one, to the exported config stores.
func (b *builder) vaultGrant(stores bool) {
	name := b.names.name("KongReferenceGrant", b.cpName+"-vaults", "vaults", "")
	cp := b.cpName
	to := []configurationv1alpha1.ReferenceGrantTo{{Group: konnectv1alpha2.GroupName, Kind: kindControlPlane, Name: &cp}}
	if stores {
		to = append(to, configurationv1alpha1.ReferenceGrantTo{Group: konnectv1alpha2.GroupName, Kind: kindConfigStore})
	}
	b.add(&configurationv1alpha1.KongReferenceGrant{
		TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, "KongReferenceGrant"),
		ObjectMeta: b.meta(name),
		Spec: configurationv1alpha1.KongReferenceGrantSpec{
			From: []configurationv1alpha1.ReferenceGrantFrom{{Group: configurationv1alpha1.GroupName, Kind: kindVault, Namespace: ""}},
			To:   to,
		},
	}, "KongReferenceGrant", "", name)
}

func (b *builder) dataPlaneCertificates(c entities.Contents) error {
	for _, pin := range sortedByID(c.DataPlaneCertificates, func(p *components.DataPlaneClientCertificate) *string { return p.ID }) {
		id := deref(pin.ID)
		name := b.names.name("KongDataPlaneClientCertificate", "", "dp-certificate", id)
		b.add(&configurationv1alpha1.KongDataPlaneClientCertificate{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, "KongDataPlaneClientCertificate"),
			ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.KongDataPlaneClientCertificateSpec{
				ControlPlaneRef: b.controlPlaneRef(), Adopt: adopt(id),
				KongDataPlaneClientCertificateAPISpec: configurationv1alpha1.KongDataPlaneClientCertificateAPISpec{Cert: deref(pin.Cert)},
			},
		}, "KongDataPlaneClientCertificate", id, name)
	}
	return nil
}
