//go:build flagsjson

// Built with -tags flagsjson, the command prints its flag set as JSON and
// exits instead of running: hack/docgen turns that into
// docs/reference/flags.md. The flags are those parseFlags defines, so the
// page cannot describe a flag the binary does not have, or miss one.

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/klog/v2"
)

// describedFlag is one flag as the reference page needs it.
type describedFlag struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default string `json:"default"`
	Usage   string `json:"usage"`
	// Klog is true for klog's logging flags, which parseFlags adds.
	Klog bool `json:"klog"`
}

func init() {
	fs := flag.NewFlagSet("konnect-operator", flag.ContinueOnError)
	if _, err := parseFlags(fs, nil); err != nil {
		fmt.Fprintln(os.Stderr, "konnect-operator:", err)
		os.Exit(1)
	}
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	var flags []describedFlag
	fs.VisitAll(func(f *flag.Flag) {
		flags = append(flags, describedFlag{
			Name: f.Name, Type: valueType(f.Value), Default: f.DefValue, Usage: f.Usage,
			Klog: klogFlags.Lookup(f.Name) != nil,
		})
	})
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(flags); err != nil {
		fmt.Fprintln(os.Stderr, "konnect-operator:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// valueType names the type of a flag's value as a user writes it.
func valueType(v flag.Value) string {
	getter, ok := v.(flag.Getter)
	if !ok {
		return "value"
	}
	switch getter.Get().(type) {
	case bool:
		return "bool"
	case string:
		return "string"
	case int, int64, uint, uint64:
		return "int"
	case float64:
		return "float"
	case time.Duration:
		return "duration"
	default:
		return "value"
	}
}
