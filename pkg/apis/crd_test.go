// The CRD manifest tests: every CRD in manifests/crd, installed in a real
// API server, is held to the examples in testdata/<kind-lowercase>/.
//
//   - valid-*.yaml: every document is created (with its status, if any,
//     written through the status subresource) and must read back containing
//     everything it sent.
//   - invalid-*.yaml: a "# rule: <IDs>" and an "# expect: <text>" header,
//     then one document whose create must fail with text, or two documents:
//     the first is created, the second sent as its update must fail.
//   - every rule of the §2.14 catalogue that applies to the kind has an
//     invalid manifest; "schema" marks a manifest for a plain OpenAPI
//     constraint instead.
//   - every required field (from the installed schema, outside status,
//     without a default) is refused when removed from a valid example.
//   - kubectl get shows the printer columns; kubectl explain shows the
//     descriptions; status is written only through the status subresource.
//
// Kinds whose CRD is not in manifests/crd yet are reported and skipped.
package apis

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
)

const (
	crdDir      = "../../manifests/crd"
	testdataDir = "testdata"
)

var cluster *localcluster.Cluster

func TestMain(m *testing.M) {
	os.Exit(localcluster.RunTests(m, localcluster.Options{CRDDir: crdDir}, &cluster))
}

// kindUnderTest is a kind known from the rule catalogue, an installed CRD or
// a testdata folder.
type kindUnderTest struct {
	kind string
	// crd is the installed CRD, nil when manifests/crd has none yet.
	crd  *apiextensionsv1.CustomResourceDefinition
	data *kindTestdata
}

func (k kindUnderTest) dir() string { return filepath.Join(testdataDir, strings.ToLower(k.kind)) }

func TestCRDManifests(t *testing.T) {
	e := newEnv(t)
	for _, k := range kindsUnderTest(t) {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			if k.crd == nil {
				// A kind of the rule catalogue or of testdata must have its
				// CRD: without one, none of the checks below would run.
				reportWithoutCRD(t, k)
				t.Fatalf("no CRD for %s in %s", k.kind, crdDir)
			}
			if k.data == nil || len(k.data.valid) == 0 {
				t.Fatalf("%s has a CRD but %s has no valid-*.yaml example", k.kind, k.dir())
			}
			t.Run("rule coverage", func(t *testing.T) {
				for _, problem := range ruleCoverageProblems(k) {
					t.Error(problem)
				}
			})
			t.Run("valid", func(t *testing.T) { testValidManifests(t, e, k) })
			t.Run("invalid", func(t *testing.T) { testInvalidManifests(t, e, k) })
			t.Run("required fields", func(t *testing.T) { testRequiredFields(t, e, k) })
			t.Run("printer columns", func(t *testing.T) { testPrinterColumns(t, e, k) })
			t.Run("explain", func(t *testing.T) { testExplain(t, k) })
			t.Run("status subresource", func(t *testing.T) { testStatusSubresource(t, e, k) })
		})
	}
}

// kindsUnderTest joins the rule catalogue, the CRDs installed from
// manifests/crd and the testdata folders.
func kindsUnderTest(t *testing.T) []kindUnderTest {
	t.Helper()
	files, err := localcluster.ReadCRDs(crdDir)
	if err != nil {
		t.Fatal(err)
	}
	client, err := apiextensionsclient.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string]*kindUnderTest{}
	for kind := range rulesByKind {
		byKind[kind] = &kindUnderTest{kind: kind}
	}
	for _, file := range files {
		installed, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(t.Context(), file.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("CRD %s from %s is not installed: %v", file.Name, crdDir, err)
		}
		kind := installed.Spec.Names.Kind
		if assumed, ok := servedVersionsAssumed[kind]; ok {
			for _, version := range installed.Spec.Versions {
				if version.Served && !slices.Contains(assumed, version.Name) {
					t.Errorf("%s serves %s, but rulesByKind only has the rules of %v: add that version's rules", kind, version.Name, assumed)
				}
			}
		}
		if byKind[kind] == nil {
			byKind[kind] = &kindUnderTest{kind: kind}
		}
		byKind[kind].crd = installed
	}
	data, err := loadTestdata(testdataDir)
	if err != nil {
		t.Fatal(err)
	}
	for dir, kindData := range data {
		matched := false
		for kind, k := range byKind {
			if strings.ToLower(kind) == dir {
				k.data, matched = kindData, true
			}
		}
		if !matched {
			t.Errorf("%s: no kind of that (lower-case) name has a CRD or catalogue rules", filepath.Join(testdataDir, dir))
		}
	}
	kinds := make([]kindUnderTest, 0, len(byKind))
	for _, k := range byKind {
		kinds = append(kinds, *k)
	}
	slices.SortFunc(kinds, func(a, b kindUnderTest) int { return strings.Compare(a.kind, b.kind) })
	return kinds
}

// ruleCoverageProblems lists the catalogue rules of the kind that no invalid
// manifest covers, and the rule IDs in headers that do not apply to it.
func ruleCoverageProblems(k kindUnderTest) []string {
	covered := map[string]bool{}
	var problems []string
	if k.data != nil {
		for _, file := range k.data.invalid {
			for _, rule := range file.rules {
				covered[rule] = true
				if rule != schemaRule && !slices.Contains(rulesByKind[k.kind], rule) {
					problems = append(problems, file.name+": rule "+rule+" does not apply to "+k.kind)
				}
			}
		}
	}
	var missing []string
	for _, rule := range rulesByKind[k.kind] {
		if !covered[rule] {
			missing = append(missing, rule)
		}
	}
	if len(missing) > 0 {
		problems = append(problems, "no invalid manifest in "+k.dir()+" for "+strings.Join(missing, ", "))
	}
	return problems
}

// reportWithoutCRD logs what the kind's testdata would still lack.
func reportWithoutCRD(t *testing.T, k kindUnderTest) {
	if k.data == nil {
		t.Logf("report: no %s folder yet", k.dir())
	} else if len(k.data.valid) == 0 {
		t.Logf("report: %s has no valid-*.yaml example", k.dir())
	}
	for _, problem := range ruleCoverageProblems(k) {
		t.Logf("report: %s", problem)
	}
}
