package integration

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// The tests in this file are what a GitOps pipeline reads: kstatus (Flux,
// kpt, kubectl-style waiters) and the Argo CD health checks the operator
// ships, asked about objects the operator put in each of its states.

// Argo CD's health statuses.
const (
	argoHealthy     = "Healthy"
	argoProgressing = "Progressing"
	argoDegraded    = "Degraded"
	argoSuspended   = "Suspended"
)

// exists is the state of an object that is there, whatever its status.
func exists(*unstructured.Unstructured) error { return nil }

// deleting is the state of an object kept while its entity cannot be
// deleted yet.
func deleting(reason string) func(*unstructured.Unstructured) error {
	return func(obj *unstructured.Unstructured) error {
		if obj.GetDeletionTimestamp() == nil {
			return errors.New("not being deleted yet")
		}
		return hasCondition(obj, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, reason)
	}
}

// TestGitOpsToolsFollowEachFamilyFromCreationToDeletion: a control plane,
// a service and its route, a credential and a plugin binding, applied
// before the operator runs, read as in progress; Programmed, as current
// and healthy; changed while the operator is away, as in progress again;
// paused, as suspended (and failed, for kstatus, once a change waits for
// the pause to end); deleted while Konnect does not answer, as
// terminating.
func TestGitOpsToolsFollowEachFamilyFromCreationToDeletion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	basicAuth := credentialCases()[0]
	objects := []gitopsCase{
		{what: "control plane", resource: controlPlanes, name: "cp"},
		{what: "service", resource: kongServices, name: "svc"},
		{what: "route", resource: kongRoutes, name: "route"},
		{what: "credential", resource: basicAuths, name: "alice-basic"},
		{what: "plugin binding", resource: kongPluginBinding, name: "cors"},
	}
	each := func(state func(*unstructured.Unstructured) error, kstatus status.Status, argo string) []gitopsCase {
		out := make([]gitopsCase, len(objects))
		for i, c := range objects {
			c.state, c.kstatus, c.argo = state, kstatus, argo
			out[i] = c
		}
		return out
	}

	e.stopOperator()
	e.createAuthConfig("auth")
	e.createControlPlane("cp", "auth")
	e.createService("svc")
	e.createRoute("route", withService("svc"))
	e.createConsumer("alice")
	basicAuth.create(e, "alice-basic", "alice", "alice", nil)
	e.createPlugin("cors", "cors", `{}`)
	e.createBinding("cors", "cors", global)
	// Before the operator writes anything, the schema's default says that
	// it has yet to; a control plane's schema seeds no status, which only
	// the Argo CD check reads as unfinished.
	e.seesAs(each(exists, status.InProgressStatus, argoProgressing)[1:]...)
	cp, err := e.object(controlPlanes, "cp")
	if err != nil {
		t.Fatal(err)
	}
	if health, message, err := argoHealth(cp); err != nil || health != argoProgressing {
		t.Errorf("a new control plane: Argo CD %s (%q), %v; want %s", health, message, err, argoProgressing)
	}
	// A KongPlugin is reported on by what uses it.
	e.seesAs(gitopsCase{what: "plugin", resource: kongPlugins, name: "cors", state: exists, kstatus: status.CurrentStatus, argo: argoHealthy})

	e.startOperator()
	e.seesAs(each(isProgrammed, status.CurrentStatus, argoHealthy)...)
	e.seesAs(gitopsCase{what: "auth configuration", resource: authConfigs, name: "auth",
		state: func(obj *unstructured.Unstructured) error {
			return hasCondition(obj, commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionTrue, "")
		},
		kstatus: status.CurrentStatus, argo: argoHealthy})

	t.Run("a change the operator has not seen yet", func(t *testing.T) {
		e := e.with(t)
		e.settle()
		e.stopOperator()
		e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Host = "changed.example.com" })
		e.seesAs(gitopsCase{what: "changed service", resource: kongServices, name: "svc", state: exists, kstatus: status.InProgressStatus, argo: argoProgressing})
		e.startOperator()
		e.seesAs(gitopsCase{what: "service with the change written", resource: kongServices, name: "svc", state: isProgrammed, kstatus: status.CurrentStatus, argo: argoHealthy})
	})

	t.Run("paused", func(t *testing.T) {
		e := e.with(t)
		paused := func(obj *unstructured.Unstructured) error {
			return hasCondition(obj, commonv1alpha1.ConditionPaused, metav1.ConditionTrue, commonv1alpha1.ReasonPaused)
		}
		for _, c := range objects {
			e.setAnnotation(c.resource, c.name, commonv1alpha1.AnnotationReconcilePolicy, string(commonv1alpha1.ReconcilePolicyPause))
		}
		e.seesAs(each(paused, status.CurrentStatus, argoSuspended)...)
		// A change waits for the pause to end: it cannot progress before.
		e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Port = 8080 })
		e.seesAs(gitopsCase{what: "paused service with a change", resource: kongServices, name: "svc",
			state: func(obj *unstructured.Unstructured) error {
				if err := paused(obj); err != nil {
					return err
				}
				return hasCondition(obj, commonv1alpha1.ConditionReady, metav1.ConditionFalse, commonv1alpha1.ReasonPaused)
			},
			kstatus: status.FailedStatus, argo: argoSuspended})
		for _, c := range objects {
			e.setAnnotation(c.resource, c.name, commonv1alpha1.AnnotationReconcilePolicy, "")
		}
		e.seesAs(each(isProgrammed, status.CurrentStatus, argoHealthy)...)
	})

	t.Run("deleted while Konnect does not answer", func(t *testing.T) {
		e := e.with(t)
		e.sim.Faults().Set("*", konnectsim.Fault{ErrorRate: 1, Status: 500})
		for _, c := range objects {
			e.deleteObject(c.resource, c.name)
		}
		e.seesAs(each(deleting(commonv1alpha1.ReasonKonnectUnreachable), status.TerminatingStatus, argoProgressing)...)
		e.sim.Faults().Clear()
		for _, c := range objects {
			gone(e, c.what, func() (*unstructured.Unstructured, error) { return e.object(c.resource, c.name) })
		}
	})
}

