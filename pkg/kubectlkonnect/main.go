// Package kubectlkonnect is the kubectl plugin kubectl-konnect: its
// subcommands, their flags, and how they reach the cluster (kubeconfig
// rules, as kubectl) and Konnect (the operator's own client, pkg/konnect).
// cmd/kubectl-konnect only calls Main.
package kubectlkonnect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/konnect-operator/konnect-operator/pkg/version"
)

// Exit statuses of every subcommand; diff has its own (pkg/diff).
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Env reads environment variables (os.Getenv, or a test's).
type Env func(key string) string

// EnvToken is the environment variable that holds the Konnect token.
const EnvToken = "KONNECT_TOKEN"

const usage = `kubectl konnect brings existing Konnect control planes and event gateways under
konnect-operator, shows what the operator would change in Konnect, and why objects are
not Programmed.

Usage:
  kubectl konnect export --control-plane NAME|ID --auth-configuration NAME [flags]
      Write the manifests that adopt a control plane and everything in it.
  kubectl konnect export --event-gateway NAME|ID --auth-configuration NAME [flags]
      Write the manifests that take an event gateway an operator wrote back.
  kubectl konnect diff [KIND/NAME ...] [flags]
      Show the fields where Konnect differs from what the operator would write.
  kubectl konnect status [KIND/NAME ...] [flags]
      Show where objects stand and why, with what they refer to and what refers to them.
  kubectl konnect version
      Print the version.

Run "kubectl konnect COMMAND --help" for the flags of a command.
`

// Main runs kubectl-konnect with args (without the program's name) and
// returns its exit status.
func Main(ctx context.Context, args []string, env Env, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		_, _ = fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "export":
		return runExport(ctx, args[1:], env, stdout, stderr)
	case "diff":
		return runDiff(ctx, args[1:], env, stdout, stderr)
	case "status":
		return runStatus(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		_, _ = fmt.Fprintf(stdout, "kubectl-konnect: %s\n", version.Get())
		return exitOK
	case "help", "-h", "--help":
		_, _ = fmt.Fprint(stdout, usage)
		return exitOK
	}
	_, _ = fmt.Fprintf(stderr, "error: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// command is one subcommand's flag set and the text of its --help.
type command struct {
	flags  *pflag.FlagSet
	header string
}

func newCommand(name, header string) *command {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	return &command{flags: fs, header: header}
}

// parse reads args; done is true when the command must stop with status
// (help asked for, or a usage error, both written out).
func (c *command) parse(args []string, stdout, stderr io.Writer) (status int, done bool) {
	c.flags.SetOutput(io.Discard)
	err := c.flags.Parse(args)
	switch {
	case errors.Is(err, pflag.ErrHelp):
		c.printHelp(stdout)
		return exitOK, true
	case err != nil:
		_, _ = fmt.Fprintf(stderr, "error: %v\n\n", err)
		c.printHelp(stderr)
		return exitUsage, true
	}
	return exitOK, false
}

func (c *command) printHelp(w io.Writer) {
	_, _ = fmt.Fprint(w, strings.TrimLeft(c.header, "\n"))
	_, _ = fmt.Fprintf(w, "\nFlags:\n%s", c.flags.FlagUsages())
}

// usageError stops a command whose flags are wrong.
func (c *command) usageError(stderr io.Writer, format string, args ...any) int {
	_, _ = fmt.Fprintf(stderr, "error: "+format+"\n\n", args...)
	c.printHelp(stderr)
	return exitUsage
}
