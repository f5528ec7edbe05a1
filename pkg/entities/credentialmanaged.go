package entities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// indexManagedByConsumer indexes the credentials made from Secrets by the
// key of the consumer they name.
const indexManagedByConsumer = "managedByConsumer"

// LabelFromSecret marks the credentials the operator made from Secrets, so
// that they are still known as such once the garbage collector has dropped
// the reference to their consumer.
const LabelFromSecret = "konnect-operator/from-secret"

// IsCredentialFromSecret reports whether obj is a credential the operator
// made from one of a consumer's credential Secrets (CredentialFromSecret),
// rather than a user's object.
func IsCredentialFromSecret(obj metav1.Object) bool {
	_, _, made := madeFromSecret(obj)
	return made
}

// madeFromSecret reports whether obj is a credential made from a Secret:
// it belongs to a Secret and, as its controller, to a KongConsumer. When
// the consumer goes, the garbage collector drops its reference but keeps
// the object for the Secret's sake; the label still tells it apart from a
// user's. It returns the Secret's reference and the UID of the consumer
// ("" when dropped).
func madeFromSecret(obj metav1.Object) (secret *metav1.OwnerReference, consumerUID types.UID, ok bool) {
	refs := obj.GetOwnerReferences()
	for i, ref := range refs {
		gv, _ := schema.ParseGroupVersion(ref.APIVersion)
		switch {
		case ref.Controller != nil && *ref.Controller:
			if gv.Group != consumerGVK.Group || ref.Kind != consumerGVK.Kind {
				return nil, "", false
			}
			consumerUID = ref.UID
		case gv.Group == "" && ref.Kind == kindSecret:
			secret = &refs[i]
		}
	}
	ok = secret != nil && (consumerUID != "" || obj.GetLabels()[LabelFromSecret] == "true")
	return secret, consumerUID, ok
}

func managedCredentialOwners(consumer kongConsumer, secret *corev1.Secret) []metav1.OwnerReference {
	return []metav1.OwnerReference{
		*metav1.NewControllerRef(consumer, consumerGVK),
		{APIVersion: "v1", Kind: kindSecret, Name: secret.Name, UID: secret.UID},
	}
}

func (c *typedCredentialKind[T, D, A]) consumerKeyOf(obj T) string {
	if _, _, made := madeFromSecret(obj); !made {
		return ""
	}
	return key(obj.GetNamespace(), c.table.consumerRef(obj))
}

