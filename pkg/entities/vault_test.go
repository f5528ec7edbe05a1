package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
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
	kind := VaultKind(refs, cacheOf[configStore]("konnectconfigstores"), func(string) bool { return true })

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

	if res, _ := kind.Resolve(t.Context(), v, controller.ForDelete); !res.Ready {
		t.Fatalf("deleting a vault: ready=%v conditions %v", res.Ready, res.Conditions)
	}
}

// TestVaultSendsItsConfigStoresID: a vault's configStoreRef needs a grant
// from KongVault (namespace "") to the store, a Programmed store of the
// vault's control plane, and no config_store_id of its own; the store's ID
// then goes into the vault's config. Deleting needs only the grant to the
// control plane, whose token it uses.
func TestVaultSendsItsConfigStoresID(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	stores := cacheOf[configStore]("konnectconfigstores")
	kind := VaultKind(refs, stores, func(string) bool { return true })
	grant := func(kinds ...string) {
		g := &configurationv1alpha1.KongReferenceGrant{
			ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "vaults"},
			Spec:       configurationv1alpha1.KongReferenceGrantSpec{From: []configurationv1alpha1.ReferenceGrantFrom{{Group: groupConfiguration, Kind: "KongVault"}}},
		}
		for _, k := range kinds {
			g.Spec.To = append(g.Spec.To, configurationv1alpha1.ReferenceGrantTo{Group: groupKonnect, Kind: k})
		}
		put(t, refs.Grants, g)
	}
	v := testVault("v", testNamespace)
	v.Spec.Backend, v.Spec.Config = "konnect", nil
	v.Spec.ConfigStoreRef = &configurationv1alpha1.KonnectConfigStoreRef{Name: "store", Namespace: testNamespace}
	store := &konnectv1alpha1.KonnectConfigStore{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "store"},
		Status: konnectv1alpha1.KonnectConfigStoreStatus{
			KonnectEntityStatus: commonv1alpha1.KonnectEntityStatus{ID: "store-id"},
			ControlPlaneID:      &commonv1alpha1.KonnectEntityRef{ID: "cp-id"},
			Conditions:          []metav1.Condition{controller.TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, "")},
		},
	}
	otherPlane := store.DeepCopy()
	otherPlane.Status.ControlPlaneID.ID = "other-cp"
	cases := []struct {
		name   string
		before func()
		reason string
	}{
		{"no grant to the store", func() { grant(kindControlPlane) }, commonv1alpha1.ReasonRefNotPermitted},
		{"a store not found", func() { grant(kindControlPlane, kindConfigStore) }, commonv1alpha1.ReasonRefNotFound},
		{"a store of another control plane", func() { put(t, stores, otherPlane) }, commonv1alpha1.ReasonInvalid},
		{"a store and a config_store_id", func() {
			put(t, stores, store)
			v.Spec.Config = &apiextensionsv1.JSON{Raw: []byte(`{"config_store_id":"x"}`)}
		}, commonv1alpha1.ReasonInvalid},
		{"usable", func() { v.Spec.Config = nil }, ""},
	}
	for _, tc := range cases {
		tc.before()
		res, err := kind.Resolve(t.Context(), v, controller.ForSync)
		if err != nil {
			t.Fatal(err)
		}
		got := conditionOf(res, commonv1alpha1.ConditionConfigStoreRefValid)
		if tc.reason != "" && (res.Ready || got.Reason != tc.reason) || tc.reason == "" && (!res.Ready || got.Status != metav1.ConditionTrue) {
			t.Fatalf("%s: ready=%v, %s=%s/%s (%s)", tc.name, res.Ready, got.Type, got.Status, got.Reason, got.Message)
		}
	}
	body, err := kind.Desired(t.Context(), v, controller.Placement{})
	if err != nil || body.Config[configStoreIDField] != "store-id" {
		t.Fatalf("config %v (%v), want the store's ID", body.Config, err)
	}
	grant(kindControlPlane)
	if indexer, _ := cachesOf.Load(stores); indexer.(cache.Indexer).Delete(store) != nil {
		t.Fatal("the store stays in the cache")
	}
	if res, _ := kind.Resolve(t.Context(), v, controller.ForDelete); !res.Ready {
		t.Fatalf("deleting a vault whose store and grant to it went: ready=%v conditions %v", res.Ready, res.Conditions)
	}
}

func TestVaultIsTakenByTheOperatorWatchingItsControlPlane(t *testing.T) {
	kind := VaultKind(testRefs(), nil, func(namespace string) bool { return namespace == "mine" })
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
	kind := VaultKind(testRefs(), nil, func(string) bool { return true })
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
