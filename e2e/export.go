package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/konnect-operator/konnect-operator/pkg/export/exporttest"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// exportSyncPeriod is the operator's sync period in the export test: short,
// so that several periods pass in seconds.
const exportSyncPeriod = 2 * time.Second

// ExportAppliedWritesNothing is the migration a team makes: a control
// plane built through Konnect's API, with an entity of every kind the
// operator has, and an event gateway an operator wrote, with an entity of
// every kind it holds, exported with kubectl konnect export and applied
// with kubectl. Every object becomes Programmed with its entity's ID
// (adopted, or, for the event gateway's, taken back), and Konnect sees no
// write, neither while adopting nor over the next sync periods. kubectl
// konnect diff then finds nothing, and finds a change made in Konnect
// afterwards.
func ExportAppliedWritesNothing(t *testing.T) {
	ctx := t.Context()
	c := suite.cluster
	install(ctx, t, c, "manifests")
	dir := filepath.Join(suite.workDir, "export")
	token, err := randomToken()
	if err != nil {
		t.Fatal(err)
	}
	sim, err := startSimulator(ctx, filepath.Join(dir, "simulator"), token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.process.stop(5 * time.Second) })
	pool, err := konnect.LoadCAFile(sim.caFile)
	if err != nil {
		t.Fatal(err)
	}
	api, err := konnect.NewClientFactory(konnect.Options{RootCAs: pool}).API(sim.url, token)
	if err != nil {
		t.Fatal(err)
	}
	seeded, err := exporttest.Seed(ctx, api, "legacy prod", exportCopies())
	if err != nil {
		t.Fatal(err)
	}
	const ns = "migrated"
	gateway, err := exporttest.SeedEventGateway(ctx, api, exporttest.EventGatewayFamily{Name: "legacy-events", Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.kubectl(ctx, exportAuth(ns, sim.url, token), "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "serviceaccount.kubeconfig")
	if err := writeServiceAccountKubeconfig(ctx, c, kubeconfig); err != nil {
		t.Fatal(err)
	}
	args, err := deploymentArgs(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	startExportOperator := func(name string) *operatorProcess {
		op, err := startOperator(name, kubeconfig, args, "--konnect-ca-file="+sim.caFile, sim.allowedHostsArg(), "--watch-namespaces="+ns,
			"--leader-elect=false", "--sync-period="+exportSyncPeriod.String(), "--log-format=text")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if op.running() {
				if t.Failed() {
					t.Logf("%s log:\n%s", name, op.tail(4000))
				}
				op.stop(10 * time.Second)
			}
		})
		return op
	}
	// Cleanups run last first: the namespace goes while an operator runs.
	t.Cleanup(func() { cleanUpExport(t, c, ns, startExportOperator) })
	op := startExportOperator("export-operator")

	plugin := exec.CommandContext(ctx, filepath.Join(suite.binDir, "kubectl-konnect"), "export", "-n", ns,
		"--control-plane", seeded.ControlPlane.Name, "--event-gateway", "legacy-events", "--auth-configuration", "konnect",
		"--konnect-ca-file", sim.caFile, sim.allowedHostsArg())
	plugin.Env = append(os.Environ(), "KUBECONFIG="+c.KubeconfigPath, "KONNECT_TOKEN=")
	var manifests, notes bytes.Buffer
	plugin.Stdout, plugin.Stderr = &manifests, &notes
	if err := plugin.Run(); err != nil {
		t.Fatalf("kubectl konnect export: %v\n%s", err, notes.String())
	}
	t.Logf("kubectl konnect export said:\n%s", notes.String())
	if strings.Contains(manifests.String()+notes.String(), token) {
		t.Fatal("the export printed the token")
	}
	exported := decodeExport(t, manifests.String())

	// The simulator counts from here on: the writes it sees are the apply's.
	if err := sim.do(ctx, http.MethodDelete, "/_sim/calls", false, nil, nil); err != nil {
		t.Fatal(err)
	}
	applied := time.Now()
	if _, err := c.kubectl(ctx, manifests.String(), "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	if err := eventually(ctx, patience+time.Duration(len(exported))*100*time.Millisecond, func(ctx context.Context) error {
		return adoptedAll(ctx, c, ns, exported, gateway.Objects)
	}); err != nil {
		t.Fatal(err)
	}
	programmed := time.Since(applied)
	writes, byOperation, total := quietWrites(ctx, t, sim, applied)
	t.Logf("%d objects Programmed with their entities' IDs %s after kubectl apply; Konnect writes since then, over %s: %d",
		len(exported), programmed.Round(time.Millisecond), time.Since(applied).Round(time.Millisecond), total)
	if total > 0 {
		t.Errorf("Konnect saw %d writes after the apply (%s); the first: %s", total, byOperation, strings.Join(writes[:min(len(writes), 10)], "; "))
	}

	op.stop(10 * time.Second)
	checkDiff(ctx, t, c, sim, api, ns, seeded)
}

