package entities

import (
	"context"
	"errors"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongService = *configurationv1alpha1.KongService

// ServiceAdapter reconciles KongServices into Konnect services.
type ServiceAdapter struct {
	Refs           *Refs
	Certificates   *controller.Informer[kongCertificate]
	CACertificates *controller.Informer[kongCACertificate]
}

var _ controller.DependentAdapter[kongService, konnect.Service] = (*ServiceAdapter)(nil)

// GroupVersionKind implements controller.Adapter.
func (a *ServiceAdapter) GroupVersionKind() schema.GroupVersionKind {
	return gvk(configurationv1alpha1.GroupVersion, "KongService")
}

// Managed implements controller.Adapter.
func (a *ServiceAdapter) Managed(svc kongService) bool { return svc.Spec.ControlPlaneRef.IsKonnect() }

// ConditionTypes implements controller.Adapter.
func (a *ServiceAdapter) ConditionTypes() []string {
	return append(slices.Clone(serviceCertificateConditions), controlPlaneConditionTypes...)
}

// Resolve implements controller.Adapter.
func (a *ServiceAdapter) Resolve(_ context.Context, svc kongService, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	a.Refs.placeUnderControlPlane(b, referrerOf(a.GroupVersionKind(), svc), svc.Spec.ControlPlaneRef, svc.ControlPlaneStatus(true))
	if cpID := b.res.Placement.ControlPlaneID; purpose == controller.ForSync && cpID != "" {
		a.resolveCertificates(b, svc, cpID)
	}
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *ServiceAdapter) Desired(_ context.Context, svc kongService, _ controller.Placement) (konnect.Service, error) {
	spec := svc.Spec.KongServiceAPISpec
	desired := konnect.Service{
		ID:             spec.ID,
		Name:           spec.Name,
		Host:           spec.Host,
		Path:           spec.Path,
		Protocol:       spec.Protocol,
		URL:            spec.URL,
		Retries:        intPtr(spec.Retries),
		ConnectTimeout: intPtr(spec.ConnectTimeout),
		ReadTimeout:    intPtr(spec.ReadTimeout),
		WriteTimeout:   intPtr(spec.WriteTimeout),
		Enabled:        spec.Enabled,
		TLSVerify:      spec.TLSVerify,
		TLSVerifyDepth: intPtr(spec.TLSVerifyDepth),
		Tags:           controller.Tags(svc, a.GroupVersionKind(), spec.Tags, svc),
	}
	if spec.Port != 0 {
		port := int(spec.Port)
		desired.Port = &port
	}
	if st := svc.Status.Konnect; st != nil {
		desired.ClientCertificateID = st.CertificateID
		desired.CACertificates = st.CACertificateIDs
	}
	return desired, nil
}

// Create implements controller.Adapter. A service without a name is
// created under the object's UID, as its Konnect ID.
func (a *ServiceAdapter) Create(ctx context.Context, c *konnect.Client, svc kongService, p controller.Placement, desired konnect.Service) (string, error) {
	if desired.Name == "" && desired.ID == "" {
		created, err := c.UpsertService(ctx, p.ControlPlaneID, string(svc.UID), desired)
		return created.ID, err
	}
	created, err := c.CreateService(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *ServiceAdapter) Update(ctx context.Context, c *konnect.Client, _ kongService, p controller.Placement, id string, desired konnect.Service) error {
	desired.ID = ""
	_, err := c.UpsertService(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter. Konnect refuses to delete a service
// that routes still use; those routes cannot exist without it, so they are
// deleted first.
func (a *ServiceAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongService, p controller.Placement, id string) error {
	err := c.DeleteService(ctx, p.ControlPlaneID, id)
	if !refusedForChildren(err) {
		return err
	}
	routes, listErr := c.ListRoutes(ctx, p.ControlPlaneID, konnect.ListFilter{})
	if listErr != nil {
		return errors.Join(err, listErr)
	}
	for _, r := range routes {
		if r.ServiceID != id {
			continue
		}
		if err := c.DeleteRoute(ctx, p.ControlPlaneID, r.ID); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	return c.DeleteService(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *ServiceAdapter) FindByUID(ctx context.Context, c *konnect.Client, svc kongService, p controller.Placement) (string, error) {
	found, err := c.ListServices(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(svc)}})
	return firstID(found, func(s konnect.Service) string { return s.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *ServiceAdapter) Dependencies() []controller.Dependency[kongService] {
	return append(a.certificateDependencies(),
		controlPlaneDependency(a.Refs, func(svc kongService) []string {
			return controlPlaneKeys(svc.Spec.ControlPlaneRef, svc.Namespace)
		}),
		grantDependency(a.Refs, func(svc kongService) []string {
			return otherNamespaces(svc.Namespace, append(certificateNamespaces(svc), controlPlaneNamespace(svc.Spec.ControlPlaneRef, svc.Namespace))...)
		}),
	)
}

var _ controller.Adopter[kongService, konnect.Service] = (*ServiceAdapter)(nil)

// AdoptOptions implements controller.Adopter.
func (a *ServiceAdapter) AdoptOptions(svc kongService) *commonv1alpha1.AdoptOptions {
	return svc.Spec.Adopt
}

// Fetch implements controller.Adopter.
func (a *ServiceAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongService, p controller.Placement, id string) (konnect.Service, string, error) {
	s, err := c.GetService(ctx, p.ControlPlaneID, id)
	return s, controller.UIDFromTags(s.Tags), err
}

// Differences implements controller.Adopter: name, host, port, protocol
// and path, with Konnect's defaults for unset values; a spec URL stands for
// its parts.
func (a *ServiceAdapter) Differences(desired, actual konnect.Service) []string {
	protocol, host, port, path := orDefault(desired.Protocol, "http"), desired.Host, intOr(desired.Port, 80), orDefault(desired.Path, "/")
	if desired.URL != "" {
		protocol, host, port, path = urlParts(desired.URL)
	}
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("host", host == actual.Host)
	d.check("port", port == intOr(actual.Port, 80))
	d.check("protocol", protocol == orDefault(actual.Protocol, "http"))
	d.check("path", path == orDefault(actual.Path, "/"))
	return d
}