// WatchManaged implements CredentialKind.
func (c *typedCredentialKind[T, D, A]) WatchManaged(consumers *controller.Controller[kongConsumer]) error {
	err := c.deps.Objects.AddIndex(indexManagedByConsumer, func(obj T) []string {
		if k := c.consumerKeyOf(obj); k != "" {
			return []string{k}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return consumers.Watch(controller.Dependency[kongConsumer]{
		Name: "managedCredentials",
		Source: controller.SourceOf[T]{
			Informer: c.deps.Objects,
			Key:      c.consumerKeyOf,
			// The consumer's controller reads their spec, owners and
			// labels, not the status their own controller writes.
			Updates: controller.SpecOrMetadataChanged[T],
		},
		Keys: func(consumer kongConsumer) []string { return []string{key(consumer.Namespace, consumer.Name)} },
	})
}

// HasManaged implements CredentialKind.
func (c *typedCredentialKind[T, D, A]) HasManaged(consumerKey string) bool {
	objs, err := c.deps.Objects.ByIndex(indexManagedByConsumer, consumerKey)
	return err != nil || len(objs) > 0
}

// SyncManaged implements CredentialKind.
func (c *typedCredentialKind[T, D, A]) SyncManaged(ctx context.Context, consumerKey cache.ObjectName, consumer kongConsumer, wanted map[string]*corev1.Secret, keep map[string]bool) (bool, error) {
	existing, err := c.deps.Objects.ByIndex(indexManagedByConsumer, consumerKey.String())
	if err != nil {
		return false, err
	}
	client := c.deps.Clients(consumerKey.Namespace)
	var errs []error
	remove := func(obj T) {
		if err := client.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	bySecret := map[string][]T{}
	for _, obj := range existing {
		if isBeingDeleted(obj) {
			continue
		}
		secret, consumerUID, _ := madeFromSecret(obj)
		if consumer == nil || consumerUID != consumer.UID {
			remove(obj) // its consumer is gone, or going
			continue
		}
		bySecret[secret.Name] = append(bySecret[secret.Name], obj)
	}
	for name, objs := range bySecret {
		if keep[name] {
			continue
		}
		SortOldestFirst(objs)
		if secret, ok := wanted[name]; ok {
			c.created.Seen(creationKey(consumer.UID, name))
			errs = append(errs, c.updateManaged(ctx, client, consumer, objs[0], secret))
			objs = objs[1:] // the others are duplicates
		}
		for _, obj := range objs {
			remove(obj)
		}
	}
	pending := false
	for name, secret := range wanted {
		if len(bySecret[name]) > 0 {
			continue
		}
		if c.created.InFlight(creationKey(consumer.UID, name)) {
			pending = true
			continue
		}
		obj := c.objectFromSecret(consumer, secret)
		if _, err := client.Create(ctx, obj, metav1.CreateOptions{FieldManager: controller.FieldManager}); err != nil {
			errs = append(errs, c.redacted("creating", name, err))
			continue
		}
		c.created.Expect(creationKey(consumer.UID, name))
	}
	return pending, errors.Join(errs...)
}

// AnnotationAdoptID, on a credential Secret, names the Konnect ID of an
// existing credential: the object made from the Secret adopts it in match
// mode instead of creating one (kubectl konnect export writes it). It is
// read when the object is made; adoption cannot be added or removed later.
const AnnotationAdoptID = "konnect-operator/adopt-konnect-id"

// objectFromSecret is the object the credential-Secret controller makes for
// one Secret of consumer: named after the consumer, owned by both, its spec
// from the Secret's data, adopting the credential the Secret names, if any.
func (c *typedCredentialKind[T, D, A]) objectFromSecret(consumer kongConsumer, secret *corev1.Secret) T {
	obj := c.table.newObject()
	obj.SetGenerateName(consumer.Name + "-")
	obj.SetNamespace(consumer.Namespace)
	obj.SetOwnerReferences(managedCredentialOwners(consumer, secret))
	obj.SetLabels(WithShardOf(consumer, map[string]string{LabelFromSecret: "true"}))
	c.table.fromSecret(obj, consumer.Name, secret.Data)
	if id := secret.Annotations[AnnotationAdoptID]; id != "" {
		c.table.setAdopt(obj, &adoptOptions{
			From: commonv1alpha1.AdoptSourceKonnect, Mode: commonv1alpha1.AdoptModeMatch,
			Konnect: &commonv1alpha1.AdoptKonnectOptions{ID: id},
		})
	}
	return obj
}

// updateManaged makes obj's spec and owners equal to what the Secret says.
func (c *typedCredentialKind[T, D, A]) updateManaged(ctx context.Context, client ObjectWriter[T], consumer kongConsumer, obj T, secret *corev1.Secret) error {
	want := obj.DeepCopyObject().(T)
	c.table.fromSecret(want, consumer.Name, secret.Data)
	want.SetOwnerReferences(managedCredentialOwners(consumer, secret))
	if equality.Semantic.DeepEqual(c.table.spec(want), c.table.spec(obj)) &&
		equality.Semantic.DeepEqual(want.GetOwnerReferences(), obj.GetOwnerReferences()) {
		return nil
	}
	patch, err := specAndOwnersPatch(want)
	if err != nil {
		return err
	}
	if _, err := client.Patch(ctx, want.GetName(), types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: controller.FieldManager}); err != nil {
		return c.redacted("updating", secret.Name, err)
	}
	return nil
}

// specAndOwnersPatch is a JSON patch that sets obj's spec and owners, at
// obj's resource version (a concurrent change answers a conflict, as an
// update would). A patch rather than an update of the cached object: the
// cache holds objects without the metadata the operator never reads
// (managedFields, kubectl's last-applied annotation), which an update would
// erase on the server.
func specAndOwnersPatch(obj metav1.Object) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var parts struct {
		Spec json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal(data, &parts); err != nil {
		return nil, err
	}
	owners := obj.GetOwnerReferences()
	if owners == nil {
		owners = []metav1.OwnerReference{}
	}
	return json.Marshal([]map[string]any{
		{"op": "replace", "path": "/metadata/resourceVersion", "value": obj.GetResourceVersion()},
		{"op": "add", "path": "/spec", "value": parts.Spec},
		{"op": "add", "path": "/metadata/ownerReferences", "value": owners},
	})
}

// redacted describes a refused write without the API server's message,
// which may quote the Secret's values.
func (c *typedCredentialKind[T, D, A]) redacted(verb, secretName string, err error) error {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		return err
	}
	var fields []string
	if details := status.Status().Details; details != nil {
		for _, cause := range details.Causes {
			fields = append(fields, cause.Field)
		}
	}
	return fmt.Errorf("%s the %s made from Secret %s: the API server refused fields %s", verb, c.table.kind, secretName, strings.Join(fields, ", "))
}

func creationKey(consumer types.UID, secretName string) string {
	return string(consumer) + "/" + secretName
}

// SortOldestFirst orders objects by creation time, then name, so that the
// same one is kept among duplicates every time.
func SortOldestFirst[T metav1.Object](objs []T) {
	sort.Slice(objs, func(i, j int) bool {
		ti, tj := objs[i].GetCreationTimestamp(), objs[j].GetCreationTimestamp()
		if !ti.Equal(&tj) {
			return ti.Before(&tj)
		}
		return objs[i].GetName() < objs[j].GetName()
	})
}
