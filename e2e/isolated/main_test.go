// Package isolated runs the end-to-end tests that bring their own world,
// side by side, in a process of their own that runs beside the e2e package's
// tests rather than after them.
//
// The chaos tests, the outage tests and the export each start a simulator
// and operators of their own, watching a namespace of their own with a Lease
// of their own, on this process's control plane; the Helm journey, the
// namespaced overlay, the installs under other namespaces and the API
// server's outage each start a control plane of their own. None could share
// the e2e package's control plane, whose operators watch every namespace.
package isolated

import (
	"sync"
	"testing"

	"github.com/konnect-operator/konnect-operator/e2e"
)

func TestMain(m *testing.M) { e2e.Main(m) }

func TestChaosOperatorKilledWhileConverging(t *testing.T) {
	t.Parallel()
	e2e.ChaosOperatorKilledWhileConverging(t)
}

func TestChaosLeaderFailoverDuringCreate(t *testing.T) {
	t.Parallel()
	e2e.ChaosLeaderFailoverDuringCreate(t)
}

func TestChaosFaultSoak(t *testing.T) {
	t.Parallel()
	e2e.ChaosFaultSoak(t)
}

func TestKonnectAnswering503ForMinutesConvergesWithin30sOfItsReturn(t *testing.T) {
	t.Parallel()
	e2e.KonnectOutage(t, false)
}

func TestKonnectHangingForMinutesConvergesWithin30sOfItsReturn(t *testing.T) {
	t.Parallel()
	e2e.KonnectOutage(t, true)
}

func TestLeaderFrozenPastItsLeaseWritesNothingOnceTheStandbyLeads(t *testing.T) {
	t.Parallel()
	e2e.LeaderFrozen(t)
}

func TestAPIServerStoppedNoWriteAfterTheLeaseExpired(t *testing.T) {
	t.Parallel()
	e2e.APIServerStopped(t)
}

func TestRevokedTokenCostsAFewRequestsAMinuteAndItsReplacementConverges(t *testing.T) {
	t.Parallel()
	e2e.TokenRevoked(t)
}

func TestExportAppliedWritesNothing(t *testing.T) {
	t.Parallel()
	e2e.ExportAppliedWritesNothing(t)
}

// suiteSimulator is locked by the tests that use the suite's simulator:
// each checks that it leaves the simulator with what it had before.
var suiteSimulator sync.Mutex

func TestHelmChartInstallUpgradeUninstall(t *testing.T) {
	t.Parallel()
	suiteSimulator.Lock()
	defer suiteSimulator.Unlock()
	e2e.HelmChartInstallUpgradeUninstall(t)
}

func TestNamespacedOverlay(t *testing.T) {
	t.Parallel()
	suiteSimulator.Lock()
	defer suiteSimulator.Unlock()
	e2e.NamespacedOverlay(t)
}

func TestInstallsUnderOtherNamespaces(t *testing.T) {
	t.Parallel()
	e2e.InstallsUnderOtherNamespaces(t)
}
