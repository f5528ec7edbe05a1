package integration

import (
	"fmt"
	"github.com/Kong/sdk-konnect-go/models/components"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

type kongDPCertificate = *configurationv1alpha1.KongDataPlaneClientCertificate

func dpCertificateObject(name, cert string) kongDPCertificate {
	return &configurationv1alpha1.KongDataPlaneClientCertificate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongDataPlaneClientCertificateSpec{
			ControlPlaneRef:                       cpRef("cp"),
			KongDataPlaneClientCertificateAPISpec: configurationv1alpha1.KongDataPlaneClientCertificateAPISpec{Cert: cert},
		},
	}
}

const dpCollection = "dp-client-certificates"

// pins returns the certificates pinned on a control plane.
func (e *env) pins(cpID string) []string {
	var out []string
	for _, pin := range e.entities(cpID, dpCollection) {
		out = append(out, fmt.Sprint(pin["cert"]))
	}
	return out
}

var dpCertificates = kindCase[kongDPCertificate]{
	kind: "KongDataPlaneClientCertificate", collection: dpCollection, path: dpCollection, untagged: true,
	client: func(e *env) objectClient[kongDPCertificate] {
		return e.cs.ConfigurationV1alpha1().KongDataPlaneClientCertificates(e.ns)
	},
	object: func(e *env, name string) kongDPCertificate {
		return dpCertificateObject(name, e.pairFor(name, false).Cert)
	},
	setControlPlane: func(c kongDPCertificate, ref *commonv1alpha1.ControlPlaneRef) {
		c.Spec.ControlPlaneRef = ref
	},
	// A pin cannot change once Programmed; what drifts is its existence.
	changed: func(ent map[string]any) error {
		if ent["cert"] == "" || ent["cert"] == nil {
			return fmt.Errorf("pin without a certificate: %v", ent)
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		if _, err := e.konnect().DPCertificates.DeleteDataplaneCertificate(e.ctx, cpID, ent["id"].(string)); err != nil {
			e.t.Fatal(err)
		}
	},
	adopt: func(c kongDPCertificate, opts *commonv1alpha1.AdoptOptions) { c.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		cert := e.pairFor(name, false).Cert
		if !matching {
			cert = e.pairFor(name+"-other", false).Cert
		}
		pin, err := e.konnect().DPCertificates.CreateDataplaneCertificate(e.ctx, cpID, &components.DataPlaneClientCertificateRequest{Cert: cert})
		if err != nil {
			e.t.Fatal(err)
		}
		return *pin.GetDataPlaneClientCertificateResponse().GetItem().ID
	},
}

// TestDataPlaneCertificate: match adoption, pinning, re-pinning after an
// out-of-band unpin within a sync period, unpinning on delete.
func TestDataPlaneCertificate(t *testing.T) { dpCertificates.test(t) }

// TestDataPlaneCertificateSpecifics: a data-plane certificate may be pinned
// on a control-plane group (other kinds may not attach to one); a
// certificate changed before the object is Programmed replaces the pin; and
// an object that lost its status finds its pin by its certificate instead
// of pinning it twice.
//
// It runs in update mode: the rotation case needs the periodic read of the
// pin, which a fault makes fail (list mode reads pins by listing, and a
// failed listing changes no status).
func TestDataPlaneCertificateSpecifics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{driftDetection: controller.DriftUpdate})
	cpID := e.ready()

	t.Run("a control-plane group takes pins, not entities", func(t *testing.T) {

		defer e.use(t)()
		group := e.controlPlaneObject("group", "auth")
		clusterType := konnectv1alpha2.ClusterTypeControlPlaneGroup
		group.Spec.CreateControlPlaneRequest.ClusterType = &clusterType
		if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Create(e.ctx, group, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var groupID string
		e.eventually("group Programmed", func() error {
			g := e.controlPlane("group")
			groupID = g.Status.ID
			return programmed(g)
		})
		pin := dpCertificates.object(e, "grouped")
		pin.Spec.ControlPlaneRef = cpRef("group")
		dpCertificates.create(e, pin)
		if _, err := dpCertificates.entity(e, groupID, dpCertificates.programmed(e, "grouped")); err != nil {
			t.Fatal(err)
		}
		u := upstreamObject("grouped")
		u.Spec.ControlPlaneRef = cpRef("group")
		upstreams.create(e, u)
		upstreams.refused(e, "grouped", commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid)
	})

	t.Run("a certificate changed before Programmed replaces the pin", func(t *testing.T) {

		defer e.use(t)()
		dpCertificates.create(e, dpCertificates.object(e, "rotated"))
		first := dpCertificates.programmed(e, "rotated").Status.Konnect.ID
		// Konnect fails the pin's periodic check: the object is no longer
		// Programmed, so its certificate may change.
		e.sim.Faults().Set("get-dataplane-certificate", konnectsim.Fault{ErrorRate: 1, Status: 503})
		e.step(time.Hour) // the sync period: the pin is read again
		dpCertificates.condition(e, "rotated", commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonFailedToUpdate)
		next := newKeyPair(t, "rotated-next.example", false).Cert
		dpCertificates.update(e, "rotated", func(c kongDPCertificate) { c.Spec.Cert = next })
		e.sim.Faults().Remove("get-dataplane-certificate")
		var second string
		e.eventually("the new certificate is pinned instead", func() error {
			c := dpCertificates.get(e, "rotated")
			second = c.Status.Konnect.GetKonnectID()
			if err := programmed(c); err != nil {
				return err
			}
			if second == first {
				return fmt.Errorf("still pinned as %s", first)
			}
			return nil
		})
		ent, err := dpCertificates.entity(e, cpID, dpCertificates.get(e, "rotated"))
		if err != nil {
			t.Fatal(err)
		}
		if !sameCert(fmt.Sprint(ent["cert"]), next) {
			t.Fatal("the new pin does not hold the new certificate")
		}
		if _, ok := e.entity(cpID, dpCollection, first); ok {
			t.Fatal("the old pin is still there")
		}
	})

	t.Run("a lost status finds the pin by its certificate", func(t *testing.T) {

		defer e.use(t)()
		dpCertificates.create(e, dpCertificates.object(e, "lost"))
		pinned := dpCertificates.programmed(e, "lost").Status.Konnect.ID
		before := len(e.pins(cpID))
		e.stopOperator()
		c := dpCertificates.get(e, "lost")
		c.Status.Konnect.ID = ""
		if _, err := e.cs.ConfigurationV1alpha1().KongDataPlaneClientCertificates(e.ns).UpdateStatus(e.ctx, c, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		e.startOperator()
		e.eventually("the pin is found again", func() error {
			c := dpCertificates.get(e, "lost")
			if id := c.Status.Konnect.GetKonnectID(); id != pinned {
				return fmt.Errorf("status ID %q, want %q", id, pinned)
			}
			return programmed(c)
		})
		if after := len(e.pins(cpID)); after != before {
			t.Fatalf("%d pins after recovery, want %d", after, before)
		}
	})
}

func sameCert(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }
