package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// message is one JSON value of govulncheck's stream (protocol v1): each
// carries one of these.
type message struct {
	Config  *config  `json:"config"`
	OSV     *osv     `json:"osv"`
	Finding *rawFind `json:"finding"`
}

type config struct {
	ProtocolVersion string `json:"protocol_version"`
	ScannerVersion  string `json:"scanner_version"`
	DB              string `json:"db"`
	DBLastModified  string `json:"db_last_modified"`
	GoVersion       string `json:"go_version"`
}

type osv struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

// rawFind is a finding as govulncheck writes it: the first frame of its
// trace is the vulnerable symbol (function set: called), package (package
// set: imported) or module (required).
type rawFind struct {
	OSV          string `json:"osv"`
	FixedVersion string `json:"fixed_version"`
	Trace        []struct {
		Module   string `json:"module"`
		Version  string `json:"version"`
		Package  string `json:"package"`
		Function string `json:"function"`
	} `json:"trace"`
}

// level is how near the code comes to a vulnerability.
type level int

const (
	required level = iota // a module of the graph, no package of it imported
	imported              // a package imported, the vulnerable function not called
	called                // the vulnerable function called
)

// finding is one vulnerability of one module, at the nearest level any of
// its traces reaches.
type finding struct {
	id, module, version, fixed string
	level                      level
}

// stdlibModules are the module paths govulncheck gives the Go standard
// library and the go command.
var stdlibModules = map[string]bool{"stdlib": true, "toolchain": true}

// scan is what one govulncheck run found.
type scan struct {
	config    config
	summaries map[string]string
	findings  map[[2]string]*finding
}

// readScan decodes govulncheck's JSON stream.
func readScan(r io.Reader) (*scan, error) {
	s := &scan{summaries: map[string]string{}, findings: map[[2]string]*finding{}}
	decoder := json.NewDecoder(r)
	seenConfig := false
	for {
		var m message
		err := decoder.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading govulncheck's JSON: %w", err)
		}
		switch {
		case m.Config != nil:
			s.config, seenConfig = *m.Config, true
		case m.OSV != nil:
			s.summaries[m.OSV.ID] = m.OSV.Summary
		case m.Finding != nil && len(m.Finding.Trace) > 0:
			s.add(m.Finding)
		}
	}
	if !seenConfig {
		return nil, errors.New("no config message: is this the output of govulncheck -format json?")
	}
	return s, nil
}

// add records f at its level, keeping the nearest level seen for its
// vulnerability and module.
func (s *scan) add(f *rawFind) {
	frame := f.Trace[0]
	lvl := required
	switch {
	case frame.Function != "":
		lvl = called
	case frame.Package != "":
		lvl = imported
	}
	key := [2]string{f.OSV, frame.Module}
	if old, ok := s.findings[key]; ok && old.level >= lvl {
		return
	}
	s.findings[key] = &finding{id: f.OSV, module: frame.Module, version: frame.Version, fixed: f.FixedVersion, level: lvl}
}

// byLevel splits the findings into those the code calls in the module
// graph, those it calls in the standard library, and the rest, each sorted
// by module and ID.
func (s *scan) byLevel() (inGraph, calledStd, other []finding) {
	for _, f := range s.findings {
		switch {
		case f.level == called && stdlibModules[f.module]:
			calledStd = append(calledStd, *f)
		case f.level == called:
			inGraph = append(inGraph, *f)
		default:
			other = append(other, *f)
		}
	}
	for _, list := range [][]finding{inGraph, calledStd, other} {
		sort.Slice(list, func(i, j int) bool {
			if list[i].module != list[j].module {
				return list[i].module < list[j].module
			}
			return list[i].id < list[j].id
		})
	}
	return inGraph, calledStd, other
}