// TestGitOpsToolsTellWaitingFromBlockedAndRefused: references that may
// still come read as in progress; a spec Konnect refuses, a reference
// refused as named, and everything below a token Konnect rejects read as
// failed, in every family.
func TestGitOpsToolsTellWaitingFromBlockedAndRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.ready()
	basicAuth := credentialCases()[0]
	waiting := programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonWaitingForReferences)
	blocked := programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonBlockedByReference)

	e.createControlPlane("early", "later-auth")
	e.createRoute("orphan", withService("later"))
	basicAuth.create(e, "lonely", "nobody", "lonely", nil)
	e.createBinding("unplugged", "absent", global)
	e.seesAs(
		gitopsCase{"control plane waiting for its auth configuration", controlPlanes, "early", waiting, status.InProgressStatus, argoProgressing},
		gitopsCase{"route waiting for its service", kongRoutes, "orphan", waiting, status.InProgressStatus, argoProgressing},
		gitopsCase{"credential waiting for its consumer", basicAuths, "lonely", waiting, status.InProgressStatus, argoProgressing},
		gitopsCase{"binding waiting for its plugin", kongPluginBinding, "unplugged", waiting, status.InProgressStatus, argoProgressing},
	)

	e.createService("refused", func(s *configurationv1alpha1.KongService) { s.Spec.Path = "no-leading-slash" })
	e.secret(e.ns, "values", map[string]string{"other": "{}"})
	e.createSecretPlugin("malformed", "rate-limiting", configFromSecret("values", "nope"))
	e.createBinding("malformed", "malformed", global)
	e.seesAs(
		gitopsCase{"service Konnect refuses", kongServices, "refused", programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonFailedToCreate), status.FailedStatus, argoDegraded},
		gitopsCase{"binding of a plugin whose Secret lacks its data", kongPluginBinding, "malformed",
			programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonConditionWithStatusFalseExists), status.FailedStatus, argoDegraded},
	)
	_ = e.sim.TakeViolations() // the refused service breaks the document's pattern on purpose

	e.createRejectedAuthConfig("bad")
	e.createControlPlane("bad", "bad")
	underBad := cpRef("bad")
	e.createService("blocked", func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = underBad })
	e.createRoute("blocked", withService("blocked"))
	if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, &configurationv1.KongConsumer{
		ObjectMeta: metav1.ObjectMeta{Name: "blocked"}, Username: "blocked",
		Spec: configurationv1.KongConsumerSpec{ControlPlaneRef: underBad},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	basicAuth.create(e, "blocked", "blocked", "blocked", nil)
	e.createPlugin("cors", "cors", `{}`)
	e.createBinding("blocked", "cors", global, func(b *configurationv1alpha1.KongPluginBinding) { b.Spec.ControlPlaneRef = underBad })
	e.seesAs(
		gitopsCase{"auth configuration whose token Konnect rejects", authConfigs, "bad",
			func(obj *unstructured.Unstructured) error {
				return hasCondition(obj, commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionFalse, commonv1alpha1.ReasonInvalid)
			}, status.FailedStatus, argoDegraded},
		gitopsCase{"control plane under the rejected token", controlPlanes, "bad", blocked, status.FailedStatus, argoDegraded},
		gitopsCase{"service below it", kongServices, "blocked", blocked, status.FailedStatus, argoDegraded},
		gitopsCase{"route below that", kongRoutes, "blocked", blocked, status.FailedStatus, argoDegraded},
		gitopsCase{"credential of a consumer below it", basicAuths, "blocked", blocked, status.FailedStatus, argoDegraded},
		gitopsCase{"binding below it", kongPluginBinding, "blocked", blocked, status.FailedStatus, argoDegraded},
	)
}

