package konnectsim

import (
	"strings"
	"testing"
	"time"
)

func TestParseTokenSpec(t *testing.T) {
	cases := []struct {
		spec, token, org string
		wantErr          bool
	}{
		{spec: "kpat_abc=acme", token: "kpat_abc", org: "acme"},
		{spec: " spat_x = 0f1e2d3c-0000-4000-8000-000000000000 ", token: "spat_x", org: "0f1e2d3c-0000-4000-8000-000000000000"},
		{spec: "=acme", wantErr: true},
		{spec: "two words", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			token, org, err := ParseTokenSpec(tc.spec)
			if (err != nil) != tc.wantErr || token != tc.token || org != tc.org {
				t.Errorf("ParseTokenSpec(%q) = %q, %q, %v", tc.spec, token, org, err)
			}
		})
	}
	t.Run("a bare token gets its own organisation, not named after the token", func(t *testing.T) {
		_, org1, _ := ParseTokenSpec("kpat_one")
		_, org2, _ := ParseTokenSpec("kpat_two")
		if org1 == org2 || strings.Contains(org1, "one") || !strings.HasPrefix(org1, "org-") {
			t.Errorf("organisations %q and %q", org1, org2)
		}
	})
}

func TestParseFaultSpec(t *testing.T) {
	cases := []struct {
		spec    string
		op      string
		want    Fault
		wantErr bool
	}{
		{spec: "create-service=rate:0.25,status:503", op: "create-service", want: Fault{ErrorRate: 0.25, Status: 503}},
		{spec: "*=latency:150ms", op: "*", want: Fault{Latency: 150 * time.Millisecond}},
		{spec: "GET /v3/organizations/me=hang", op: "GET /v3/organizations/me", want: Fault{Hang: true, ErrorRate: 1}},
		{spec: "create-route=after,times:2,hangfor:1s", op: "create-route", want: Fault{AfterEffect: true, Times: 2, Hang: true, HangFor: time.Second, Status: 500}},
		{spec: "create-route=times:1", op: "create-route", want: Fault{Times: 1, Status: 500}},
		{spec: "create-route", wantErr: true},
		{spec: "x=rate:2", wantErr: true},
		{spec: "x=status:200", wantErr: true},
		{spec: "x=colour:red", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			op, f, err := ParseFaultSpec(tc.spec)
			if (err != nil) != tc.wantErr || op != tc.op || f != tc.want {
				t.Errorf("ParseFaultSpec(%q) = %q, %+v, %v; want %q, %+v", tc.spec, op, f, err, tc.op, tc.want)
			}
		})
	}
}

func TestParseProviderAccountSpec(t *testing.T) {
	for spec, want := range map[string]ProviderAccount{
		"aws=1234":        {ID: "1234", Provider: "aws", CloudAccountID: "1234"},
		"azure=abc=sub-7": {ID: "abc", Provider: "azure", CloudAccountID: "sub-7"},
		"\tgcp=11111111-1111-1111-1111-111111111111\n": {ID: "11111111-1111-1111-1111-111111111111", Provider: "gcp", CloudAccountID: "11111111-1111-1111-1111-111111111111"},
	} {
		got, err := ParseProviderAccountSpec(spec)
		if err != nil || got != want {
			t.Errorf("ParseProviderAccountSpec(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for _, bad := range []string{"", "aws", "aws=", "oracle=1", "aws=1=2=3"} {
		if _, err := ParseProviderAccountSpec(bad); err == nil {
			t.Errorf("ParseProviderAccountSpec(%q) was accepted", bad)
		}
	}
}
