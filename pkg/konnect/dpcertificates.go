package konnect

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// DataPlaneCertificate is a client certificate that data planes of a control
// plane (with pinned_client_certs auth) present to it.
type DataPlaneCertificate struct {
	ID   string
	Cert string
}

func dataPlaneCertificateOp(verb string) operation {
	return operation{verb: verb, entity: "data_plane_certificate"}
}

// dataPlaneCertificateAnswer is the shape of single-certificate answers.
type dataPlaneCertificateAnswer struct {
	Item *konnectapi.DataPlaneClientCertificate `json:"item"`
}

func (a dataPlaneCertificateAnswer) certificate(op operation) (DataPlaneCertificate, error) {
	if a.Item == nil {
		return DataPlaneCertificate{}, fmt.Errorf("%s: answer has no item", op)
	}
	return dataPlaneCertificateFromWire(*a.Item), nil
}

func dataPlaneCertificateFromWire(w konnectapi.DataPlaneClientCertificate) DataPlaneCertificate {
	var cert DataPlaneCertificate
	if w.Id != nil {
		cert.ID = *w.Id
	}
	if w.Cert != nil {
		cert.Cert = *w.Cert
	}
	return cert
}

// CreateDataPlaneCertificate pins the PEM certificate cert on control plane cp.
func (c *Client) CreateDataPlaneCertificate(ctx context.Context, cp, cert string) (DataPlaneCertificate, error) {
	op := dataPlaneCertificateOp("create")
	cpID, err := parseControlPlaneID(op, cp)
	if err != nil {
		return DataPlaneCertificate{}, err
	}
	var answer dataPlaneCertificateAnswer
	err = c.exchange(ctx, op, &answer, func(ctx context.Context) (*http.Response, error) {
		return c.api.CreateDataplaneCertificate(ctx, cpID, konnectapi.CreateDataplaneCertificateJSONRequestBody{Cert: cert})
	})
	if err != nil {
		return DataPlaneCertificate{}, err
	}
	return answer.certificate(op)
}

// GetDataPlaneCertificate returns data-plane certificate id of control plane cp.
func (c *Client) GetDataPlaneCertificate(ctx context.Context, cp, id string) (DataPlaneCertificate, error) {
	op := dataPlaneCertificateOp("get")
	if err := requireIDs(op, "data-plane certificate ID", id); err != nil {
		return DataPlaneCertificate{}, err
	}
	var answer dataPlaneCertificateAnswer
	err := callControlPlane(ctx, c, op, cp, &answer, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.GetDataplaneCertificate(ctx, cpID, id)
	})
	if err != nil {
		return DataPlaneCertificate{}, err
	}
	return answer.certificate(op)
}

// DeleteDataPlaneCertificate unpins data-plane certificate id of control
// plane cp. A missing one is a *NotFoundError.
func (c *Client) DeleteDataPlaneCertificate(ctx context.Context, cp, id string) error {
	op := dataPlaneCertificateOp("delete")
	if err := requireIDs(op, "data-plane certificate ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteDataplaneCertificate(ctx, cpID, id)
	})
}

// ListDataPlaneCertificates returns every data-plane certificate of control
// plane cp (Konnect serves them in one answer, without tags).
func (c *Client) ListDataPlaneCertificates(ctx context.Context, cp string) ([]DataPlaneCertificate, error) {
	op := dataPlaneCertificateOp("list")
	var answer struct {
		Items []konnectapi.DataPlaneClientCertificate `json:"items"`
	}
	err := callControlPlane(ctx, c, op, cp, &answer, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.ListDpClientCertificates(ctx, cpID)
	})
	if err != nil {
		return nil, err
	}
	certs := make([]DataPlaneCertificate, 0, len(answer.Items))
	for _, item := range answer.Items {
		certs = append(certs, dataPlaneCertificateFromWire(item))
	}
	return certs, nil
}

// callControlPlane sends a request about control plane cp and decodes its
// answer into out.
func callControlPlane(ctx context.Context, c *Client, op operation, cp string, out any,
	send func(context.Context, uuid.UUID) (*http.Response, error),
) error {
	cpID, err := parseControlPlaneID(op, cp)
	if err != nil {
		return err
	}
	return c.exchange(ctx, op, out, func(ctx context.Context) (*http.Response, error) {
		return send(ctx, cpID)
	})
}
