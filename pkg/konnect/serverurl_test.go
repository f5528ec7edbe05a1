package konnect

import "testing"

func TestNormalizeServerURL(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    string
		wantErr bool
	}{
		{name: "bare Konnect region host gets https", raw: "eu.api.konghq.com", want: "https://eu.api.konghq.com"},
		{name: "every Konnect region is accepted", raw: "me.api.konghq.com", want: "https://me.api.konghq.com"},
		{name: "global API host is accepted", raw: "global.api.konghq.com", want: "https://global.api.konghq.com"},
		{name: "https URL is kept", raw: "https://us.api.konghq.com", want: "https://us.api.konghq.com"},
		{name: "trailing slash is dropped", raw: "https://au.api.konghq.com/", want: "https://au.api.konghq.com"},
		{name: "host is lower-cased", raw: "HTTPS://EU.API.KONGHQ.COM", want: "https://eu.api.konghq.com"},
		{name: "surrounding white space is ignored", raw: "  in.api.konghq.com \n", want: "https://in.api.konghq.com"},
		{name: "host:port of a simulator keeps its port", raw: "127.0.0.1:8443", want: "https://127.0.0.1:8443"},
		{name: "named host with port", raw: "localhost:9443", want: "https://localhost:9443"},
		{name: "https URL with port", raw: "https://konnect.example.internal:8443", want: "https://konnect.example.internal:8443"},
		{name: "default port is dropped", raw: "https://sg.api.konghq.com:443", want: "https://sg.api.konghq.com"},
		{name: "IPv6 literal with port", raw: "https://[::1]:8443", want: "https://[::1]:8443"},
		{name: "IPv6 literal without port keeps brackets", raw: "[::1]", want: "https://[::1]"},
		{name: "http is rejected", raw: "http://eu.api.konghq.com", wantErr: true},
		{name: "other schemes are rejected", raw: "ftp://eu.api.konghq.com", wantErr: true},
		{name: "empty is rejected", raw: "   ", wantErr: true},
		{name: "scheme without host is rejected", raw: "https://", wantErr: true},
		{name: "path is rejected", raw: "https://eu.api.konghq.com/v2", wantErr: true},
		{name: "query is rejected", raw: "eu.api.konghq.com?x=1", wantErr: true},
		{name: "fragment is rejected", raw: "eu.api.konghq.com#top", wantErr: true},
		{name: "credentials are rejected", raw: "https://user:pw@eu.api.konghq.com", wantErr: true},
		{name: "port zero is rejected", raw: "localhost:0", wantErr: true},
		{name: "port out of range is rejected", raw: "localhost:70000", wantErr: true},
		{name: "non-numeric port is rejected", raw: "localhost:https", wantErr: true},
		{name: "empty port is rejected", raw: "localhost:", wantErr: true},
		{name: "inner white space is rejected", raw: "eu.api .konghq.com", wantErr: true},
		{name: "empty label is rejected", raw: "eu..konghq.com", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeServerURL(tt.raw)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NormalizeServerURL(%q) = %q, want an error", tt.raw, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("NormalizeServerURL(%q): %v", tt.raw, err)
			}
			if got != tt.want {
				t.Fatalf("NormalizeServerURL(%q) = %q, want %q", tt.raw, got, tt.want)
			}
			again, err := NormalizeServerURL(got)
			if err != nil || again != got {
				t.Fatalf("normalising %q again = %q, %v; want it unchanged", got, again, err)
			}
		})
	}
}