// exportCopies is how many sets of entities the control plane holds
// (exporttest.EntitiesPerCopy each): KONNECT_E2E_EXPORT_COPIES, default 1.
// 48 makes the 1,000 entities of the figures.
func exportCopies() int {
	if n, err := strconv.Atoi(os.Getenv("KONNECT_E2E_EXPORT_COPIES")); err == nil && n > 0 {
		return n
	}
	return 1
}

// quietWrites waits for the next sync periods, each of which lists the
// control plane, and then for Konnect to see no write for two more (a
// minute at most: a write refused every period never stops). It returns
// the writes in the simulator's request log since t, and the writes its
// counters saw since they were reset, by operation and in all (the log
// keeps only the last 10,000 requests).
func quietWrites(ctx context.Context, t *testing.T, sim *simulator, since time.Time) ([]string, string, int) {
	t.Helper()
	time.Sleep(3*exportSyncPeriod + time.Second)
	var writes []string
	for deadline := time.Now().Add(patience); ; {
		var log []simRequest
		if err := sim.get(ctx, "/_sim/requests", false, &log); err != nil {
			t.Fatal(err)
		}
		writes = writesAfter(log, since)
		if len(writesAfter(log, time.Now().Add(-2*exportSyncPeriod))) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(exportSyncPeriod)
	}
	var calls map[string]int
	if err := sim.get(ctx, "/_sim/calls", false, &calls); err != nil {
		t.Fatal(err)
	}
	total := 0
	var byOperation []string
	for operation, n := range calls {
		if !strings.HasPrefix(operation, http.MethodGet+" ") {
			total += n
			byOperation = append(byOperation, fmt.Sprintf("%d× %s", n, operation))
		}
	}
	sort.Strings(byOperation)
	return writes, strings.Join(byOperation, ", "), total
}

