// Command kubectl-konnect is a kubectl plugin (kubectl konnect …) that
// exports existing Konnect control planes and event gateways as manifests
// konnect-operator takes over, and shows what the operator would change in Konnect. See
// pkg/kubectlkonnect.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/konnect-operator/konnect-operator/pkg/kubectlkonnect"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	status := kubectlkonnect.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(status)
}
