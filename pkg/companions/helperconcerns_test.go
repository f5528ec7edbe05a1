package companions

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// The helper controllers reconcile only the objects of their kind that
// concern them. Each table below says, for one helper, which objects do,
// with the caches holding what each case puts there.

// serviceKindForCleanup describes KongServices to the binding-cleanup
// controller: every service is Konnect-bound.
type serviceKindForCleanup struct{}

func (serviceKindForCleanup) KindName() string           { return "KongService" }
func (serviceKindForCleanup) IsManaged(kongService) bool { return true }

func helperMeta(name string, finalizers ...string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: testNamespace, Name: name, Finalizers: finalizers}
}

func bindingOn(name string, targets configurationv1alpha1.KongPluginBindingTargets) kongPluginBinding {
	return &configurationv1alpha1.KongPluginBinding{
		ObjectMeta: helperMeta(name),
		Spec:       configurationv1alpha1.KongPluginBindingSpec{PluginRef: configurationv1alpha1.PluginRef{Name: "cors"}, Targets: &targets},
	}
}

func TestBindingCleanupConcernsTargetsAndObjectsWithItsFinalizer(t *testing.T) {
	r := &BindingCleanupReconciler[kongService]{
		Kind:     serviceKindForCleanup{},
		Targets:  cacheOf[kongService]("kongservices"),
		Bindings: cacheOf[kongPluginBinding]("kongpluginbindings"),
	}
	if _, err := NewBindingCleanupController(r, controller.Options{}); err != nil {
		t.Fatal(err)
	}
	put(t, r.Bindings,
		bindingOn("on-svc", configurationv1alpha1.KongPluginBindingTargets{
			ServiceRef: &configurationv1alpha1.TargetRefWithGroupKind{Name: "targeted", Kind: "KongService"}}),
		bindingOn("on-route", configurationv1alpha1.KongPluginBindingTargets{
			RouteRef: &configurationv1alpha1.TargetRefWithGroupKind{Name: "plain", Kind: "KongRoute"}}))
	for _, tc := range []struct {
		name    string
		service *configurationv1alpha1.KongService
		want    bool
	}{
		{"a service nothing targets", &configurationv1alpha1.KongService{ObjectMeta: helperMeta("plain")}, false},
		{"a service a binding targets", &configurationv1alpha1.KongService{ObjectMeta: helperMeta("targeted")}, true},
		{"a service left with the finalizer", &configurationv1alpha1.KongService{
			ObjectMeta: helperMeta("left", commonv1alpha1.FinalizerCleanupPluginBinding)}, true},
		{"a service with another finalizer only", &configurationv1alpha1.KongService{
			ObjectMeta: helperMeta("other", "example.com/other")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.concerns(tc.service); got != tc.want {
				t.Errorf("concerns = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCredentialSecretsConcernConsumersWithSecretsOrTheirObjects(t *testing.T) {
	consumers := cacheOf[kongConsumer]("kongconsumers")
	objects := cacheOf[kongBasicAuth]("kongcredentialbasicauths")
	basicAuth := entities.BasicAuthKind(entities.CredentialDeps[kongBasicAuth]{Refs: testRefs(), Consumers: consumers, Objects: objects})
	r := &CredentialSecretReconciler{Consumers: consumers, Secrets: cacheOf[*corev1.Secret]("secrets"), Kinds: []entities.CredentialKind{basicAuth.CredentialKind}}
	if _, err := NewCredentialSecretController(r, controller.Options{}); err != nil {
		t.Fatal(err)
	}
	yes := true
	credential := func(name, consumer string, owners ...metav1.OwnerReference) kongBasicAuth {
		c := &configurationv1alpha1.KongCredentialBasicAuth{ObjectMeta: helperMeta(name)}
		c.OwnerReferences = owners
		c.Spec.ConsumerRef.Name = consumer
		return c
	}
	secretOwner := metav1.OwnerReference{APIVersion: "v1", Kind: "Secret", Name: "s", UID: "s-uid"}
	consumerOwner := func(name string) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "configuration.konghq.com/v1", Kind: "KongConsumer", Name: name, UID: "c-uid", Controller: &yes}
	}
	put(t, objects,
		credential("made", "stopped-listing", consumerOwner("stopped-listing"), secretOwner),
		credential("users-own", "with-own-credential"))
	for _, tc := range []struct {
		name     string
		consumer *configurationv1.KongConsumer
		want     bool
	}{
		{"a consumer that lists no Secret", &configurationv1.KongConsumer{ObjectMeta: helperMeta("plain")}, false},
		{"a consumer that lists a Secret", &configurationv1.KongConsumer{ObjectMeta: helperMeta("listing"), Credentials: []string{"s"}}, true},
		{"a consumer that an object made from a Secret names", &configurationv1.KongConsumer{ObjectMeta: helperMeta("stopped-listing")}, true},
		{"a consumer with a credential of the user's only", &configurationv1.KongConsumer{ObjectMeta: helperMeta("with-own-credential")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.concerns(tc.consumer); got != tc.want {
				t.Errorf("concerns = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPluginAnnotationsConcernPluginsInUse(t *testing.T) {
	r := &PluginAnnotationReconciler{
		Plugins:        cacheOf[kongPlugin]("kongplugins"),
		Bindings:       cacheOf[kongPluginBinding]("kongpluginbindings"),
		Services:       cacheOf[kongService]("kongservices"),
		Routes:         cacheOf[kongRoute]("kongroutes"),
		Consumers:      cacheOf[kongConsumer]("kongconsumers"),
		ConsumerGroups: cacheOf[kongConsumerGroup]("kongconsumergroups"),
	}
	if _, err := NewPluginAnnotationController(r, controller.Options{}); err != nil {
		t.Fatal(err)
	}
	annotated := func(plugin string) metav1.ObjectMeta {
		m := helperMeta("annotated-" + plugin)
		m.Annotations = map[string]string{commonv1alpha1.AnnotationPlugins: plugin}
		return m
	}
	put(t, r.Bindings, &configurationv1alpha1.KongPluginBinding{
		ObjectMeta: helperMeta("b"), Spec: configurationv1alpha1.KongPluginBindingSpec{PluginRef: configurationv1alpha1.PluginRef{Name: "bound"}},
	})
	put(t, r.Services, &configurationv1alpha1.KongService{ObjectMeta: annotated("on-service")})
	put(t, r.Routes, &configurationv1alpha1.KongRoute{ObjectMeta: annotated("on-route")})
	put(t, r.Consumers, &configurationv1.KongConsumer{ObjectMeta: annotated("on-consumer")})
	put(t, r.ConsumerGroups, &configurationv1beta1.KongConsumerGroup{ObjectMeta: annotated("on-group")})
	for _, tc := range []struct {
		name   string
		plugin *configurationv1.KongPlugin
		want   bool
	}{
		{"a plugin nothing uses", &configurationv1.KongPlugin{ObjectMeta: helperMeta("unused")}, false},
		{"a plugin a binding uses", &configurationv1.KongPlugin{ObjectMeta: helperMeta("bound")}, true},
		{"a plugin left with the in-use finalizer", &configurationv1.KongPlugin{ObjectMeta: helperMeta("left", commonv1alpha1.FinalizerPluginInUse)}, true},
		{"a plugin a service's annotation names", &configurationv1.KongPlugin{ObjectMeta: helperMeta("on-service")}, true},
		{"a plugin a route's annotation names", &configurationv1.KongPlugin{ObjectMeta: helperMeta("on-route")}, true},
		{"a plugin a consumer's annotation names", &configurationv1.KongPlugin{ObjectMeta: helperMeta("on-consumer")}, true},
		{"a plugin a consumer group's annotation names", &configurationv1.KongPlugin{ObjectMeta: helperMeta("on-group")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.concerns(tc.plugin); got != tc.want {
				t.Errorf("concerns = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTokenSecretsConcernSecretsConfigurationsRead(t *testing.T) {
	refs := testRefs()
	refs.Secrets = cacheOf[*corev1.Secret]("secrets")
	r := &TokenSecretReconciler{Refs: refs}
	if _, err := NewTokenSecretController(r, controller.Options{}); err != nil {
		t.Fatal(err)
	}
	put(t, refs.AuthConfigs, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: helperMeta("auth"),
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type: konnectv1alpha1.KonnectAPIAuthTypeSecretRef, SecretRef: &corev1.SecretReference{Name: "token"},
		},
	})
	for _, tc := range []struct {
		name   string
		secret *corev1.Secret
		want   bool
	}{
		{"a credential Secret no configuration reads", &corev1.Secret{ObjectMeta: helperMeta("basic")}, false},
		{"a Secret a configuration reads", &corev1.Secret{ObjectMeta: helperMeta("token")}, true},
		{"a Secret left with the in-use finalizer", &corev1.Secret{ObjectMeta: helperMeta("left", commonv1alpha1.FinalizerSecretInUse)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.concerns(tc.secret); got != tc.want {
				t.Errorf("concerns = %v, want %v", got, tc.want)
			}
		})
	}
}
