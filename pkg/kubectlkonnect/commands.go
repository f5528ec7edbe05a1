package kubectlkonnect

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/konnect-operator/konnect-operator/pkg/diff"
	"github.com/konnect-operator/konnect-operator/pkg/export"
	"github.com/konnect-operator/konnect-operator/pkg/inventory"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

const exportHelp = `
Write, to standard output, the manifests that bring an existing Konnect
control plane under konnect-operator: the KonnectGatewayControlPlane
(mirroring it) and one object per entity in it, each adopting its entity by
ID in match mode, so that applying them writes nothing to Konnect. Secret
material Konnect returns (certificate keys, API keys, HMAC and JWT secrets)
goes into Secrets labelled as the operator reads them.

With --event-gateway, the same for an event gateway and what it holds, as
far as an operator wrote them (the Event Gateway kinds have no
spec.adopt): each object is the one its entity's identity labels name,
which takes the entity back without a write; entities written for
another namespace than the export's, or for no object, are left out.

What cannot be exported, and what must be completed by hand (passwords
Konnect does not return), is said on standard error. Nothing is written to
standard output unless the whole export succeeds.

The token comes from $KONNECT_TOKEN or --token-file, else from the auth
configuration in the cluster; the server URL from --server-url, else from
the auth configuration.

Usage:
  kubectl konnect export --control-plane NAME|ID --auth-configuration NAME [flags]
  kubectl konnect export --event-gateway NAME|ID --auth-configuration NAME [flags]

Example:
  KONNECT_TOKEN=... kubectl konnect export -n payments --control-plane prod \
    --auth-configuration konnect --server-url eu.api.konghq.com > payments.yaml
  kubectl apply -f payments.yaml
`

func runExport(ctx context.Context, args []string, env Env, stdout, stderr io.Writer) int {
	cmd := newCommand("export", exportHelp)
	var cluster clusterFlags
	var access konnectFlags
	var opts export.Options
	cmd.flags.StringVar(&opts.ControlPlane, "control-plane", "", "Name or ID of the control plane to export (this or --event-gateway is required).")
	cmd.flags.StringVar(&opts.EventGateway, "event-gateway", "", "Name or ID of the event gateway to export (this or --control-plane is required).")
	cmd.flags.StringVar(&opts.AuthConfiguration, "auth-configuration", "", "Name of the KonnectAPIAuthConfiguration, in the namespace, that the objects use (required).")
	cluster.add(cmd.flags)
	access.add(cmd.flags, "Konnect API of your region, e.g. eu.api.konghq.com (default: the auth configuration's).")
	if status, done := cmd.parse(args, stdout, stderr); done {
		return status
	}
	switch {
	case opts.ControlPlane == "" && opts.EventGateway == "":
		return cmd.usageError(stderr, "--control-plane or --event-gateway is required")
	case opts.AuthConfiguration == "":
		return cmd.usageError(stderr, "--auth-configuration is required")
	case cmd.flags.NArg() > 0:
		return cmd.usageError(stderr, "export takes no arguments, only flags")
	}
	var err error
	if opts.Namespace, err = cluster.resolvedNamespace(); err != nil {
		return fail(stderr, err)
	}
	token, err := access.token(env)
	if err != nil {
		return fail(stderr, err)
	}
	serverURL := access.serverURL
	if serverURL == "" || token == "" {
		fromCluster, clusterToken, err := authConfigAccess(ctx, &cluster, opts.Namespace, opts.AuthConfiguration, token == "")
		if err != nil {
			return fail(stderr, err)
		}
		if serverURL == "" {
			serverURL = fromCluster
		}
		if token == "" {
			token = clusterToken
		}
	}
	api, err := konnectAPI(&access, serverURL, token)
	if err != nil {
		return fail(stderr, err)
	}
	res, err := export.Export(ctx, api, opts)
	if err != nil {
		return fail(stderr, err)
	}
	var out bytes.Buffer
	if err := export.Write(&out, res.Objects); err != nil {
		return fail(stderr, err)
	}
	for _, note := range res.Notes {
		_, _ = fmt.Fprintln(stderr, note)
	}
	if _, err := out.WriteTo(stdout); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}

// konnectAPI is Konnect's API at serverURL with token.
func konnectAPI(access *konnectFlags, serverURL, token string) (konnect.API, error) {
	normalized, err := konnect.NormalizeServerURL(serverURL)
	if err != nil {
		return konnect.API{}, err
	}
	factory, err := access.factory()
	if err != nil {
		return konnect.API{}, err
	}
	return factory.API(normalized, token)
}

const diffHelp = `
Show, for each object, the fields where Konnect differs from what
konnect-operator would write: Konnect's value (-) and the cluster's (+).
Values that come from Secrets or are secret material are not shown. With
no KIND/NAME, every object of the operator's kinds in the namespace is
compared. Only reads, from the cluster and from Konnect.

Exit status: 0 when nothing differs, 1 when something does (or is not in
Konnect yet), 2 when something could not be compared.

The token is each object's auth configuration's (its Secret is read), or
$KONNECT_TOKEN or --token-file for all of them.

Usage:
  kubectl konnect diff [KIND/NAME ...] [flags]

Example:
  kubectl konnect diff -n payments
  kubectl konnect diff -n payments kongservice/orders kongroute/orders
`

func runDiff(ctx context.Context, args []string, env Env, stdout, stderr io.Writer) int {
	cmd := newCommand("diff", diffHelp)
	var cluster clusterFlags
	var access konnectFlags
	cluster.add(cmd.flags)
	access.add(cmd.flags, "")
	if status, done := cmd.parse(args, stdout, stderr); done {
		return status
	}
	if err := diff.CheckObjects(cmd.flags.Args()); err != nil {
		_, _ = fmt.Fprintln(stderr, "error:", err)
		return diff.ExitError
	}
	namespace, err := cluster.resolvedNamespace()
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "error:", err)
		return diff.ExitError
	}
	token, err := access.token(env)
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "error:", err)
		return diff.ExitError
	}
	cs, kube, err := cluster.clients()
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "error:", err)
		return diff.ExitError
	}
	factory, err := access.factory()
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "error:", err)
		return diff.ExitError
	}
	return diff.Run(ctx, diff.Options{
		Cluster: inventory.Cluster{Clientset: cs, Kube: kube}, Namespace: namespace, Objects: cmd.flags.Args(),
		Konnect: factory, Token: token,
	}, stdout, stderr)
}

func fail(stderr io.Writer, err error) int {
	_, _ = fmt.Fprintln(stderr, "error:", err)
	return exitError
}
