package export

import (
	"strings"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// Konnect never answers an Event Gateway entity's passwords and private
// keys (but a backend cluster's TLS client key), unless they are given as
// a reference to a vault (${vault…}), which it answers as it keeps it. A
// reference is exported as it is, and a private key Konnect answers goes
// into a Secret labelled konghq.com/secret=true, which the object names.
// The operator does not compare them, so an exported object takes its
// entity back whatever stands in place of what Konnect did not answer;
// what stands there matters at the operator's next write of the entity,
// and each is noted:
//
//   - a sensitive value (a type and a value or a Secret key) is exported
//     as an empty inline value, which Konnect refuses to take: nothing is
//     written over the entity until the value is set;
//   - a password the kind takes only as a string (a backend cluster's SASL
//     password, a virtual cluster principal's), which cannot be empty, is
//     exported as passwordPlaceholder, which Konnect would take.

// passwordPlaceholder stands, in an exported object, for a password that
// Konnect does not answer and that the kind takes only as a non-empty
// string.
const passwordPlaceholder = "replace-me:konnect-never-returns-passwords"

// egSensitive exports a sensitive value at path of the entity of the
// object kind/name: one Konnect answered (a private key) into a Secret, a
// vault reference as it is, and one Konnect did not answer as an empty
// inline value, said so.
func (b *builder) egSensitive(kind, name, path string, value *configurationv1alpha1.SensitiveDataSource) {
	if value.Type != "" {
		if v := deref(value.Value); v != "" && !strings.HasPrefix(v, "${") {
			where, field := "", path
			if i := strings.LastIndex(path, "."); i >= 0 {
				where, field = path[:i], path[i+1:]
			}
			if field == "key" {
				field = secretKeyTLSKey
			}
			secret := b.names.name(kindSecret, name+"-"+sanitize(where), name+"-secret", "")
			b.add(b.secret(secret, commonv1alpha1.LabelSecret, "true", map[string]string{field: v}), kindSecret, "", secret)
			*value = configurationv1alpha1.SensitiveDataSource{
				Type: configurationv1alpha1.SensitiveDataFromSecret, SecretRef: &configurationv1alpha1.SensitiveDataSecretRef{Name: secret, Key: field},
			}
		}
		return
	}
	empty := ""
	*value = configurationv1alpha1.SensitiveDataSource{Type: configurationv1alpha1.SensitiveDataInline, Value: &empty}
	b.note("%s %s: Konnect never answers %s, so it is exported as an empty inline value: the entity is taken over as it is (the value is not compared), but the operator cannot write it (Konnect refuses an empty value) until the value is set there, inline or from a Secret (type secretRef)",
		kind, name, path)
}

// egPasswords put passwordPlaceholder in place of the passwords Konnect
// did not answer, at path of the object's entity, and say so once.
func (b *builder) egPasswords(kind, name, path string, passwords ...*string) {
	replaced := false
	for _, password := range passwords {
		if *password == "" { // else answered: a vault reference
			*password, replaced = passwordPlaceholder, true
		}
	}
	if !replaced {
		return
	}
	b.note("%s %s: Konnect never answers %s, so it is exported as %q: the entity is taken over as it is (the password is not compared), but the operator's next write of it (after a change of the spec, or of the entity in Konnect) sends that: put the password, or a vault reference, in its place first",
		kind, name, path, passwordPlaceholder)
}

// egBackendClusterSecrets stands in for what Konnect does not answer of a
// backend cluster: its SASL password and its TLS client key.
func (b *builder) egBackendClusterSecrets(name string, obj *configurationv1alpha1.EventGatewayBackendCluster) {
	kind, spec := entities.KindEventGatewayBackendCluster, &obj.Spec.APISpec
	if auth := spec.Authentication; auth != nil && auth.SaslPlain != nil {
		b.egPasswords(kind, name, "authentication.password", &auth.SaslPlain.Password)
	}
	if auth := spec.Authentication; auth != nil && auth.SaslScram != nil {
		b.egPasswords(kind, name, "authentication.password", &auth.SaslScram.Password)
	}
	if identity := spec.TLS.ClientIdentity; identity != nil {
		b.egSensitive(kind, name, "tls.client_identity.key", &identity.Key)
	}
}

// egVirtualClusterSecrets stands in for the SASL/PLAIN principals'
// passwords of a virtual cluster, which Konnect does not answer.
func (b *builder) egVirtualClusterSecrets(name string, obj *configurationv1alpha1.EventGatewayVirtualCluster) {
	var passwords []*string
	for _, auth := range obj.Spec.APISpec.Authentication {
		if auth.SaslPlain == nil {
			continue
		}
		for i := range auth.SaslPlain.Principals {
			passwords = append(passwords, &auth.SaslPlain.Principals[i].Password)
		}
	}
	b.egPasswords(entities.KindEventGatewayVirtualCluster, name, "authentication[].principals[].password", passwords...)
}
