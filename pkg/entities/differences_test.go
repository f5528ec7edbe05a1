package entities

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

func ptr[T any](v T) *T { return &v }

func TestUpstreamDifferencesApplyKonnectDefaults(t *testing.T) {
	a := &UpstreamAdapter{}
	desired, err := a.Desired(t.Context(), &configurationv1alpha1.KongUpstream{
		Spec: configurationv1alpha1.KongUpstreamSpec{KongUpstreamAPISpec: configurationv1alpha1.KongUpstreamAPISpec{Name: "up"}},
	}, controller.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		actual konnect.Upstream
		want   []string
	}{
		{name: "an entity with only a name has every default", actual: konnect.Upstream{Name: "up"}},
		{
			name: "Konnect's filled-in health checks equal unset ones",
			actual: konnect.Upstream{Name: "up", Healthchecks: &konnect.Healthchecks{
				Threshold: ptr(0.0),
				Active:    &konnect.ActiveHealthcheck{Type: "http", Concurrency: ptr(10), HTTPPath: "/", Timeout: ptr(1.0)},
			}},
		},
		{
			name:   "changed health checks differ",
			actual: konnect.Upstream{Name: "up", Healthchecks: &konnect.Healthchecks{Threshold: ptr(25.0)}},
			want:   []string{"healthchecks"},
		},
		{
			name:   "name, algorithm and slots are compared",
			actual: konnect.Upstream{Name: "other", Algorithm: "latency", Slots: ptr(20)},
			want:   []string{"name", "algorithm", "slots"},
		},
		{
			name:   "use_srv_name, tags and the client certificate are not",
			actual: konnect.Upstream{Name: "up", UseSRVName: ptr(true), Tags: []string{"x"}, ClientCertificateID: "c"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := a.Differences(desired, tc.actual); !slices.Equal(got, tc.want) {
				t.Fatalf("differences %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTargetAddressesGetKonnectsDefaultPort(t *testing.T) {
	cases := map[string]string{
		"10.0.0.1":         "10.0.0.1:8000",
		"10.0.0.1:80":      "10.0.0.1:80",
		"a.example.com":    "a.example.com:8000",
		"a.example.com:81": "a.example.com:81",
		"[::1]":            "[::1]:8000",
		"[::1]:9000":       "[::1]:9000",
	}
	for in, want := range cases {
		if got := withDefaultPort(in); got != want {
			t.Errorf("withDefaultPort(%q) = %q, want %q", in, got, want)
		}
	}
}

func selfSigned(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dp"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestSameCertificateIgnoresWrapping(t *testing.T) {
	cert, other := selfSigned(t), selfSigned(t)
	body := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(cert), "-----BEGIN CERTIFICATE-----\n"), "\n-----END CERTIFICATE-----")
	unwrapped := "-----BEGIN CERTIFICATE-----\n" + strings.ReplaceAll(body, "\n", "") + "\n-----END CERTIFICATE-----"
	cases := []struct {
		name string
		a, b string
		want bool
	}{
		{"identical", cert, cert, true},
		{"rewrapped base64", cert, unwrapped, true},
		{"trailing white space", cert, cert + "\n\n", true},
		{"another certificate", cert, other, false},
		{"not PEM", "{vault://env/cert}", "{vault://env/cert}", true},
		{"not PEM, different", "{vault://env/a}", "{vault://env/b}", false},
	}
	for _, tc := range cases {
		if got := sameCertificate(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: sameCertificate = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestKeyMatchComparesJWKsByValue(t *testing.T) {
	a := &KeyAdapter{}
	desired := konnect.Key{KID: "k", JWK: `{"kid":"k","kty":"EC"}`}
	cases := []struct {
		name   string
		actual konnect.Key
		want   []string
	}{
		{"same JSON, other layout", konnect.Key{KID: "k", JWK: `{ "kty": "EC", "kid": "k" }`}, nil},
		{"another key", konnect.Key{KID: "k", JWK: `{"kid":"k","kty":"RSA"}`}, []string{"jwk"}},
		{"a PEM pair where none is wanted", konnect.Key{KID: "k", JWK: desired.JWK, PEM: &konnect.KeyPEM{PublicKey: "p"}}, []string{"pem"}},
	}
	for _, tc := range cases {
		if got := a.Differences(desired, tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestVaultMatchComparesConfigByValue(t *testing.T) {
	a := &VaultAdapter{}
	desired := konnect.Vault{Name: "env", Prefix: "p", Config: map[string]any{"prefix": "APP_"}}
	cases := []struct {
		name   string
		actual konnect.Vault
		want   []string
	}{
		{"equal", konnect.Vault{Name: "env", Prefix: "p", Config: map[string]any{"prefix": "APP_"}}, nil},
		{"another config", konnect.Vault{Name: "env", Prefix: "p", Config: map[string]any{"prefix": "X_"}}, []string{"config"}},
		{"another backend and description", konnect.Vault{Name: "aws", Prefix: "p", Description: "d", Config: desired.Config}, []string{"name", "description"}},
	}
	for _, tc := range cases {
		if got := a.Differences(desired, tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
	if !sameConfig(nil, map[string]any{}) {
		t.Error("an absent config differs from an empty one")
	}
}
