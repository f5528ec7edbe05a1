package localcluster

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func TestWriteKubeconfigRoundTrips(t *testing.T) {
	// Paths in a kubeconfig are checked when it is loaded, so they must exist.
	files := t.TempDir()
	for _, name := range []string{"ca.crt", "client.crt", "client.key"} {
		if err := os.WriteFile(filepath.Join(files, name), []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		cfg  *rest.Config
	}{
		{
			name: "bearer token and inline CA",
			cfg: &rest.Config{
				Host:            "https://127.0.0.1:6443",
				BearerToken:     "secret-token",
				TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca-data")},
			},
		},
		{
			name: "client certificate files",
			cfg: &rest.Config{
				Host: "https://127.0.0.1:7443",
				TLSClientConfig: rest.TLSClientConfig{
					CAFile:   filepath.Join(files, "ca.crt"),
					CertFile: filepath.Join(files, "client.crt"),
					KeyFile:  filepath.Join(files, "client.key"),
				},
			},
		},
		{
			name: "inline client certificate",
			cfg: &rest.Config{
				Host:            "https://127.0.0.1:8443",
				TLSClientConfig: rest.TLSClientConfig{CertData: []byte("cert"), KeyData: []byte("key"), CAData: []byte("ca")},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "nested", "kubeconfig")
			if err := writeKubeconfig(path, tt.cfg); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if perm := info.Mode().Perm(); perm != 0o600 {
				t.Fatalf("mode %o, want 600: a kubeconfig holds credentials", perm)
			}
			got, err := clientcmd.BuildConfigFromFlags("", path)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.cfg
			if got.Host != want.Host || got.BearerToken != want.BearerToken ||
				string(got.CAData) != string(want.CAData) || got.CAFile != want.CAFile ||
				string(got.CertData) != string(want.CertData) || got.CertFile != want.CertFile ||
				string(got.KeyData) != string(want.KeyData) || got.KeyFile != want.KeyFile {
				t.Fatalf("read back %+v, want %+v", got, want)
			}
		})
	}
}

func TestWriteKubeconfigRefusesAConfigWithoutServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := writeKubeconfig(path, &rest.Config{BearerToken: "x"}); err == nil {
		t.Fatal("want an error for a config without a server")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a file was written: %v", err)
	}
}
