package integration

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// Kong Operator's samples of the Event Gateway, copied unchanged into
// testdata/kong-operator from github.com/Kong/kong-operator (config/samples
// at cefc3842: konnect_eventgateway*.yaml and the two
// kongreferencegrant_eventgateway*.yaml). Several define the same objects
// differently (the gateway cp-event-1, its backend cluster), so each is
// applied, made Programmed and deleted in turn. Some name an auth
// configuration they do not define, which the test makes:
// konnect-api-auth in default, and in event-gateways, where the grant
// samples' gateways look for it (their authRef leaves its namespace out, a
// TODO of the samples).
// kongOperatorSampleToken is the token of Kong Operator's samples.
const kongOperatorSampleToken = "kpat_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

var kongOperatorEventGatewaySamples = []string{
	"konnect_eventgateway.yaml",
	"konnect_eventgateway_backendcluster.yaml",
	"konnect_eventgateway_listener.yaml",
	"konnect_eventgateway_listener_policy.yaml",
	"konnect_eventgateway_schemaregistry.yaml",
	"konnect_eventgateway_virtualcluster.yaml",
	"konnect_eventgateway_virtualcluster_policy.yaml",
	"konnect_eventgateway_virtualcluster_consumepolicy.yaml",
	"konnect_eventgateway_virtualcluster_consumepolicy_schemaregistry_reference.yaml",
	"konnect_eventgateway_virtualcluster_producepolicy.yaml",
	"konnect_eventgateway_with_eventgatewaydataplanecertificate.yaml",
	"kongreferencegrant_eventgatewaylistener_to_konnecteventgateway.yaml",
	"kongreferencegrant_eventgatewayvirtualclusterconsumepolicy_to_eventgatewayvirtualcluster.yaml",
}

// TestKongOperatorEventGatewaySamplesApplyUnchanged applies each Event
// Gateway sample as published, waits until every object is Programmed
// and Konnect holds an entity of each, then deletes them and waits until
// they are gone from the cluster and from Konnect.
func TestKongOperatorEventGatewaySamplesApplyUnchanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{
		konnectHosts: []string{"eu.api.konghq.com", "global.api.konghq.com"},
		tokens:       []string{kongOperatorSampleToken},
		watchAlso:    []string{metav1.NamespaceDefault, "konnect", "event-gateways", "event-listeners", "event-virtual-clusters", "event-policies"},
	})
	for _, file := range kongOperatorEventGatewaySamples {
		objects := readManifests(t, filepath.Join("testdata", "kong-operator", file))
		if !slices.ContainsFunc(objects, func(o *unstructured.Unstructured) bool { return o.GetKind() == "KonnectAPIAuthConfiguration" }) {
			e.ensureAuth(metav1.NamespaceDefault, "konnect-api-auth")
		}
		objects, resource := e.applyKongOperatorSamples(file)
		if slices.ContainsFunc(objects, func(o *unstructured.Unstructured) bool { return o.GetNamespace() == "event-gateways" }) {
			e.ensureAuth("event-gateways", "konnect-api-auth")
		}
		e.samplesReady(objects, resource)
		gateways := e.sim.APIEntities(e.orgID, "event-gateways", "")
		if want := countKind(objects, "KonnectEventGateway"); len(gateways) != want {
			t.Fatalf("%s: Konnect holds %d event gateways, want the sample's %d", file, len(gateways), want)
		}
		e.samplesDeleted(objects, resource)
	}
}

// ensureAuth creates in ns the auth configuration the other samples
// define (their token and server, which the environment serves), unless
// one of that name is there: a sample applied after it finds what it
// would write.
func (e *env) ensureAuth(ns, name string) {
	e.t.Helper()
	_, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: kongOperatorSampleToken, ServerURL: "eu.api.konghq.com",
		},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		_ = e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(ns).Delete(context.WithoutCancel(e.ctx), name, metav1.DeleteOptions{})
	})
}
