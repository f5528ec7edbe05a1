package entities

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
)

func TestCredentialFromSecretAdoptsTheCredentialTheSecretNames(t *testing.T) {
	consumer := &configurationv1.KongConsumer{ObjectMeta: objectMeta("alice")}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "alice-key", UID: "uid-secret",
			Labels: map[string]string{commonv1alpha1.LabelCredential: "key-auth"}},
		Data: map[string][]byte{"key": []byte("k-1")},
	}
	made, err := CredentialFromSecret(consumer, secret)
	if err != nil {
		t.Fatal(err)
	}
	if key := made.(kongAPIKey); key.Spec.Adopt != nil || key.Spec.Key != "k-1" || key.Spec.ConsumerRef.Name != "alice" {
		t.Fatalf("without the annotation: %+v", key.Spec)
	}

	secret.Annotations = map[string]string{AnnotationAdoptID: "cred-id"}
	made, err = CredentialFromSecret(consumer, secret)
	if err != nil {
		t.Fatal(err)
	}
	adopt := made.(kongAPIKey).Spec.Adopt
	if adopt == nil || adopt.Mode != commonv1alpha1.AdoptModeMatch || adopt.Konnect == nil || adopt.Konnect.ID != "cred-id" {
		t.Fatalf("with the annotation: adopt %+v", adopt)
	}
	if !IsCredentialFromSecret(made.(kongAPIKey)) {
		t.Fatal("the object is not known as made from a Secret")
	}

	delete(secret.Data, "key")
	if _, err := CredentialFromSecret(consumer, secret); err == nil {
		t.Fatal("a Secret without its data key made a credential")
	}
}
