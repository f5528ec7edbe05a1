package entities

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// NewCatalog builds every kind over caches holding objects: the typed
// objects of the operator's kinds, KongPlugins, KongReferenceGrants and the
// Secrets they read (tokens, certificates, credentials), as a List of the
// cluster returns them. Objects of other types are ignored.
func NewCatalog(objects []runtime.Object) *Catalog {
	refs := &Refs{
		ControlPlanes: filled[controlPlane](objects, "konnectgatewaycontrolplanes"),
		AuthConfigs:   filled[*konnectv1alpha1.KonnectAPIAuthConfiguration](objects, "konnectapiauthconfigurations"),
		Secrets:       filled[*corev1.Secret](objects, "secrets"),
		Grants:        filled[*configurationv1alpha1.KongReferenceGrant](objects, "kongreferencegrants"),
		Networks:      filled[network](objects, "konnectcloudgatewaynetworks"),
	}
	services, routes := filled[kongService](objects, "kongservices"), filled[kongRoute](objects, "kongroutes")
	certificates, caCertificates := filled[kongCertificate](objects, "kongcertificates"), filled[kongCACertificate](objects, "kongcacertificates")
	consumers, groups := filled[kongConsumer](objects, "kongconsumers"), filled[kongConsumerGroup](objects, "kongconsumergroups")
	basicAuth := BasicAuthKind(CredentialDeps[kongBasicAuth]{Refs: refs, Consumers: consumers, Objects: filled[kongBasicAuth](objects, "kongcredentialbasicauths")})
	apiKey := APIKeyKind(CredentialDeps[kongAPIKey]{Refs: refs, Consumers: consumers, Objects: filled[kongAPIKey](objects, "kongcredentialapikeys")})
	acl := ACLKind(CredentialDeps[kongACL]{Refs: refs, Consumers: consumers, Objects: filled[kongACL](objects, "kongcredentialacls")})
	jwt := JWTKind(CredentialDeps[kongJWT]{Refs: refs, Consumers: consumers, Objects: filled[kongJWT](objects, "kongcredentialjwts")})
	hmac := HMACKind(CredentialDeps[kongHMAC]{Refs: refs, Consumers: consumers, Objects: filled[kongHMAC](objects, "kongcredentialhmacs")})
	credentials := []CredentialKind{basicAuth.CredentialKind, apiKey.CredentialKind, acl.CredentialKind, jwt.CredentialKind, hmac.CredentialKind}
	portals, configStores := filled[portal](objects, "portals"), filled[configStore](objects, "konnectconfigstores")
	eg := EventGatewayObjects{
		Gateways: filled[eventGateway](objects, "konnecteventgateways"), BackendClusters: filled[egBackendCluster](objects, "eventgatewaybackendclusters"),
		Listeners: filled[egListener](objects, "eventgatewaylisteners"), VirtualClusters: filled[egVirtualCluster](objects, "eventgatewayvirtualclusters"),
		SchemaRegistries: filled[egSchemaRegistry](objects, "eventgatewayschemaregistries"),
	}
	bindings := PluginBindingSources{
		Plugins: filled[kongPlugin](objects, "kongplugins"), ClusterPlugins: filled[kongClusterPlugin](objects, "kongclusterplugins"),
		Services: services, Routes: routes, Consumers: consumers, ConsumerGroups: groups,
	}
	return &Catalog{refs: refs, entries: []comparer{
		controlPlaneEntry{kind: ControlPlaneKind(refs)},
		adoptingEntry[kongService, components.Service]{kind: ServiceKind(refs, certificates, caCertificates)},
		adoptingEntry[kongRoute, components.Route]{kind: RouteKind(refs, services)},
		adoptingEntry[kongUpstream, components.Upstream]{kind: UpstreamKind(refs, certificates)},
		adoptingEntry[kongTarget, components.TargetWithoutParents]{kind: TargetKind(refs, filled[kongUpstream](objects, "kongupstreams"))},
		adoptingEntry[kongCertificate, components.CertificateRequest]{kind: CertificateKind(refs), hidden: certificateHidden},
		adoptingEntry[kongCACertificate, components.CACertificate]{kind: CACertificateKind(refs), hidden: caCertificateHidden},
		adoptingEntry[kongSNI, components.SNIWithoutParents]{kind: SNIKind(refs, certificates)},
		adoptingEntry[kongConsumer, consumerDesired]{kind: ConsumerKind(refs, groups, credentials), values: consumerValues},
		adoptingEntry[kongConsumerGroup, components.ConsumerGroup]{kind: ConsumerGroupKind(refs)},
		adoptingEntry[kongBasicAuth, components.BasicAuthWithoutParents]{kind: basicAuth.Kind, hidden: credentialHidden[kongBasicAuth]("password"), extra: basicAuthExtra},
		adoptingEntry[kongAPIKey, components.KeyAuthWithoutParents]{kind: apiKey.Kind, hidden: credentialHidden[kongAPIKey]("key")},
		adoptingEntry[kongACL, components.ACLWithoutParents]{kind: acl.Kind, hidden: credentialHidden[kongACL]()},
		adoptingEntry[kongJWT, components.JWTWithoutParents]{kind: jwt.Kind, hidden: credentialHidden[kongJWT]("secret")},
		adoptingEntry[kongHMAC, components.HMACAuthWithoutParents]{kind: hmac.Kind, hidden: credentialHidden[kongHMAC]("secret")},
		adoptingEntry[kongPluginBinding, components.Plugin]{kind: PluginBindingKind(refs, bindings), hidden: bindings.hidden},
		adoptingEntry[kongKey, components.Key]{kind: KeyKind(refs, filled[kongKeySet](objects, "kongkeysets")), hidden: func(kongKey) []string { return []string{"pem", "jwk"} }},
		adoptingEntry[kongKeySet, components.KeySet]{kind: KeySetKind(refs)},
		adoptingEntry[kongVault, components.Vault]{kind: VaultKind(refs, configStores, func(string) bool { return true })},
		adoptingEntry[configStore, components.CreateConfigStore]{kind: ConfigStoreKind(refs)},
		adoptingEntry[portal, components.CreatePortal]{kind: PortalKind(refs)},
		adoptingEntry[portalPage, components.CreatePortalPageRequest]{kind: PortalPageKind(refs, portals)},
		adoptingEntry[portalTeam, components.PortalCreateTeamRequest]{kind: PortalTeamKind(refs, portals)},
		adoptingEntry[portalCustomization, components.PortalCustomization]{kind: PortalCustomizationKind(refs, portals)},
		adoptingEntry[portalCustomDomain, components.CreatePortalCustomDomainRequest]{
			kind: PortalCustomDomainKind(refs, portals), hidden: func(portalCustomDomain) []string { return []string{"ssl"} },
		},
		adoptingEntry[portalEmailConfig, components.PostPortalEmailConfig]{kind: PortalEmailConfigKind(refs, portals)},
		adoptingEntry[portalIdentityProvider, components.PortalCreateIdentityProvider]{
			kind: PortalIdentityProviderKind(refs, portals), hidden: func(portalIdentityProvider) []string { return []string{"config"} },
		},
		adoptingEntry[portalIPAllowList, components.CreatePortalSourceIPRestriction]{kind: PortalIPAllowListKind(refs, portals)},
		adoptingEntry[eventGateway, egBody]{kind: EventGatewayKind(refs)},
		adoptingEntry[egBackendCluster, egBody]{kind: EventGatewayBackendClusterKind(refs, eg), hidden: egHidden[egBackendCluster]("authentication", "tls")},
		adoptingEntry[egListener, egBody]{kind: EventGatewayListenerKind(refs, eg)},
		adoptingEntry[egSchemaRegistry, egBody]{kind: EventGatewaySchemaRegistryKind(refs, eg), hidden: egHidden[egSchemaRegistry]("config")},
		adoptingEntry[egDataPlaneCert, egBody]{kind: EventGatewayDataPlaneCertificateKind(refs, eg)},
		adoptingEntry[egVirtualCluster, egBody]{kind: EventGatewayVirtualClusterKind(refs, eg), hidden: egHidden[egVirtualCluster]("authentication")},
		adoptingEntry[egListenerPolicy, egBody]{kind: EventGatewayListenerPolicyKind(refs, eg), hidden: egHidden[egListenerPolicy]("config")},
		adoptingEntry[egClusterPolicy, egBody]{kind: EventGatewayClusterPolicyKind(refs, eg)},
		adoptingEntry[egConsumePolicy, egBody]{kind: EventGatewayConsumePolicyKind(refs, eg)},
		adoptingEntry[egProducePolicy, egBody]{kind: EventGatewayProducePolicyKind(refs, eg)},
		adoptingEntry[kongDataPlaneCertificate, components.DataPlaneClientCertificateRequest]{kind: DataPlaneCertificateKind(refs)},
		adoptingEntry[network, components.CreateNetworkRequest]{kind: NetworkKind(refs)},
		adoptingEntry[transitGateway, components.CreateTransitGatewayRequest]{kind: TransitGatewayKind(refs, refs.Networks)},
		adoptingEntry[dpGroupConfig, components.CreateConfigurationRequest]{kind: DataPlaneGroupConfigurationKind(refs, refs.Networks)},
	}}
}

