package export

import (
	"slices"

	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

func (b *builder) consumerGroups(c entities.Contents) error {
	for _, g := range sortedByID(c.ConsumerGroups, func(g *components.ConsumerGroup) *string { return g.ID }) {
		id := deref(g.ID)
		name := b.names.name(kindConsumerGroup, g.Name, "consumer-group", id)
		b.add(&configurationv1beta1.KongConsumerGroup{
			TypeMeta:   typeMeta(configurationv1beta1.GroupVersion, kindConsumerGroup),
			ObjectMeta: b.meta(name),
			Spec: configurationv1beta1.KongConsumerGroupSpec{
				Name: g.Name, ControlPlaneRef: b.controlPlaneRef(), Adopt: adopt(id), Tags: b.userTags("consumer group", id, g.Tags),
			},
		}, kindConsumerGroup, id, name)
	}
	return nil
}

// consumerCredentials are the credentials of one consumer.
type consumerCredentials struct {
	basicAuths []components.BasicAuth
	apiKeys    []components.KeyAuth
	acls       []components.ACL
	jwts       []components.Jwt
	hmacs      []components.HMACAuth
}

// consumers writes each consumer with its groups, and its credentials: the
// ones holding secret material as credential Secrets that the consumer
// lists (each naming the credential to adopt, AnnotationAdoptID), ACLs as
// KongCredentialACLs.
func (b *builder) consumers(c entities.Contents) error {
	creds := map[string]*consumerCredentials{}
	of := func(consumerID *string) *consumerCredentials {
		id := deref(consumerID)
		if creds[id] == nil {
			creds[id] = &consumerCredentials{}
		}
		return creds[id]
	}
	for _, cred := range sortedByID(c.BasicAuths, func(c *components.BasicAuth) *string { return c.ID }) {
		of(deref(cred.Consumer).ID).basicAuths = append(of(deref(cred.Consumer).ID).basicAuths, cred)
	}
	for _, cred := range sortedByID(c.APIKeys, func(c *components.KeyAuth) *string { return c.ID }) {
		of(deref(cred.Consumer).ID).apiKeys = append(of(deref(cred.Consumer).ID).apiKeys, cred)
	}
	for _, cred := range sortedByID(c.ACLs, func(c *components.ACL) *string { return c.ID }) {
		of(deref(cred.Consumer).ID).acls = append(of(deref(cred.Consumer).ID).acls, cred)
	}
	for _, cred := range sortedByID(c.JWTs, func(c *components.Jwt) *string { return c.ID }) {
		of(deref(cred.Consumer).ID).jwts = append(of(deref(cred.Consumer).ID).jwts, cred)
	}
	for _, cred := range sortedByID(c.HMACs, func(c *components.HMACAuth) *string { return c.ID }) {
		of(deref(cred.Consumer).ID).hmacs = append(of(deref(cred.Consumer).ID).hmacs, cred)
	}
	for _, consumer := range sortedByID(c.Consumers, func(c *components.Consumer) *string { return c.ID }) {
		id := deref(consumer.ID)
		name := b.names.name(kindConsumer, orDefault(consumer.Username, deref(consumer.CustomID)), "consumer", id)
		obj := &configurationv1.KongConsumer{
			TypeMeta:   typeMeta(configurationv1.GroupVersion, kindConsumer),
			ObjectMeta: b.meta(name),
			Username:   deref(consumer.Username),
			CustomID:   deref(consumer.CustomID),
			Spec: configurationv1.KongConsumerSpec{
				ControlPlaneRef: b.controlPlaneRef(), Adopt: adopt(id), Tags: b.userTags("consumer", id, consumer.Tags),
			},
		}
		for _, group := range c.Memberships[id] {
			ref := b.nameOf(kindConsumerGroup, group)
			if ref == "" {
				b.note("KongConsumer %s: consumer %s belongs to consumer group %s, which is not exported", name, id, group)
				continue
			}
			obj.ConsumerGroups = append(obj.ConsumerGroups, ref)
		}
		slices.Sort(obj.ConsumerGroups)
		if cc := creds[id]; cc != nil {
			obj.Credentials = b.credentialsOf(name, cc)
			delete(creds, id)
		}
		b.add(obj, kindConsumer, id, name)
	}
	for consumer := range creds {
		b.skip("credentials of consumer", consumer, "the consumer is not in the control plane's listing")
	}
	return nil
}

// credentialsOf adds the credentials of the consumer object called
// consumer and returns the names of the Secrets it must list.
func (b *builder) credentialsOf(consumer string, cc *consumerCredentials) []string {
	var secrets []string
	add := func(what, label, id string, tags []string, data map[string]string) {
		name := b.names.name(kindSecret, "", consumer+"-"+label, id)
		secret := b.secret(name, commonv1alpha1.LabelCredential, label, data)
		secret.Annotations = map[string]string{entities.AnnotationAdoptID: id}
		if user := b.userTags(what, id, tags); len(user) > 0 {
			b.note("Secret %s: the tags %v of %s %s are not carried by credentials made from Secrets; the operator's next write of it drops them", name, user, what, id)
		}
		b.add(secret, kindSecret, "", name)
		secrets = append(secrets, name)
	}
	for _, cred := range cc.basicAuths {
		id := deref(cred.ID)
		add("basic-auth credential", "basic-auth", id, cred.Tags, map[string]string{"username": cred.Username, "password": ""})
		b.note("Secret %s: Konnect keeps only a hash of the password of basic-auth credential %s, so data key password is left empty: the credential is adopted as it is, but the operator cannot write it (Konnect refuses an empty password) until the password is set there", secrets[len(secrets)-1], id)
	}
	for _, cred := range cc.apiKeys {
		id := deref(cred.ID)
		add("key-auth credential", "key-auth", id, cred.Tags, map[string]string{"key": deref(cred.Key)})
		if cred.TTL != nil {
			b.note("Secret %s: key-auth credential %s expires (ttl), which credential Secrets cannot say; the operator's next write of it makes it permanent", secrets[len(secrets)-1], id)
		}
	}
	for _, cred := range cc.jwts {
		id := deref(cred.ID)
		data := map[string]string{"key": deref(cred.Key), "algorithm": string(orDefault(cred.Algorithm, components.JWTAlgorithmHs256))}
		if v := deref(cred.RsaPublicKey); v != "" {
			data["rsa_public_key"] = v
		}
		if v := deref(cred.Secret); v != "" {
			data["secret"] = v
		}
		add("JWT credential", "jwt", id, cred.Tags, data)
	}
	for _, cred := range cc.hmacs {
		id := deref(cred.ID)
		add("HMAC credential", "hmac", id, cred.Tags, map[string]string{"username": cred.Username, "secret": deref(cred.Secret)})
	}
	for _, cred := range cc.acls {
		id := deref(cred.ID)
		name := b.names.name("KongCredentialACL", "", consumer+"-acl", id)
		b.add(&configurationv1alpha1.KongCredentialACL{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, "KongCredentialACL"),
			ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.KongCredentialACLSpec{
				ConsumerRef: corev1.LocalObjectReference{Name: consumer}, Adopt: adopt(id),
				KongCredentialACLAPISpec: configurationv1alpha1.KongCredentialACLAPISpec{Group: cred.Group, Tags: b.userTags("ACL credential", id, cred.Tags)},
			},
		}, "KongCredentialACL", id, name)
	}
	slices.Sort(secrets)
	return secrets
}
