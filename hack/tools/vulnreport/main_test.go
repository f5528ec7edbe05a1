package main

import (
	"bytes"
	"strings"
	"testing"
)

// stream builds a govulncheck JSON stream: the config, then the messages.
func stream(messages ...string) string {
	return `{"config":{"protocol_version":"v1.0.0","scanner_version":"v1.9.0","db":"file:///db","db_last_modified":"2026-11-05T23:49:57Z","go_version":"go1.26.8"}}
{"osv":{"id":"GO-1","summary":"HTTP/2 trouble"}}
{"osv":{"id":"GO-2","summary":"template trouble"}}
` + strings.Join(messages, "\n")
}

const (
	calledInModule  = `{"finding":{"osv":"GO-1","fixed_version":"v0.60.0","trace":[{"module":"golang.org/x/net","version":"v0.59.0","package":"golang.org/x/net/http2","function":"Server.ServeConn"},{"module":"example.com/m","function":"main"}]}}`
	requiredModule  = `{"finding":{"osv":"GO-1","fixed_version":"v0.60.0","trace":[{"module":"golang.org/x/net","version":"v0.59.0"}]}}`
	importedStdlib  = `{"finding":{"osv":"GO-2","fixed_version":"v1.26.9","trace":[{"module":"stdlib","version":"v1.26.8","package":"html/template"}]}}`
	calledInStdlib  = `{"finding":{"osv":"GO-2","fixed_version":"v1.26.9","trace":[{"module":"stdlib","version":"v1.26.8","package":"html/template","function":"Template.Execute"}]}}`
	progressMessage = `{"progress":{"message":"Checking the code against the vulnerabilities..."}}`
)

func TestVerdictFollowsWhatTheCodeCalls(t *testing.T) {
	for _, tt := range []struct {
		name         string
		input        string
		failOnStdlib bool
		fails        bool
		says         []string
	}{
		{"nothing found", stream(progressMessage), false, false, []string{"passed: the code calls no known vulnerable function"}},
		{"a module required, not called", stream(requiredModule), false, false, []string{"1 more in packages imported or modules required"}},
		{"a called module function, also seen as required first", stream(requiredModule, calledInModule), false, true,
			[]string{"GO-1  golang.org/x/net v0.59.0, fixed in v0.60.0: HTTP/2 trouble", "FAILED: the code calls 1 vulnerable function(s) of the module graph and 0"}},
		{"the standard library called: reported", stream(importedStdlib, calledInStdlib), false, false,
			[]string{"GO-2  stdlib v1.26.8, fixed in v1.26.9: template trouble", "passed for the module graph; the standard library of go1.26.8 has 1"}},
		{"the standard library called, with -fail-on-stdlib", stream(calledInStdlib), true, true, []string{"FAILED"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := readScan(strings.NewReader(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			failed, err := s.report(&out, tt.failOnStdlib, false)
			if err != nil {
				t.Fatal(err)
			}
			if failed != tt.fails {
				t.Errorf("failed = %v, want %v\n%s", failed, tt.fails, out.String())
			}
			for _, want := range tt.says {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the report does not say %q:\n%s", want, out.String())
				}
			}
		})
	}
}

func TestWhatIsNotGovulncheckOutputIsRefused(t *testing.T) {
	for _, input := range []string{"", "Your code is affected by 3 vulnerabilities", `{"progress":{"message":"x"}}`} {
		if _, err := readScan(strings.NewReader(input)); err == nil {
			t.Errorf("%q was read as a scan", input)
		}
	}
}
