package localcluster

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
)

// RunTests runs a test package against one cluster: call it from TestMain as
//
//	func TestMain(m *testing.M) { os.Exit(localcluster.RunTests(m, opts, &cluster)) }
//
// It starts the cluster (building the binaries first when they are missing),
// stores it in *cluster, runs the tests and stops the cluster. It returns the
// exit code for os.Exit: 1 when the cluster cannot start or stop cleanly.
func RunTests(m *testing.M, opts Options, cluster **Cluster) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	c, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "localcluster: start: %v\n", err)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "localcluster: control plane at %s ready in %s\n", c.Server, c.StartupDuration.Round(1e6))
	}
	*cluster = c
	// A component dying mid-run shows up in the tests as refused
	// connections; its own last words explain why.
	go func() {
		if err, ok := <-c.Failed(); ok {
			fmt.Fprintf(os.Stderr, "localcluster: %v\n", err)
		}
	}()
	code := m.Run()
	if err := c.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "localcluster: stop: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
