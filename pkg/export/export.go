// Package export turns an existing Konnect control plane, or an event
// gateway, into the manifests that bring it under the operator: one object
// per entity, each taking its entity over without writing to Konnect (a
// control plane's entities adopted by ID in match mode; an event gateway's,
// whose kinds have no spec.adopt, named for the object their identity
// labels say they were written for, which takes them back). It backs
// kubectl konnect export.
//
// The mapping is the inverse of the kinds' bodies in pkg/entities: every
// field the operator would send is set to what Konnect holds, so that the
// body the operator builds from an exported object equals the entity under
// the kind's own comparison (the package's tests check this for every kind
// against the simulator).
package export

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Options say what to export and where its objects go.
type Options struct {
	// ControlPlane is the name or the ID of the control plane to export.
	ControlPlane string
	// EventGateway is the name or the ID of the event gateway to export.
	// At least one of ControlPlane and EventGateway is set.
	EventGateway string
	// Namespace is the namespace of the exported objects.
	Namespace string
	// AuthConfiguration names the KonnectAPIAuthConfiguration, in
	// Namespace, that the exported control plane and event gateway use.
	AuthConfiguration string
}

// Result is an export: the objects in the order they are written, and the
// notes for standard error (what is not exported, what must be completed).
type Result struct {
	Objects []runtime.Object
	Notes   []string
}

// Export reads the control plane and the event gateway that opts name
// through api, and returns their objects.
func Export(ctx context.Context, api konnect.API, opts Options) (Result, error) {
	if opts.Namespace == "" || opts.AuthConfiguration == "" || opts.ControlPlane == "" && opts.EventGateway == "" {
		return Result{}, fmt.Errorf("a control plane or an event gateway, the namespace and the auth configuration must all be named")
	}
	b := newBuilder(opts)
	if opts.ControlPlane != "" {
		cp, err := entities.FindControlPlane(ctx, api, opts.ControlPlane)
		if err != nil {
			return Result{}, err
		}
		contents, err := entities.ReadControlPlane(ctx, api, cp)
		if err != nil {
			return Result{}, fmt.Errorf("read control plane %s: %w", cp.Name, err)
		}
		if err := b.controlPlaneFamily(contents); err != nil {
			return Result{}, err
		}
	}
	if opts.EventGateway != "" {
		gateway, err := entities.FindEventGateway(ctx, api, opts.EventGateway)
		if err != nil {
			return Result{}, err
		}
		contents, err := entities.ReadEventGateway(ctx, api, gateway)
		if err != nil {
			return Result{}, fmt.Errorf("read event gateway %v: %w", gateway["name"], err)
		}
		b.eventGatewayFamily(contents)
	}
	return b.result(), nil
}

// Build turns what a control plane holds into objects.
func Build(contents entities.Contents, opts Options) (Result, error) {
	b := newBuilder(opts)
	if err := b.controlPlaneFamily(contents); err != nil {
		return Result{}, err
	}
	return b.result(), nil
}

func newBuilder(opts Options) *builder {
	return &builder{opts: opts, names: newNamer(), ids: map[string]map[string]string{}}
}

// controlPlaneFamily adds the control plane and its entities.
func (b *builder) controlPlaneFamily(contents entities.Contents) error {
	b.controlPlane(contents.ControlPlane)
	steps := []func(entities.Contents) error{
		b.configStores, b.vaults, b.keySets, b.keys, b.certificates, b.caCertificates, b.snis,
		b.upstreams, b.targets, b.services, b.routes,
		b.consumerGroups, b.consumers, b.plugins, b.dataPlaneCertificates,
	}
	for _, step := range steps {
		if err := step(contents); err != nil {
			return err
		}
	}
	return nil
}

// result is the export: objects in the order they are written.
func (b *builder) result() Result {
	slices.SortStableFunc(b.objects, func(x, y runtime.Object) int {
		if byKind := order(x) - order(y); byKind != 0 {
			return byKind
		}
		return strings.Compare(x.(metav1.Object).GetName(), y.(metav1.Object).GetName())
	})
	return Result{Objects: b.objects, Notes: b.notes}
}

// builder collects the objects of one export.
type builder struct {
	opts    Options
	names   *namer
	cpName  string
	objects []runtime.Object
	notes   []string
	// egOwners are the clusters whose operators wrote the exported Event
	// Gateway entities (noted once each).
	egOwners []string
	// ids maps, per kind, the Konnect IDs of exported entities to their
	// objects' names, for the references between them.
	ids map[string]map[string]string
}

// add keeps an object, remembering its name under the entity's ID.
func (b *builder) add(obj runtime.Object, kind, id, name string) {
	b.objects = append(b.objects, obj)
	if id == "" {
		return
	}
	if b.ids[kind] == nil {
		b.ids[kind] = map[string]string{}
	}
	b.ids[kind][id] = name
}

// nameOf returns the object name of the exported entity of kind with the
// given ID, "" when it was not exported.
func (b *builder) nameOf(kind, id string) string { return b.ids[kind][id] }

// note adds a line for standard error.
func (b *builder) note(format string, args ...any) {
	b.notes = append(b.notes, fmt.Sprintf(format, args...))
}

// skip notes an entity that is not exported, and why.
func (b *builder) skip(what, id, why string) {
	b.note("not exported: %s %s: %s", what, id, why)
}

// meta is the metadata of an exported object in the namespace.
func (b *builder) meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: b.opts.Namespace}
}

// controlPlaneRef refers to the exported control plane.
func (b *builder) controlPlaneRef() *commonv1alpha1.ControlPlaneRef {
	return &commonv1alpha1.ControlPlaneRef{
		Type:                 commonv1alpha1.ControlPlaneRefKonnectNamespacedRef,
		KonnectNamespacedRef: &commonv1alpha1.KonnectNamespacedRef{Name: b.cpName},
	}
}

// adopt takes over the entity with the given ID without writing to it.
func adopt(id string) *commonv1alpha1.AdoptOptions {
	return &commonv1alpha1.AdoptOptions{
		From: commonv1alpha1.AdoptSourceKonnect, Mode: commonv1alpha1.AdoptModeMatch,
		Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: id},
	}
}

// userTags are the tags of an entity without the identity tags an
// operator wrote (k8s-*, managed-by), which the operator writes itself.
// An entity tagged with another object's UID is noted: adopting it is
// refused until that object lets go of it.
func (b *builder) userTags(what, id string, tags []string) []string {
	if uid := controller.UIDFromTags(tags); uid != "" {
		b.note("%s %s carries the tag %s:%s of a Kubernetes object: it is adopted only by that object (another object's adoption is refused with UIDConflict)", what, id, controller.TagKeyUID, uid)
	}
	return controller.UserTags(tags)
}

// secret is a Secret of the export, labelled for the operator to read.
func (b *builder) secret(name, label, value string, data map[string]string) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.opts.Namespace, Labels: map[string]string{label: value}},
		Type:       corev1.SecretTypeOpaque,
		StringData: data,
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
