package main

import (
	"flag"
	"strings"
	"testing"
)

func TestShardFlag(t *testing.T) {
	o, err := parseFlags(flag.NewFlagSet("test", flag.ContinueOnError), []string{"--shard=eu"})
	if err != nil {
		t.Fatal(err)
	}
	if got := shardLease(o.leaseName, o.shard); got != "konnect-operator-eu" {
		t.Errorf("shard eu elects with Lease %q, want konnect-operator-eu", got)
	}
	if got := shardLease("konnect-operator", ""); got != "konnect-operator" {
		t.Errorf("the default shard elects with Lease %q, want konnect-operator", got)
	}
	_, err = parseFlags(flag.NewFlagSet("test", flag.ContinueOnError), []string{"--shard=EU_1"})
	if err == nil || !strings.Contains(err.Error(), "--shard") {
		t.Errorf("an invalid shard name was not refused with a message naming the flag: %v", err)
	}
}
