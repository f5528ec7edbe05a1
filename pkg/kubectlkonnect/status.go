package kubectlkonnect

import (
	"context"
	"fmt"
	"io"

	"github.com/konnect-operator/konnect-operator/pkg/inventory"
	"github.com/konnect-operator/konnect-operator/pkg/tree"
)

const statusHelp = `
Show where objects stand and why: each object with the objects it refers
to and the objects that refer to it, as a tree, with its Programmed state
(APIAuthValid for an auth configuration) and its Konnect ID. An object that
is not Programmed says why in one line, down to the root cause:

  KongRoute orders waits for KongService orders, which waits for
  KonnectGatewayControlPlane prod, which waits for KonnectAPIAuthConfiguration
  konnect: Konnect rejected the token: ... (HTTP 401)

With KIND/NAME, those objects, what they refer to and what refers to them.
Without, every object of the namespace, each below the first object it
refers to (its auth configuration, control plane or parent). It reads the
cluster only, never Konnect: what the operator last wrote in the objects'
status.

Usage:
  kubectl konnect status [KIND/NAME ...] [flags]

Example:
  kubectl konnect status -n payments
  kubectl konnect status -n payments kongroute/orders
  kubectl konnect status -n payments kongroute/orders -o json
`

func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("status", statusHelp)
	var cluster clusterFlags
	var output string
	cluster.add(cmd.flags)
	cmd.flags.StringVarP(&output, "output", "o", "", `Output format: "" for a tree, json for scripts.`)
	if status, done := cmd.parse(args, stdout, stderr); done {
		return status
	}
	if output != "" && output != "json" {
		return cmd.usageError(stderr, "--output must be json, or not given")
	}
	targets, err := inventory.ParseTargets(cmd.flags.Args())
	if err != nil {
		return cmd.usageError(stderr, "%v", err)
	}
	namespace, err := cluster.resolvedNamespace()
	if err != nil {
		return fail(stderr, err)
	}
	cs, kube, err := cluster.clients()
	if err != nil {
		return fail(stderr, err)
	}
	objects, err := inventory.Read(ctx, inventory.Cluster{Clientset: cs, Kube: kube}, namespace, inventory.Options{})
	if err != nil {
		return fail(stderr, err)
	}
	var nodes []*tree.Node
	if len(targets) > 0 {
		selected, err := objects.Pick(namespace, targets)
		if err != nil {
			return fail(stderr, err)
		}
		nodes = tree.Of(objects, selected)
	} else {
		nodes = tree.Forest(objects, namespace)
		if len(nodes) == 0 && output == "" {
			_, _ = fmt.Fprintf(stderr, "No objects of the operator's kinds in namespace %s.\n", namespace)
		}
	}
	if output == "json" {
		err = tree.PrintJSON(stdout, nodes)
	} else {
		err = tree.Print(stdout, nodes, len(targets) > 0)
	}
	if err != nil {
		return fail(stderr, err)
	}
	return exitOK
}