// exportAuth is the namespace, the token Secret and the auth configuration
// a team has before exporting.
func exportAuth(ns, serverURL, token string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s
---
apiVersion: v1
kind: Secret
metadata:
  name: konnect-token
  namespace: %[1]s
  labels:
    konghq.com/credential: konnect
stringData:
  token: %[3]s
---
apiVersion: konnect.konghq.com/v1alpha1
kind: KonnectAPIAuthConfiguration
metadata:
  name: konnect
  namespace: %[1]s
spec:
  type: secretRef
  secretRef:
    name: konnect-token
  serverURL: %[2]s
`, ns, serverURL, token)
}

func decodeExport(t *testing.T, manifests string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(manifests, "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatalf("%v:\n%s", err, doc)
		}
		out = append(out, obj)
	}
	return out
}

// adoptedAll checks that every exported entity object, and every
// credential made from an exported Secret, is Programmed with the ID it
// adopts, or, for an object without spec.adopt, the ID takenBack names
// for it (by Kind/name); every object takenBack names is exported.
func adoptedAll(ctx context.Context, c *clusterEnv, ns string, exported []*unstructured.Unstructured, takenBack map[string]string) error {
	var problems []string
	seen := map[string]bool{}
	// One list per kind: a get per object would cost minutes for a
	// thousand objects at the client's request rate.
	listed := map[schema.GroupVersionKind]map[string]*unstructured.Unstructured{}
	for _, o := range exported {
		want := adoptedID(o)
		if id, ok := takenBack[o.GetKind()+"/"+o.GetName()]; ok {
			want, seen[o.GetKind()+"/"+o.GetName()] = id, true
		}
		if want == "" {
			continue
		}
		gvk := o.GroupVersionKind()
		if listed[gvk] == nil {
			items, err := c.list(ctx, gvk, ns)
			if err != nil {
				return err
			}
			listed[gvk] = map[string]*unstructured.Unstructured{}
			for i := range items {
				listed[gvk][items[i].GetName()] = &items[i]
			}
		}
		got, ok := listed[gvk][o.GetName()]
		if !ok {
			problems = append(problems, gvk.Kind+" "+o.GetName()+" not found")
			continue
		}
		if err := programmedAs(got, want); err != nil {
			problems = append(problems, err.Error())
		}
	}
	for key := range takenBack {
		if !seen[key] {
			problems = append(problems, key+" was not exported")
		}
	}
	for _, kind := range []string{"KongCredentialBasicAuth", "KongCredentialAPIKey", "KongCredentialJWT", "KongCredentialHMAC"} {
		gvk := schema.GroupVersionKind{Group: configurationGroup, Version: "v1alpha1", Kind: kind}
		items, err := c.list(ctx, gvk, ns)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			problems = append(problems, "no "+kind+" made from its Secret yet")
		}
		for i := range items {
			if err := programmedAs(&items[i], adoptedID(&items[i])); err != nil {
				problems = append(problems, err.Error())
			}
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("%d not adopted yet, the first: %s", len(problems), strings.Join(problems[:min(len(problems), 5)], "; "))
	}
	return nil
}

// adoptedID is the ID an object adopts (mirrors, for a control plane).
func adoptedID(o *unstructured.Unstructured) string {
	if id, _, _ := unstructured.NestedString(o.Object, "spec", "mirror", "konnect", "id"); id != "" {
		return id
	}
	id, _, _ := unstructured.NestedString(o.Object, "spec", "adopt", "konnect", "id")
	return id
}

func programmedAs(o *unstructured.Unstructured, id string) error {
	got, _, _ := unstructured.NestedString(o.Object, "status", "konnect", "id")
	if got == "" { // a control plane's, or an Event Gateway entity's
		got, _, _ = unstructured.NestedString(o.Object, "status", "id")
	}
	what := o.GetKind() + " " + o.GetName()
	if c := conditionsOf(o)["Programmed"]; c["status"] != "True" {
		return fmt.Errorf("%s: Programmed=%s %s", what, c["status"], c["message"])
	}
	if got != id || id == "" {
		return fmt.Errorf("%s holds ID %q, want the adopted %q", what, got, id)
	}
	return nil
}

// writesAfter describes the requests other than reads that started after t.
func writesAfter(log []simRequest, t time.Time) []string {
	var out []string
	for _, r := range log {
		if r.Method != http.MethodGet && r.Time.After(t) {
			out = append(out, fmt.Sprintf("%s %s (%d) at %s", r.Method, r.OperationID, r.Status, r.Time.Format("15:04:05.000")))
		}
	}
	return out
}

// runKubectlKonnect runs the kubectl-konnect binary as the administrator
// and returns its status and outputs.
func runKubectlKonnect(ctx context.Context, c *clusterEnv, args ...string) (int, string, string) {
	cmd := exec.CommandContext(ctx, filepath.Join(suite.binDir, "kubectl-konnect"), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.KubeconfigPath, "KONNECT_TOKEN=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		return -1, stdout.String(), err.Error()
	}
	return 0, stdout.String(), stderr.String()
}

// runPlugin runs kubectl-konnect with the administrator's kubeconfig,
// trusting sim's CA for Konnect and sending tokens to it, and returns its
// status and outputs.
func runPlugin(ctx context.Context, c *clusterEnv, sim *simulator, args ...string) (int, string, string) {
	return runKubectlKonnect(ctx, c, append(args, "--konnect-ca-file", sim.caFile, sim.allowedHostsArg())...)
}

// checkDiff runs kubectl konnect diff with the operator stopped: nothing
// differs; a host changed in Konnect is shown with both values; its exit
// statuses; and it writes nothing.
func checkDiff(ctx context.Context, t *testing.T, c *clusterEnv, sim *simulator, api konnect.API, ns string, seeded exporttest.Seeded) {
	t.Helper()
	begin := time.Now()
	if status, out, errOut := runPlugin(ctx, c, sim, "diff", "-n", ns); status != 0 || out != "" {
		t.Errorf("diff right after the adoption: status %d\n%s%s", status, out, errOut)
	}
	serviceID := seeded.IDs["services"][0]
	got, err := api.Services.GetService(ctx, serviceID, seeded.ControlPlane.ID)
	if err != nil {
		t.Fatal(err)
	}
	service := got.GetService()
	original := service.Host
	body := toService(*service)
	body.Host = "moved.example.com"
	if _, err := api.Services.UpsertService(ctx, operations.UpsertServiceRequest{ControlPlaneID: seeded.ControlPlane.ID, ServiceID: serviceID, Service: body}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args   []string
		status int
		out    []string
	}{
		{[]string{"diff", "-n", ns}, 1, []string{"diff KongService " + ns + "/orders-0", `- Konnect: "moved.example.com"`, `+ cluster: "` + original + `"`}},
		{[]string{"diff", "-n", ns, "kongservice/orders-0"}, 1, []string{"host:"}},
		{[]string{"diff", "-n", ns, "KongRoute/orders-0", "kongconsumer/alice-0"}, 0, nil},
		{[]string{"diff", "-n", ns, "kongservice/nowhere"}, 2, nil},
	}
	for _, tc := range cases {
		status, out, errOut := runPlugin(ctx, c, sim, tc.args...)
		if status != tc.status {
			t.Errorf("%s: status %d, want %d\n%s%s", strings.Join(tc.args, " "), status, tc.status, out, errOut)
		}
		for _, want := range tc.out {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in:\n%s", strings.Join(tc.args, " "), want, out)
			}
		}
	}
	var log []simRequest
	if err := sim.get(ctx, "/_sim/requests", false, &log); err != nil {
		t.Fatal(err)
	}
	// The one write is the test's own change of the host.
	if writes := writesAfter(log, begin); len(writes) != 1 {
		t.Errorf("kubectl konnect diff wrote to Konnect: %v", writes)
	}
}

// toService is a service as read, as the body that writes it back.
func toService(s components.ServiceOutput) components.Service {
	return components.Service{
		Name: s.Name, Host: s.Host, Port: s.Port, Protocol: s.Protocol, Path: s.Path, Retries: s.Retries,
		ConnectTimeout: s.ConnectTimeout, ReadTimeout: s.ReadTimeout, WriteTimeout: s.WriteTimeout, Enabled: s.Enabled,
		TLSVerify: s.TLSVerify, TLSVerifyDepth: s.TLSVerifyDepth, Tags: s.Tags, ClientCertificate: s.ClientCertificate,
		CaCertificates: s.CaCertificates,
	}
}

// cleanUpExport deletes what the test applied, an operator running to
// delete the entities: the namespace, and the cluster-scoped vaults.
func cleanUpExport(t *testing.T, c *clusterEnv, ns string, start func(string) *operatorProcess) {
	ctx, cancel := context.WithTimeout(context.Background(), patience+time.Minute)
	defer cancel()
	start("export-cleanup")
	vaults := schema.GroupVersionKind{Group: configurationGroup, Version: "v1alpha1", Kind: "KongVault"}
	items, _ := c.list(ctx, vaults, "")
	for _, v := range items {
		if ref, _, _ := unstructured.NestedString(v.Object, "spec", "controlPlaneRef", "konnectNamespacedRef", "namespace"); ref == ns {
			if _, err := c.kubectl(ctx, "", "delete", "kongvault", v.GetName(), "--wait=false"); err != nil {
				t.Error(err)
			}
		}
	}
	_ = c.kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	err := waitFor(ctx, patience, func(ctx context.Context) error {
		if _, err := c.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
			return fmt.Errorf("namespace %s is still there", ns)
		}
		return nil
	})
	if err != nil {
		t.Errorf("cleaning up: %v", err)
	}
}
