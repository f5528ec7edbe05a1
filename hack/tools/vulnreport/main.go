// Command vulnreport reads what `govulncheck -format json` writes and says,
// one line per vulnerability, what `make vulncheck` found and whether it
// fails:
//
//	govulncheck -db file:///… -format json ./... | vulnreport
//
// It fails (exit status 1) when the code calls a vulnerable function of a
// module of the module graph: `go get <module>@<fixed version>` is the fix.
// Vulnerabilities of the Go standard library the code calls are listed with
// the Go release that fixes them and fail only with -fail-on-stdlib: their
// fix is a newer Go toolchain, which the machines that build the project
// set, not go.mod. Vulnerabilities in packages the code imports without
// calling the vulnerable function, or in modules it requires without
// importing, are counted (listed with -v).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	failOnStdlib := flag.Bool("fail-on-stdlib", false, "fail on vulnerabilities of the Go standard library the code calls, too")
	verbose := flag.Bool("v", false, "list the vulnerabilities the code imports or requires without calling them")
	flag.Parse()
	scan, err := readScan(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vulnreport:", err)
		os.Exit(2)
	}
	failed, err := scan.report(os.Stdout, *failOnStdlib, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vulnreport:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// printer writes lines until the first error, which it keeps.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// report writes the summary to w and returns whether the check fails.
func (s *scan) report(w io.Writer, failOnStdlib, verbose bool) (bool, error) {
	p := &printer{w: w}
	p.printf("govulncheck %s, %s, database %s (modified %s)\n", s.config.ScannerVersion, s.config.GoVersion, s.config.DB, s.config.DBLastModified)
	called, calledStd, other := s.byLevel()
	section := func(title string, findings []finding) {
		if len(findings) == 0 {
			return
		}
		p.printf("%s\n", title)
		for _, f := range findings {
			p.printf("  %s  %s %s, fixed in %s: %s\n", f.id, f.module, f.version, orNone(f.fixed), s.summaries[f.id])
		}
	}
	section("Called by the code, in modules of the module graph (go get the fixed version):", called)
	section("Called by the code, in the Go standard library (build with the fixed Go release):", calledStd)
	if verbose {
		section("Imported or required, not called:", other)
	} else if len(other) > 0 {
		p.printf("%d more in packages imported or modules required whose vulnerable code is not called (-v lists them)\n", len(other))
	}
	failed := len(called) > 0 || failOnStdlib && len(calledStd) > 0
	switch {
	case failed:
		p.printf("vulncheck: FAILED: the code calls %d vulnerable function(s) of the module graph and %d of the standard library\n", len(called), len(calledStd))
	case len(calledStd) > 0:
		p.printf("vulncheck: passed for the module graph; the standard library of %s has %d vulnerability(ies) the code calls (above)\n", s.config.GoVersion, len(calledStd))
	default:
		p.printf("vulncheck: passed: the code calls no known vulnerable function\n")
	}
	return failed, p.err
}

func orNone(s string) string {
	if s == "" {
		return "no release yet"
	}
	return s
}
