package integration

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
)

// The helpers below create, read and change the test's objects; each fails
// the test on an API error.

func (e *env) createService(name string, mutate ...func(*configurationv1alpha1.KongService)) {
	e.t.Helper()
	svc := &configurationv1alpha1.KongService{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongServiceSpec{
			ControlPlaneRef:    cpRef("cp"),
			KongServiceAPISpec: configurationv1alpha1.KongServiceAPISpec{Name: name, Host: name + ".example.com"},
		},
	}
	for _, m := range mutate {
		m(svc)
	}
	if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Create(e.ctx, svc, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) service(name string) *configurationv1alpha1.KongService {
	e.t.Helper()
	svc, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return svc
}

func (e *env) updateService(name string, change func(*configurationv1alpha1.KongService)) {
	e.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		svc, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(svc)
		_, err = e.cs.ConfigurationV1alpha1().KongServices(e.ns).Update(e.ctx, svc, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) createRoute(name string, mutate ...func(*configurationv1alpha1.KongRoute)) {
	e.t.Helper()
	route := &configurationv1alpha1.KongRoute{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongRouteSpec{
			KongRouteAPISpec: configurationv1alpha1.KongRouteAPISpec{Name: name, Paths: []string{"/" + name}},
		},
	}
	for _, m := range mutate {
		m(route)
	}
	if _, err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Create(e.ctx, route, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func withService(service string) func(*configurationv1alpha1.KongRoute) {
	return func(r *configurationv1alpha1.KongRoute) {
		r.Spec.ServiceRef = &configurationv1alpha1.ServiceRef{
			Type:          configurationv1alpha1.ServiceRefTypeNamespacedRef,
			NamespacedRef: &commonv1alpha1.NamespacedRef{Name: service},
		}
	}
}

func (e *env) route(name string) *configurationv1alpha1.KongRoute {
	e.t.Helper()
	r, err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) createConsumer(name string, groups ...string) {
	e.t.Helper()
	c := &configurationv1.KongConsumer{
		ObjectMeta:     metav1.ObjectMeta{Name: name},
		Username:       name,
		ConsumerGroups: groups,
		Spec:           configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef("cp")},
	}
	if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, c, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) consumer(name string) *configurationv1.KongConsumer {
	e.t.Helper()
	c, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *env) updateConsumer(name string, change func(*configurationv1.KongConsumer)) {
	e.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(c)
		_, err = e.cs.ConfigurationV1().KongConsumers(e.ns).Update(e.ctx, c, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) createConsumerGroup(name string) {
	e.t.Helper()
	g := &configurationv1beta1.KongConsumerGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       configurationv1beta1.KongConsumerGroupSpec{Name: name, ControlPlaneRef: cpRef("cp")},
	}
	if _, err := e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Create(e.ctx, g, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) consumerGroup(name string) *configurationv1beta1.KongConsumerGroup {
	e.t.Helper()
	g, err := e.cs.ConfigurationV1beta1().KongConsumerGroups(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

func (e *env) createPlugin(name, plugin, config string) {
	e.t.Helper()
	p := &configurationv1.KongPlugin{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		PluginName: plugin,
		Config:     &apiextensionsv1.JSON{Raw: []byte(config)},
	}
	if _, err := e.cs.ConfigurationV1().KongPlugins(e.ns).Create(e.ctx, p, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) createBinding(name, plugin string, mutate ...func(*configurationv1alpha1.KongPluginBinding)) {
	e.t.Helper()
	b := &configurationv1alpha1.KongPluginBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongPluginBindingSpec{
			PluginRef:       configurationv1alpha1.PluginRef{Name: plugin},
			ControlPlaneRef: cpRef("cp"),
		},
	}
	for _, m := range mutate {
		m(b)
	}
	if _, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).Create(e.ctx, b, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) binding(name string) *configurationv1alpha1.KongPluginBinding {
	e.t.Helper()
	b, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}
