// Package companions holds the controllers that run beside the kind
// adapters of package entities without being one Konnect entity each: auth
// configurations, token Secrets, credential Secrets, plugin annotations,
// binding cleanup and namespace rights.
//
// AuthConfigReconciler proves each KonnectAPIAuthConfiguration's token
// with Konnect (through entities.Validations, which every use of the token
// consults) and keeps the configuration while control planes, networks or
// portals use it; TokenSecretReconciler keeps the token Secrets they read.
// CredentialSecretReconciler turns a consumer's credential Secrets into
// KongCredential objects, PluginAnnotationReconciler turns konghq.com/plugins
// annotations into KongPluginBindings, BindingCleanupReconciler deletes the
// bindings whose target is deleted, and NamespaceRightsReconciler keeps the
// RoleBinding of a namespaced install until nothing of the namespace needs
// cleaning up.
package companions
