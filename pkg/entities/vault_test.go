package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// testVault is a cluster-scoped vault whose control plane is cp of
// namespace ("" names none).
func testVault(name, namespace string) kongVault {
	ref := konnectRef("cp")
	ref.KonnectNamespacedRef.Namespace = namespace
	return &configurationv1alpha1.KongVault{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: configurationv1alpha1.KongVaultSpec{
			ControlPlaneRef: ref, Backend: "env", Prefix: name,
			Config: &apiextensionsv1.JSON{Raw: []byte(`{"prefix":"APP_"}`)},
		},
	}
}

func TestVaultNamesTheNamespaceOfItsControlPlane(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	kind := VaultKind(refs, func(string) bool { return true })

	res, err := kind.Resolve(t.Context(), testVault("v", ""), controller.ForSync)
	if err != nil || res.Ready || conditionStatus(res, commonv1alpha1.ConditionControlPlaneRefValid) != "False" {
		t.Fatalf("without a namespace: ready=%v err=%v conditions %v", res.Ready, err, res.Conditions)
	}
	if res, _ := kind.Resolve(t.Context(), testVault("v", ""), controller.ForDelete); !res.Gone {
		t.Fatal("deleting a vault that never had a control plane waits for Konnect")
	}

	res, _ = kind.Resolve(t.Context(), testVault("v", testNamespace), controller.ForSync)
	if res.Ready || conditionStatus(res, commonv1alpha1.ConditionResolvedRefs) != "False" {
		t.Fatalf("without a grant: ready=%v conditions %v", res.Ready, res.Conditions)
	}
	put(t, refs.Grants, &configurationv1alpha1.KongReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "vaults"},
		Spec: configurationv1alpha1.KongReferenceGrantSpec{
			From: []configurationv1alpha1.ReferenceGrantFrom{{Group: groupConfiguration, Kind: "KongVault", Namespace: ""}},
			To:   []configurationv1alpha1.ReferenceGrantTo{{Group: groupKonnect, Kind: kindControlPlane}},
		},
	})
	v := testVault("v", testNamespace)
	res, _ = kind.Resolve(t.Context(), v, controller.ForSync)
	if !res.Ready || res.Placement.ControlPlaneID != "cp-id" || v.Status.Konnect.ControlPlaneID != "cp-id" {
		t.Fatalf("with a grant: ready=%v placement %+v conditions %v", res.Ready, res.Placement, res.Conditions)
	}

	v.Spec.ConfigStoreRef = &configurationv1alpha1.KonnectConfigStoreRef{Name: "store", Namespace: testNamespace}
	res, _ = kind.Resolve(t.Context(), v, controller.ForSync)
	if res.Ready || conditionStatus(res, commonv1alpha1.ConditionConfigStoreRefValid) != "False" {
		t.Fatalf("with a configStoreRef: ready=%v conditions %v", res.Ready, res.Conditions)
	}
	if res, _ := kind.Resolve(t.Context(), v, controller.ForDelete); !res.Ready || conditionStatus(res, commonv1alpha1.ConditionConfigStoreRefValid) != "" {
		t.Fatalf("deleting a vault with a configStoreRef: ready=%v conditions %v", res.Ready, res.Conditions)
	}
}

func TestVaultIsTakenByTheOperatorWatchingItsControlPlane(t *testing.T) {
	kind := VaultKind(testRefs(), func(namespace string) bool { return namespace == "mine" })
	kic := testVault("kic", "mine")
	kic.Spec.ControlPlaneRef = &commonv1alpha1.ControlPlaneRef{Type: commonv1alpha1.ControlPlaneRefKIC}
	cases := map[kongVault]bool{
		testVault("mine", "mine"):     true,
		testVault("theirs", "theirs"): false,
		testVault("nowhere", ""):      true, // an error wherever it is seen
		kic:                           false,
	}
	for v, want := range cases {
		if got := kind.IsManaged(v); got != want {
			t.Errorf("%s: managed=%v, want %v", v.Name, got, want)
		}
	}
}

func TestVaultBodyCarriesItsConfig(t *testing.T) {
	kind := VaultKind(testRefs(), func(string) bool { return true })
	v := testVault("v", testNamespace)
	v.Spec.Description = "d"
	body, err := kind.Desired(t.Context(), v, controller.Placement{})
	if err != nil || body.Name != "env" || body.Prefix != "v" || deref(body.Description) != "d" || body.Config["prefix"] != "APP_" {
		t.Fatalf("body %+v (%v)", body, err)
	}
	if !slices.Contains(body.Tags, controller.UIDTag(v)) {
		t.Errorf("tags %v", body.Tags)
	}
	v.Spec.Config = &apiextensionsv1.JSON{Raw: []byte(`["not", "an", "object"]`)}
	if _, err := kind.Desired(t.Context(), v, controller.Placement{}); err == nil {
		t.Fatal("a config that is not a JSON object is sent")
	}
}

func TestVaultMatchComparesConfigByValue(t *testing.T) {
	desired := components.Vault{Name: "env", Prefix: "p", Config: map[string]any{"prefix": "APP_"}}
	cases := []struct {
		name   string
		actual components.Vault
		want   []string
	}{
		{"equal", components.Vault{Name: "env", Prefix: "p", Config: map[string]any{"prefix": "APP_"}}, nil},
		{"another config", components.Vault{Name: "env", Prefix: "p", Config: map[string]any{"prefix": "X_"}}, []string{"config"}},
		{"another backend and description", components.Vault{Name: "aws", Prefix: "p", Description: ptr("d"), Config: desired.Config}, []string{"name", "description"}},
	}
	for _, tc := range cases {
		if got := vaultMatches(desired, &tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
	if !sameConfig(nil, map[string]any{}) {
		t.Error("an absent config differs from an empty one")
	}
}

func TestVaultCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, vaultCalls,
		components.Vault{Name: "env", Prefix: "app", Config: map[string]any{"prefix": "APP_"}, Tags: []string{uid}},
		components.Vault{Name: "env", Prefix: "app", Description: ptr("changed"), Tags: []string{uid}}, uid)
}
