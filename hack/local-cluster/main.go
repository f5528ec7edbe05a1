// Command local-cluster keeps a pkg/localcluster control plane running until
// it receives SIGTERM or SIGINT. hack/local-cluster.sh runs it in the
// background; it is not meant to be run by hand.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
)

func main() {
	os.Exit(run())
}

func run() int {
	dir := flag.String("dir", "", "folder for the cluster's data, keys and logs (kept after stopping)")
	kubeconfig := flag.String("kubeconfig", "", "where to write the admin kubeconfig once the cluster is ready; removed on stop")
	crdDir := flag.String("crd-dir", "", "folder of CRD manifests to install")
	flag.Parse()
	if *dir == "" || *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "local-cluster: --dir and --kubeconfig are required")
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	cluster, err := localcluster.Start(ctx, localcluster.Options{Dir: *dir, CRDDir: *crdDir})
	if err != nil {
		fmt.Fprintf(os.Stderr, "local-cluster: %v\n", err)
		return 1
	}
	defer func() {
		if err := cluster.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "local-cluster: stop: %v\n", err)
		}
		_ = os.Remove(*kubeconfig)
	}()
	// The kubeconfig appears last: its presence tells the script that the
	// cluster is ready.
	if err := cluster.WriteKubeconfig(*kubeconfig, cluster.Config); err != nil {
		fmt.Fprintf(os.Stderr, "local-cluster: %v\n", err)
		return 1
	}
	fmt.Printf("local-cluster: %s ready in %s; logs in %s\n", cluster.Server, cluster.StartupDuration.Round(1e6), cluster.Dir)

	select {
	case <-ctx.Done():
		fmt.Println("local-cluster: stopping")
		return 0
	case err := <-cluster.Failed():
		fmt.Fprintf(os.Stderr, "local-cluster: %v\n", err)
		return 1
	}
}
