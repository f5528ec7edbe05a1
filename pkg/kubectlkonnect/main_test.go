package kubectlkonnect_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/konnect-operator/konnect-operator/pkg/export/exporttest"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
	"github.com/konnect-operator/konnect-operator/pkg/kubectlkonnect"
)

const token = "kpat_cli_test_token_never_printed"

// run runs kubectl-konnect with args and the environment env.
func run(t *testing.T, env map[string]string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = kubectlkonnect.Main(t.Context(), args, func(key string) string { return env[key] }, &out, &errOut)
	return status, out.String(), errOut.String()
}

func TestEveryCommandHasHelpAndRefusesWrongUse(t *testing.T) {
	// No cluster is reached: every case stops before.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	cases := []struct {
		name   string
		args   []string
		status int
		out    string // in standard output
		errOut string // in standard error
	}{
		{"no command", nil, 2, "", "Usage:"},
		{"help", []string{"--help"}, 0, "kubectl konnect export", ""},
		{"export help", []string{"export", "--help"}, 0, "--auth-configuration", ""},
		{"diff help", []string{"diff", "-h"}, 0, "Exit status: 0 when nothing differs", ""},
		{"version", []string{"version"}, 0, "kubectl-konnect: konnect-operator", ""},
		{"unknown command", []string{"apply"}, 2, "", `unknown command "apply"`},
		{"export without a control plane or an event gateway", []string{"export", "--auth-configuration", "konnect"}, 2, "", "--control-plane or --event-gateway is required"},
		{"export without an auth configuration", []string{"export", "--control-plane", "prod"}, 2, "", "--auth-configuration is required"},
		{"an unknown flag", []string{"export", "--token", "x"}, 2, "", "unknown flag: --token"},
		{"diff of a kind the operator does not write", []string{"diff", "-n", "ns", "deployment/web"}, 2, "", "deployment is not a kind the operator writes"},
		{"diff of something that is not KIND/NAME", []string{"diff", "-n", "ns", "orders"}, 2, "", `"orders" is not KIND/NAME`},
		{"status help", []string{"status", "--help"}, 0, "kubectl konnect status [KIND/NAME ...]", ""},
		{"status of a kind the operator does not write", []string{"status", "-n", "ns", "deployment/web"}, 2, "", "deployment is not a kind the operator writes"},
		{"status in an unknown format", []string{"status", "-o", "yaml"}, 2, "", "--output must be json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, out, errOut := run(t, nil, tc.args...)
			if status != tc.status || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.errOut) {
				t.Fatalf("status %d, stdout:\n%s\nstderr:\n%s\nwant status %d, %q in stdout, %q in stderr", status, out, errOut, tc.status, tc.out, tc.errOut)
			}
		})
	}
}

func TestExportWritesManifestsOnlyWhenItSucceeds(t *testing.T) {
	sim := konnectsim.Start(t, konnectsim.Options{Tokens: map[string]string{token: "acme"}})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, sim.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	api, err := konnect.NewClientFactory(konnect.Options{RootCAs: sim.CAPool}).API(sim.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exporttest.Seed(t.Context(), api, "prod", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := exporttest.SeedEventGateway(t.Context(), api, exporttest.EventGatewayFamily{Name: "events", Namespace: "payments"}); err != nil {
		t.Fatal(err)
	}
	args := []string{"export", "-n", "payments", "--control-plane", "prod", "--event-gateway", "events", "--auth-configuration", "konnect", "--server-url", sim.URL, "--konnect-ca-file", ca}

	status, out, errOut := run(t, map[string]string{kubectlkonnect.EnvToken: token}, args...)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	kinds := map[string]int{}
	for _, doc := range strings.Split(out, "\n---\n") {
		var obj unstructured.Unstructured
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, doc)
		}
		if obj.GetNamespace() != "payments" && obj.GetKind() != "KongVault" {
			t.Errorf("%s %s is in namespace %q", obj.GetKind(), obj.GetName(), obj.GetNamespace())
		}
		kinds[obj.GetKind()]++
	}
	if kinds["KonnectGatewayControlPlane"] != 1 || kinds["KongService"] != 1 || kinds["Secret"] == 0 || kinds["KonnectEventGateway"] != 1 || kinds["EventGatewayListener"] != 1 {
		t.Errorf("kinds written: %v", kinds)
	}
	if !strings.Contains(errOut, "password") {
		t.Errorf("standard error does not say what the export lacks:\n%s", errOut)
	}

	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("kpat_wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	status, out, errOut = run(t, map[string]string{kubectlkonnect.EnvToken: token}, append(args, "--token-file", tokenFile)...)
	if status != 1 || out != "" || !strings.Contains(errOut, "error:") {
		t.Fatalf("with a wrong token: status %d, stdout %q, stderr %q; want 1, nothing, an error", status, out, errOut)
	}
	if strings.Contains(errOut, "kpat_wrong") || strings.Contains(errOut, token) {
		t.Fatalf("a token was printed: %s", errOut)
	}
	status, out, _ = run(t, map[string]string{kubectlkonnect.EnvToken: token}, "export", "-n", "payments", "--control-plane", "nowhere",
		"--auth-configuration", "konnect", "--server-url", sim.URL, "--konnect-ca-file", ca)
	if status != 1 || out != "" {
		t.Fatalf("an unknown control plane: status %d, stdout %q", status, out)
	}
	status, out, errOut = run(t, map[string]string{kubectlkonnect.EnvToken: token}, "export", "-n", "payments", "--event-gateway", "nowhere",
		"--auth-configuration", "konnect", "--server-url", sim.URL, "--konnect-ca-file", ca)
	if status != 1 || out != "" || !strings.Contains(errOut, `no event gateway with ID or name "nowhere"`) {
		t.Fatalf("an unknown event gateway: status %d, stdout %q, stderr %q", status, out, errOut)
	}
}
