package export

import (
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// The objects of what an event gateway holds directly: backend clusters,
// schema registries, listeners, data-plane certificates, and virtual
// clusters (each naming the backend cluster Konnect says is its
// destination).

func (b *builder) egBackendClusters(gateway string, c entities.EventGatewayContents) {
	kind := entities.KindEventGatewayBackendCluster
	named := egIdentities(kind, c.BackendClusters)
	for _, entity := range egSorted(c.BackendClusters) {
		name := b.egObjectName("backend cluster", kind, entity, named)
		if name == "" {
			continue
		}
		obj := &configurationv1alpha1.EventGatewayBackendCluster{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kind), ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.EventGatewayBackendClusterSpec{GatewayRef: egRef(gateway)},
		}
		if !b.egRead("backend cluster", entity, &obj.Spec.APISpec, nil) {
			continue
		}
		b.egBackendClusterSecrets(name, obj)
		b.add(obj, kind, egID(entity), name)
	}
}

func (b *builder) egSchemaRegistries(gateway string, c entities.EventGatewayContents) {
	kind := entities.KindEventGatewaySchemaRegistry
	named := egIdentities(kind, c.SchemaRegistries)
	for _, entity := range egSorted(c.SchemaRegistries) {
		name := b.egObjectName("schema registry", kind, entity, named)
		if name == "" {
			continue
		}
		obj := &configurationv1alpha1.EventGatewaySchemaRegistry{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kind), ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.EventGatewaySchemaRegistrySpec{GatewayRef: egRef(gateway)},
		}
		if !b.egRead("schema registry", entity, &obj.Spec.APISpec, nil) {
			continue
		}
		if c := obj.Spec.APISpec.Confluent; c != nil && c.Config.Authentication != nil && c.Config.Authentication.Basic != nil {
			b.egSensitive(kind, name, "config.authentication.basic.password", &c.Config.Authentication.Basic.Password)
		}
		b.add(obj, kind, egID(entity), name)
	}
}

func (b *builder) egListeners(gateway string, c entities.EventGatewayContents) {
	kind := entities.KindEventGatewayListener
	named := egIdentities(kind, c.Listeners)
	for _, entity := range egSorted(c.Listeners) {
		name := b.egObjectName("listener", kind, entity, named)
		if name == "" {
			continue
		}
		obj := &configurationv1alpha1.EventGatewayListener{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kind), ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.EventGatewayListenerSpec{GatewayRef: egRef(gateway)},
		}
		if b.egRead("listener", entity, &obj.Spec.APISpec, nil) {
			b.add(obj, kind, egID(entity), name)
		}
	}
}

// egDataPlaneCertificates exports the gateway's data-plane certificates.
// They carry no labels: an object takes back the one with its
// certificate, so each is exported, named after its Konnect name.
func (b *builder) egDataPlaneCertificates(gateway string, c entities.EventGatewayContents) {
	kind := entities.KindEventGatewayDataPlaneCertificate
	for _, entity := range egSorted(c.DataPlaneCertificates) {
		id := egID(entity)
		konnectName, _ := entity["name"].(string)
		name := b.names.name(kind, konnectName, gateway+"-certificate", id)
		obj := &configurationv1alpha1.EventGatewayDataPlaneCertificate{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kind), ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.EventGatewayDataPlaneCertificateSpec{GatewayRef: egRef(gateway)},
		}
		if b.egRead("data-plane certificate", entity, &obj.Spec.APISpec, nil) {
			b.add(obj, kind, id, name)
		}
	}
}

func (b *builder) egVirtualClusters(_ string, c entities.EventGatewayContents) {
	kind := entities.KindEventGatewayVirtualCluster
	named := egIdentities(kind, c.VirtualClusters)
	for _, entity := range egSorted(c.VirtualClusters) {
		destination, _ := entity["destination"].(map[string]any)
		backendID, _ := destination["id"].(string)
		backend := b.nameOf(entities.KindEventGatewayBackendCluster, backendID)
		if backend == "" {
			b.skip("virtual cluster", egID(entity), "its backend cluster "+backendID+" is not exported")
			continue
		}
		name := b.egObjectName("virtual cluster", kind, entity, named)
		if name == "" {
			continue
		}
		obj := &configurationv1alpha1.EventGatewayVirtualCluster{
			TypeMeta: typeMeta(configurationv1alpha1.GroupVersion, kind), ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.EventGatewayVirtualClusterSpec{EventGatewayBackendClusterRef: egRef(backend)},
		}
		if !b.egRead("virtual cluster", entity, &obj.Spec.APISpec, nil) {
			continue
		}
		b.egVirtualClusterSecrets(name, obj)
		b.add(obj, kind, egID(entity), name)
	}
}

// egRead reads entity into spec; an entity the kind cannot say is noted
// and not exported (false).
func (b *builder) egRead(what string, entity map[string]any, spec any, registries []map[string]any) bool {
	if err := b.egSpecOf(entity, spec, registries); err != nil {
		b.skip(what, egID(entity), err.Error())
		return false
	}
	return true
}
