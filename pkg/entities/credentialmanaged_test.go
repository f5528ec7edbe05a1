package entities

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestMadeFromSecretTellsManagedCredentialsFromTheUsers(t *testing.T) {
	yes := true
	consumer := metav1.OwnerReference{APIVersion: "configuration.konghq.com/v1", Kind: "KongConsumer", Name: "alice", UID: "c-uid", Controller: &yes}
	secret := metav1.OwnerReference{APIVersion: "v1", Kind: "Secret", Name: "s", UID: "s-uid"}
	otherController := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "d-uid", Controller: &yes}
	label := map[string]string{LabelFromSecret: "true"}
	cases := []struct {
		name     string
		owners   []metav1.OwnerReference
		labels   map[string]string
		made     bool
		consumer types.UID
	}{
		{name: "owned by its consumer and its Secret", owners: []metav1.OwnerReference{consumer, secret}, labels: label, made: true, consumer: "c-uid"},
		{name: "made by another operator for a consumer", owners: []metav1.OwnerReference{consumer, secret}, made: true, consumer: "c-uid"},
		{name: "its consumer's reference dropped by the garbage collector", owners: []metav1.OwnerReference{secret}, labels: label, made: true},
		{name: "a user's, owned by a Secret", owners: []metav1.OwnerReference{secret}},
		{name: "a user's, without owners", labels: label},
		{name: "controlled by something else", owners: []metav1.OwnerReference{otherController, secret}, labels: label},
		{name: "a consumer's without a Secret", owners: []metav1.OwnerReference{consumer}, labels: label},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := &metav1.ObjectMeta{OwnerReferences: tc.owners, Labels: tc.labels}
			ref, uid, made := madeFromSecret(obj)
			if made != tc.made || (made && (uid != tc.consumer || ref.Name != "s")) {
				t.Fatalf("madeFromSecret = %v, %q, %v; want %v, %q", ref, uid, made, tc.made, tc.consumer)
			}
		})
	}
}
