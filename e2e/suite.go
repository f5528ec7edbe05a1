package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
)

// suite is what Main sets up once for every test of the process: the
// binaries, a control plane and the simulator.
var suite struct {
	root        string // repository root
	binDir      string // the binaries the Dockerfile's builder commands built
	workDir     string // logs, kubeconfigs and CA files of this run
	buildOutput string
	cluster     *clusterEnv
	sim         *simulator
	// mirrorSource is the control plane the Mirror sample mirrors, made
	// outside the operator; the suite deletes it itself.
	mirrorSource string
}

// Placeholders the samples ship with (they match the simulator `make run`
// starts); the suite replaces them with its own simulator's.
const (
	sampleServerURL = "https://127.0.0.1:8443"
	sampleToken     = "kpat_EDIT_ME_sample_token_for_the_konnect_simulator"
	sampleMirrorID  = "00000000-0000-0000-0000-000000000000"
	// sampleAdoptServiceID and sampleAdoptRouteID are the entities of the
	// mirrored control plane that the adoption sample adopts.
	sampleAdoptServiceID = "00000000-0000-0000-0000-000000000001"
	sampleAdoptRouteID   = "00000000-0000-0000-0000-000000000002"
	// sampleProviderAccount is the cloud provider account the cloud-gateway
	// samples name; the suite's simulator links it, as make run's does.
	sampleProviderAccount = "11111111-1111-1111-1111-111111111111"
)

// The operator's API groups.
const (
	konnectGroup       = "konnect.konghq.com"
	configurationGroup = "configuration.konghq.com"
)

// Where the operator runs and who it runs as, as manifests/ deploy it.
const (
	operatorNamespace      = "konnect-operator-system"
	operatorServiceAccount = "konnect-operator"
	operatorDeployment     = "konnect-operator"
	leaseName              = "konnect-operator"
)

// Main sets the suite up (the binaries, a control plane, the simulator),
// runs the tests and tears the suite down; a test package's TestMain calls
// it. Each test package that calls it gets a suite, and a control plane,
// of its own.
func Main(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if err := setUp(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: set-up failed: %v\n", err)
		tearDown()
		return 1
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "e2e: logs of this run are in %s\n", suite.workDir)
		suite.workDir = "" // keep them
	}
	tearDown()
	return code
}

func setUp() error {
	var err error
	// The repository root: the tests run in their package's directory,
	// e2e or below it.
	if suite.root, err = localcluster.ModuleRoot("."); err != nil {
		return err
	}
	if suite.workDir, err = os.MkdirTemp("", "konnect-operator-e2e-"); err != nil {
		return err
	}
	suite.binDir = filepath.Join(suite.workDir, "bin")

	// The binaries, built the way the image builds them.
	begin := time.Now()
	df, err := parseDockerfile(filepath.Join(suite.root, "Dockerfile"))
	if err != nil {
		return err
	}
	builder := df.stage("builder")
	if builder == nil {
		return fmt.Errorf("the Dockerfile has no stage called builder")
	}
	if suite.buildOutput, err = runBuilder(suite.root, builder, map[string]string{"BIN_DIR": suite.binDir}); err != nil {
		return fmt.Errorf("%w\n%s", err, suite.buildOutput)
	}
	logf("built the binaries with the Dockerfile's builder commands in %s", time.Since(begin).Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if suite.cluster, err = startCluster(ctx, filepath.Join(suite.workDir, "cluster")); err != nil {
		return err
	}
	logf("control plane at %s ready in %s", suite.cluster.Server, suite.cluster.StartupDuration.Round(time.Millisecond))

	token, err := randomToken()
	if err != nil {
		return err
	}
	neighbours := make([]string, simNeighbours)
	for i := range neighbours {
		if neighbours[i], err = randomToken(); err != nil {
			return err
		}
	}
	if suite.sim, err = startSimulator(ctx, filepath.Join(suite.workDir, "simulator"), token, neighbours); err != nil {
		return err
	}
	logf("simulator at %s", suite.sim.url)
	return nil
}

func tearDown() {
	if suite.sim != nil {
		suite.sim.process.stop(5 * time.Second)
	}
	if suite.cluster != nil {
		if err := suite.cluster.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: stop the control plane: %v\n", err)
		}
	}
	if suite.workDir != "" {
		_ = os.RemoveAll(suite.workDir)
	}
}

// randomToken makes a Konnect-shaped token for the simulator; it is never
// printed.
func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "kpat_" + hex.EncodeToString(b), nil
}

func logf(format string, args ...any) {
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "e2e: "+format+"\n", args...)
	}
}

// startCluster starts a control plane without CRDs: the suite installs them
// from manifests/ as a user would.
func startCluster(ctx context.Context, dir string) (*clusterEnv, error) {
	c, err := localcluster.Start(ctx, localcluster.Options{Dir: dir})
	if err != nil {
		return nil, err
	}
	env, err := newClusterEnv(c)
	if err != nil {
		_ = c.Stop()
		return nil, err
	}
	return env, nil
}
