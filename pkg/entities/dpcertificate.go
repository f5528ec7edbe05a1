package entities

import (
	"bytes"
	"context"
	"encoding/pem"

	"github.com/Kong/sdk-konnect-go/models/components"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongDataPlaneCertificate = *configurationv1alpha1.KongDataPlaneClientCertificate

// DataPlaneCertificateKind describes KongDataPlaneClientCertificates:
// certificates pinned on their control plane, which, unlike for every other
// kind, may be a control-plane group.
//
// A pinned certificate is only an ID and a PEM: no tags, so no UID to find
// it by, and no way to change it. The operator therefore takes a pin's
// identity to be its certificate within its control plane. Where the
// generic reconciler would look an entity up by UID (the object predates
// the operator's start, or a create's outcome was unknown), it looks for a
// pin of the same certificate and takes it rather than pinning a second
// copy: never a duplicate for one object. Pinning the same certificate
// twice would add nothing, so an identical pin made outside the operator is
// taken over too (and unpinned when the object goes). Two objects with the
// same certificate may share one pin; if one unpins it, the other pins it
// again within a sync period, as it does after any out-of-band unpinning.
func DataPlaneCertificateKind(refs *Refs) controller.Kind[kongDataPlaneCertificate, components.DataPlaneClientCertificateRequest] {
	gvk := configurationGVK("KongDataPlaneClientCertificate")
	controlPlane := func(c kongDataPlaneCertificate) *cpRef { return c.Spec.ControlPlaneRef }
	placed := underControlPlane(refs, gvk, controlPlane)
	placed.steps = []func(*resolver, kongDataPlaneCertificate){func(b *resolver, c kongDataPlaneCertificate) {
		if cp := refs.controlPlane(b, referrerOf(gvk, c), controlPlane(c), true, false); cp != nil {
			b.res.Placement.Auth = refs.auth(b, cp)
			b.placeIn(c.ControlPlaneStatus(true), cp.Status.ID)
		}
	}}
	return controller.Kind[kongDataPlaneCertificate, components.DataPlaneClientCertificateRequest]{
		GVK:        gvk,
		Conditions: placed.conditions,
		Resolve:    placed.resolve,
		Desired: func(_ context.Context, c kongDataPlaneCertificate, _ controller.Placement) (components.DataPlaneClientCertificateRequest, error) {
			return components.DataPlaneClientCertificateRequest{Cert: c.Spec.Cert}, nil
		},
		Create: func(ctx context.Context, api konnect.API, _ kongDataPlaneCertificate, p controller.Placement, desired components.DataPlaneClientCertificateRequest) (string, controller.Snapshot, error) {
			pin, err := pins.create(ctx, api, p, desired)
			if err != nil {
				return "", controller.Snapshot{}, err
			}
			return deref(pin.GetID()), controller.MustSnapshot(pin), nil
		},
		Update: pins.replace,
		// What drifts of a pin is its existence: the pins of a control
		// plane come in one answer (they carry no tags to filter on).
		List: pins.listed,
		Delete: func(ctx context.Context, api konnect.API, _ kongDataPlaneCertificate, p controller.Placement, id string) error {
			return pins.remove(ctx, api, p, id)
		},
		FindByUID: pins.find,
		// A pin is found by its certificate, before every pin: Konnect
		// would pin a second copy.
		Recover:      &controller.Recovery[kongDataPlaneCertificate, components.DataPlaneClientCertificateRequest]{},
		Dependencies: placed.allDependencies(),
		Managed:      placed.managed,
		Adopt: &controller.Adoption[kongDataPlaneCertificate, components.DataPlaneClientCertificateRequest]{
			// The schema only admits match mode: a pin cannot be overwritten.
			Options: func(c kongDataPlaneCertificate) *adoptOptions { return c.Spec.Adopt },
			Inspect: pins.inspect,
		},
	}
}

// pins are the calls of a control plane's pinned data-plane certificates.
var pins pinCalls

type pinCalls struct{}

func (pinCalls) op(verb string) konnect.Operation {
	return konnect.Operation{Verb: verb, Entity: "data_plane_certificate"}
}

func (c pinCalls) create(ctx context.Context, api konnect.API, p controller.Placement, body components.DataPlaneClientCertificateRequest) (*components.DataPlaneClientCertificate, error) {
	return konnect.Call(ctx, c.op("create"), func(ctx context.Context) (*components.DataPlaneClientCertificate, error) {
		res, err := api.DPCertificates.CreateDataplaneCertificate(ctx, p.ControlPlaneID, &body)
		return answeredPin(res.GetDataPlaneClientCertificateResponse(), err)
	})
}

func (c pinCalls) get(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.DataPlaneClientCertificate, error) {
	return konnect.Call(ctx, c.op("get"), func(ctx context.Context) (*components.DataPlaneClientCertificate, error) {
		res, err := api.DPCertificates.GetDataplaneCertificate(ctx, p.ControlPlaneID, id)
		return answeredPin(res.GetDataPlaneClientCertificateResponse(), err)
	})
}

func (c pinCalls) remove(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
	_, err := konnect.Call(ctx, c.op("delete"), func(ctx context.Context) (struct{}, error) {
		_, err := api.DPCertificates.DeleteDataplaneCertificate(ctx, p.ControlPlaneID, id)
		return struct{}{}, err
	})
	return err
}

// list returns every pin of the control plane: Konnect serves them in one
// answer.
func (c pinCalls) list(ctx context.Context, api konnect.API, p controller.Placement) ([]components.DataPlaneClientCertificate, error) {
	return konnect.Call(ctx, c.op("list"), func(ctx context.Context) ([]components.DataPlaneClientCertificate, error) {
		res, err := api.DPCertificates.ListDpClientCertificates(ctx, p.ControlPlaneID)
		return res.GetListDataPlaneCertificatesResponse().GetItems(), err
	})
}

// answeredPin is the pin of a successful answer, which must carry one.
func answeredPin(res *components.DataPlaneClientCertificateResponse, err error) (*components.DataPlaneClientCertificate, error) {
	if err != nil {
		return nil, err
	}
	if pin := res.GetItem(); pin != nil {
		return pin, nil
	}
	return nil, errNoAnswer
}

// replace stands for an update: a pin cannot be changed, so it is read to
// see that it is still there and still pins spec.cert. A pin of another
// certificate (spec.cert may change until the object is Programmed) is
// unpinned and reported gone, so that the reconciler pins the new one.
func (c pinCalls) replace(ctx context.Context, api konnect.API, _ kongDataPlaneCertificate, p controller.Placement, id string, desired components.DataPlaneClientCertificateRequest) (controller.Snapshot, error) {
	pin, err := c.get(ctx, api, p, id)
	if err != nil {
		return controller.Snapshot{}, err
	}
	if sameCertificate(desired.Cert, deref(pin.Cert)) {
		return controller.MustSnapshot(pin), nil
	}
	if err := c.remove(ctx, api, p, id); err != nil && !konnect.IsNotFound(err) {
		return controller.Snapshot{}, err
	}
	return controller.Snapshot{}, &konnect.NotFoundError{Operation: "replace data_plane_certificate", Message: "the pinned certificate differed from spec.cert and was unpinned"}
}

// listed lists a control plane's pins for the drift lister: all of them
// always, as pins carry no tags.
func (c pinCalls) listed(ctx context.Context, api konnect.API, p controller.Placement, _ bool) ([]controller.Listed[components.DataPlaneClientCertificateRequest], error) {
	pinned, err := c.list(ctx, api, p)
	if err != nil {
		return nil, err
	}
	out := make([]controller.Listed[components.DataPlaneClientCertificateRequest], 0, len(pinned))
	for i := range pinned {
		pin := &pinned[i]
		out = append(out, controller.Listed[components.DataPlaneClientCertificateRequest]{
			ID: deref(pin.ID), Snapshot: controller.MustSnapshot(pin),
			Differences: func(desired components.DataPlaneClientCertificateRequest) []string {
				if sameCertificate(desired.Cert, deref(pin.Cert)) {
					return nil
				}
				return []string{"cert"}
			},
		})
	}
	return out, nil
}

// find returns the pin of the object's certificate: it stands for the
// object (see DataPlaneCertificateKind).
func (c pinCalls) find(ctx context.Context, api konnect.API, cert kongDataPlaneCertificate, p controller.Placement) (string, error) {
	pinned, err := c.list(ctx, api, p)
	if err != nil {
		return "", err
	}
	for _, pin := range pinned {
		if sameCertificate(cert.Spec.Cert, deref(pin.Cert)) {
			return deref(pin.ID), nil
		}
	}
	return "", nil
}

// inspect compares a pin to adopt with the spec. Pins carry no tags, so
// no UID.
func (c pinCalls) inspect(ctx context.Context, api konnect.API, _ kongDataPlaneCertificate, p controller.Placement, id string, desired components.DataPlaneClientCertificateRequest) (controller.Inspection, error) {
	pin, err := c.get(ctx, api, p, id)
	if err != nil {
		return controller.Inspection{}, err
	}
	var d diff
	d.check("cert", sameCertificate(desired.Cert, deref(pin.Cert)))
	return controller.Inspection{Differences: d, Actual: pin}, nil
}

// sameCertificate reports whether two PEM texts hold the same certificate,
// however they are wrapped or spaced.
func sameCertificate(a, b string) bool {
	blockA, _ := pem.Decode([]byte(a))
	blockB, _ := pem.Decode([]byte(b))
	if blockA == nil || blockB == nil {
		return samePEM(a, b)
	}
	return blockA.Type == blockB.Type && bytes.Equal(blockA.Bytes, blockB.Bytes)
}