// filled is a view of the objects of type T among objects, over an
// informer that is never started.
func filled[T controller.Object](objects []runtime.Object, resource string) *controller.Informer[T] {
	var zero T
	shared := cache.NewSharedIndexInformer(&cache.ListWatch{}, zero, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, obj := range objects {
		if typed, ok := obj.(T); ok {
			_ = shared.GetIndexer().Add(typed) // only fails for an object without metadata
		}
	}
	return controller.NewInformer[T](schema.GroupResource{Resource: resource}, map[string]cache.SharedIndexInformer{"": shared})
}

// egHidden hides fields of an Event Gateway entity that hold sensitive
// values (passwords, private keys), which Konnect never answers.
func egHidden[T egEntity](fields ...string) func(T) []string {
	return func(T) []string { return fields }
}

// certificateHidden hides the private keys, and the certificates too when
// they come from a Secret.
func certificateHidden(c kongCertificate) []string {
	if c.Spec.Type == configurationv1alpha1.CertificateSourceSecretRef {
		return []string{"cert", "key", "cert_alt", "key_alt"}
	}
	return []string{"key", "key_alt"}
}

func caCertificateHidden(c kongCACertificate) []string {
	if c.Spec.Type == configurationv1alpha1.CertificateSourceSecretRef {
		return []string{"cert"}
	}
	return nil
}

// hidden hides the configuration of a binding whose plugin reads Secrets.
func (src PluginBindingSources) hidden(pb kongPluginBinding) []string {
	var secrets []pluginSecretValue
	if IsClusterPluginRef(pb) {
		if p, err := src.ClusterPlugins.Get("", pb.Spec.PluginRef.Name); err == nil {
			secrets = clusterPluginSecrets(p)
		}
	} else if p, err := src.Plugins.Get(pluginNamespace(pb), pb.Spec.PluginRef.Name); err == nil {
		secrets = kongPluginSecrets(p)
	}
	if len(secrets) > 0 {
		return []string{"config"}
	}
	return nil
}

// credentialHidden hides the secret fields of a credential, and every field
// of one made from a Secret.
func credentialHidden[T controller.Entity](secretFields ...string) func(T) []string {
	return func(obj T) []string {
		if _, _, made := madeFromSecret(obj); made {
			return []string{"*"}
		}
		return secretFields
	}
}

// basicAuthExtra compares the password by its hash, as a listing does.
func basicAuthExtra(desired components.BasicAuthWithoutParents, actual any) []string {
	if found, ok := actual.(*components.BasicAuth); ok {
		return basicAuthPasswordDiffers(desired, found)
	}
	return nil
}

// consumerValues gives the groups of a consumer, which its JSON names
// otherwise.
func consumerValues(field string, desired consumerDesired, actual any) (any, any, bool) {
	found, ok := actual.(consumerDesired)
	if field != consumerGroupsField || !ok {
		return nil, nil, false
	}
	return desired.GroupIDs, found.GroupIDs, true
}

// CredentialFromSecret returns the credential object the operator makes
// from one of consumer's credential Secrets (adopting the credential the
// Secret's AnnotationAdoptID names), or an error naming what the Secret
// lacks.
func CredentialFromSecret(consumer *configurationv1.KongConsumer, secret *corev1.Secret) (runtime.Object, error) {
	refs := &Refs{}
	kinds := []CredentialKind{
		BasicAuthKind(CredentialDeps[kongBasicAuth]{Refs: refs}).CredentialKind,
		APIKeyKind(CredentialDeps[kongAPIKey]{Refs: refs}).CredentialKind,
		ACLKind(CredentialDeps[kongACL]{Refs: refs}).CredentialKind,
		JWTKind(CredentialDeps[kongJWT]{Refs: refs}).CredentialKind,
		HMACKind(CredentialDeps[kongHMAC]{Refs: refs}).CredentialKind,
	}
	kind, problems := KindOfCredentialSecret(kinds, secret)
	if len(problems) > 0 {
		return nil, fmt.Errorf("secret %s/%s: %v", secret.Namespace, secret.Name, problems)
	}
	return kind.runtimeObjectFromSecret(consumer, secret), nil
}

// controlPlaneEntry compares KonnectGatewayControlPlanes the way the
// listing does: a mirror is only read, an origin compared with what an
// update writes.
type controlPlaneEntry struct {
	kind controller.Kind[controlPlane, ControlPlaneDesired]
}

func (e controlPlaneEntry) compare(ctx context.Context, clients controller.ClientSource, obj runtime.Object) (Comparison, bool, error) {
	cp, ok := obj.(controlPlane)
	if !ok {
		return Comparison{}, false, nil
	}
	if cp.IsMirror() {
		return Comparison{State: StateNotCompared, ID: cp.Status.ID, Message: "mirrors control plane " + mirrorID(cp) + ": only read, never written"}, true, nil
	}
	copied := cp.DeepCopy()
	res, desired, cmp, done := prepare(ctx, e.kind, copied)
	if done {
		return cmp, true, nil
	}
	id := copied.Status.ID
	if id == "" {
		return Comparison{State: StateMissing, Message: "not in Konnect yet: the operator would create it"}, true, nil
	}
	api, err := clients.API(res.Placement.Auth.ServerURL, res.Placement.Auth.Token)
	if err != nil {
		return Comparison{}, true, err
	}
	found, err := listControlPlanes(ctx, api, operations.ListControlPlanesRequest{Filter: &components.ControlPlaneFilterParameters{ID: &components.ID{Eq: &id}}})
	if err != nil {
		return Comparison{}, true, err
	}
	if len(found) == 0 {
		return Comparison{State: StateMissing, ID: id, Message: id + " is gone from Konnect: the operator would create it again"}, true, nil
	}
	actual := &found[0]
	var members []string
	if desired.Group {
		if members, err = groupMemberIDs(ctx, api, id); err != nil && !konnect.IsNotFound(err) {
			return Comparison{}, true, err
		}
	}
	out := Comparison{State: StateEqual, ID: id}
	for _, name := range controlPlaneDifferences(desired, actual, members) {
		field := FieldDifference{Field: name}
		switch name {
		case membersField:
			field.Cluster, field.Konnect = compactJSON(desired.Members), compactJSON(members)
		default:
			field.Cluster, field.Konnect = compactJSON(fieldOf(desired.Update, name)), compactJSON(fieldOf(actual, name))
		}
		out.Fields = append(out.Fields, field)
	}
	if len(out.Fields) > 0 {
		out.State = StateDiffers
	}
	slices.SortFunc(out.Fields, func(a, b FieldDifference) int { return strings.Compare(a.Field, b.Field) })
	return out, true, nil
}
