// Package diff compares objects of a cluster with what Konnect holds, the
// way the operator does, and says which fields the operator would change:
// kubectl konnect diff. It reads only, from the cluster and from Konnect.
package diff

import (
	"context"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/konnect-operator/konnect-operator/pkg/catalog"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/inventory"
)

// Exit statuses, as kubectl diff has them.
const (
	// ExitSame: nothing differs.
	ExitSame = 0
	// ExitDiffers: some object differs from its entity, or has none.
	ExitDiffers = 1
	// ExitError: something could not be compared.
	ExitError = 2
)

// Options say what to compare.
type Options struct {
	// Cluster reads the objects.
	Cluster inventory.Cluster
	// Namespace is the namespace of the objects compared.
	Namespace string
	// Objects name the objects to compare as KIND/NAME; none means every
	// object of the operator's kinds in Namespace.
	Objects []string
	// Konnect reaches Konnect with an auth configuration's server URL and
	// token.
	Konnect controller.ClientSource
	// Token, when set, is used instead of every auth configuration's own
	// token (read from its Secret otherwise).
	Token string
}

// CheckObjects checks KIND/NAME arguments before anything is read.
func CheckObjects(args []string) error {
	_, err := inventory.ParseTargets(args)
	return err
}

// Run compares and writes the differences to stdout, problems to stderr,
// and returns the exit status.
func Run(ctx context.Context, opts Options, stdoutWriter, stderrWriter io.Writer) int {
	stdout, stderr := &printer{w: stdoutWriter}, &printer{w: stderrWriter}
	status := run(ctx, opts, stdout, stderr)
	if stdout.err != nil || stderr.err != nil {
		return ExitError
	}
	return status
}

func run(ctx context.Context, opts Options, stdout, stderr *printer) int {
	targets, err := inventory.ParseTargets(opts.Objects)
	if err != nil {
		stderr.println("error:", err)
		return ExitError
	}
	loaded, err := inventory.Read(ctx, opts.Cluster, opts.Namespace, inventory.Options{Secrets: true, Warn: func(err error) {
		stderr.printf("warning: cannot list Secrets (%v): tokens and Secret-sourced values cannot be read; set KONNECT_TOKEN or --token-file for the token\n", err)
	}})
	if err != nil {
		stderr.println("error:", err)
		return ExitError
	}
	if opts.Token != "" {
		loaded.UseToken(opts.Token)
	}
	selected, err := loaded.Pick(opts.Namespace, targets)
	if err != nil {
		stderr.println("error:", err)
		return ExitError
	}
	kinds := catalog.NewCatalog(loaded.All())
	status := ExitSame
	for _, obj := range selected {
		what := fmt.Sprintf("%s %s", obj.Kind.Name, describe(obj.Object))
		cmp, err := kinds.Compare(ctx, opts.Konnect, obj.Object)
		if err != nil {
			stderr.printf("error: %s: %v\n", what, err)
			status = ExitError
			continue
		}
		switch cmp.State {
		case catalog.StateEqual:
			if cmp.Message != "" {
				stderr.printf("%s: %s\n", what, cmp.Message)
			}
		case catalog.StateNotCompared:
			if len(targets) > 0 {
				stderr.printf("%s: not compared: %s\n", what, cmp.Message)
			}
		case catalog.StateUnresolved:
			stderr.printf("error: %s: cannot be compared: %s\n", what, cmp.Message)
			status = ExitError
		case catalog.StateMissing:
			stdout.printf("diff %s: %s\n", what, cmp.Message)
			status = max(status, ExitDiffers)
		case catalog.StateDiffers:
			printDifferences(stdout, what, cmp)
			status = max(status, ExitDiffers)
		}
	}
	return status
}

// printDifferences writes one object's differing fields: Konnect's value
// (-) and the value the operator would write (+).
func printDifferences(w *printer, what string, cmp catalog.Comparison) {
	w.printf("diff %s (Konnect ID %s)\n", what, cmp.ID)
	if cmp.Message != "" {
		w.printf("  # %s\n", cmp.Message)
	}
	for _, f := range cmp.Fields {
		if f.Hidden {
			w.printf("  %s: differs (secret: values not shown)\n", f.Field)
			continue
		}
		w.printf("  %s:\n  - Konnect: %s\n  + cluster: %s\n", f.Field, orUnset(f.Konnect), orUnset(f.Cluster))
	}
}

func orUnset(value string) string {
	if value == "" {
		return "(unset)"
	}
	return value
}

func describe(obj runtime.Object) string {
	m := obj.(metav1.Object)
	if m.GetNamespace() == "" {
		return m.GetName()
	}
	return m.GetNamespace() + "/" + m.GetName()
}

// printer writes, keeping the first error: a diff that could not be
// written out fails.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) println(args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, args...)
	}
}