// TestGitOpsToolsFollowACloudGatewayNetwork: Konnect provisioning a network
// reads as in progress, a ready one as current, one Konnect failed to
// provision or that a rejected token blocks as failed, a paused one as
// suspended, and one Konnect is terminating as terminating.
func TestGitOpsToolsFollowACloudGatewayNetwork(t *testing.T) {
	t.Parallel()
	e := newEnv(t, cloudOptions(3*time.Second, 2*time.Second))
	e.createAuthConfig("auth")
	e.sim.Faults().FailProvisioning(e.ns+"-failing", "no capacity left in eu-central-1")
	e.createNetwork("net", "auth")
	e.seesAs(gitopsCase{"network being provisioned", networks, "net",
		programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonProvisioning), status.InProgressStatus, argoProgressing})
	e.createNetwork("failing", "auth", func(n *cloudNetwork) { n.Spec.Name = e.ns + "-failing"; n.Spec.CidrBlock = "10.3.0.0/16" })
	e.createNetwork("early", "later-auth", func(n *cloudNetwork) { n.Spec.Name = e.ns + "-early"; n.Spec.CidrBlock = "10.4.0.0/16" })
	e.seesAs(
		gitopsCase{"network ready", networks, "net", isProgrammed, status.CurrentStatus, argoHealthy},
		gitopsCase{"network Konnect failed to provision", networks, "failing",
			programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonProvisioningFailed), status.FailedStatus, argoDegraded},
		gitopsCase{"network waiting for its auth configuration", networks, "early",
			programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonWaitingForReferences), status.InProgressStatus, argoProgressing},
	)

	e.createRejectedAuthConfig("bad")
	e.createNetwork("blocked", "bad", func(n *cloudNetwork) { n.Spec.Name = e.ns + "-blocked"; n.Spec.CidrBlock = "10.5.0.0/16" })
	e.seesAs(gitopsCase{"network under a rejected token", networks, "blocked",
		programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonBlockedByReference), status.FailedStatus, argoDegraded})

	e.setAnnotation(networks, "net", commonv1alpha1.AnnotationReconcilePolicy, string(commonv1alpha1.ReconcilePolicyPause))
	e.seesAs(gitopsCase{"paused network", networks, "net", func(obj *unstructured.Unstructured) error {
		return hasCondition(obj, commonv1alpha1.ConditionPaused, metav1.ConditionTrue, commonv1alpha1.ReasonPaused)
	}, status.CurrentStatus, argoSuspended})
	e.setAnnotation(networks, "net", commonv1alpha1.AnnotationReconcilePolicy, "")
	e.seesAs(gitopsCase{"network no longer paused", networks, "net", func(obj *unstructured.Unstructured) error {
		if err := isProgrammed(obj); err != nil {
			return err
		}
		if hasCondition(obj, commonv1alpha1.ConditionPaused, metav1.ConditionTrue, "") == nil {
			return errors.New("still Paused")
		}
		return nil
	}, status.CurrentStatus, argoHealthy})

	e.deleteObject(networks, "net")
	e.seesAs(gitopsCase{"network Konnect is terminating", networks, "net", deleting(commonv1alpha1.ReasonDeleting), status.TerminatingStatus, argoProgressing})
	gone(e, "network", func() (*cloudNetwork, error) { return e.network("net") })
}

// TestGitOpsToolsSeeAnotherClustersEntityAsFailed: objects whose entities
// another cluster's operator owns cannot progress without a change (taking
// them over with spec.adopt, or deleting them): failed, for both tools.
func TestGitOpsToolsSeeAnotherClustersEntityAsFailed(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	// cluster-a's entities stay in Konnect on purpose.
	e := newEnv(t, envOptions{syncPeriod: period, clusterIdentity: "cluster-a", keepNamespace: true})
	cpID := e.ready()
	// The service lives in cluster-a's control plane through a mirror,
	// which cluster-b's operator reads without owning it.
	e.createMirror("mirror", cpID)
	e.createService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = cpRef("mirror") })
	e.programmedService("svc")
	e.settle()
	e.stopOperator()

	e.opts.clusterIdentity = "cluster-b"
	e.startOperator()
	e.step(period) // every listing, and every periodic read, has run
	e.updateService("svc", func(s *configurationv1alpha1.KongService) { s.Spec.Port = 8080 })
	foreign := programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonOwnedByOtherCluster)
	e.seesAs(
		gitopsCase{"cluster-a's control plane", controlPlanes, "cp", foreign, status.FailedStatus, argoDegraded},
		gitopsCase{"cluster-a's service", kongServices, "svc", foreign, status.FailedStatus, argoDegraded},
		gitopsCase{"the mirror, which is only read", controlPlanes, "mirror", isProgrammed, status.CurrentStatus, argoHealthy},
	)
}

// createRejectedAuthConfig creates an auth configuration whose token is
// well formed but unknown to Konnect, which rejects it (401).
func (e *env) createRejectedAuthConfig(name string) {
	e.t.Helper()
	if _, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: "kpat_" + strings.Repeat("x", 40), ServerURL: e.sim.URL,
		},
	}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}
