package version

import (
	"runtime"
	"testing"
)

func TestStringNamesVersionCommitAndGo(t *testing.T) {
	info := Info{Version: "v1.2.3-4-gabcdef0-dirty", Commit: "abcdef0123", GoVersion: "go1.26.8", Platform: "linux/arm64"}
	want := "konnect-operator v1.2.3-4-gabcdef0-dirty (commit abcdef0123, go1.26.8, linux/arm64)"
	if got := info.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestGetReportsTheRunningToolchain(t *testing.T) {
	info := Get()
	if info.GoVersion != runtime.Version() || info.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("Get() = %+v, want Go %s on %s/%s", info, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	if info.Version != Version || info.Commit != Commit {
		t.Errorf("Get() = %+v, want the linked-in version %q and commit %q", info, Version, Commit)
	}
}
