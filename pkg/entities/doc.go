// Package entities holds everything kind-specific the operator runs on top
// of package controller: a Kind per Konnect kind (its references, how its
// spec becomes a Konnect entity and back, which Konnect calls create,
// update, list and delete it, how an existing entity is compared for
// adoption and drift), and the companion controllers that are not one
// entity each: the KonnectAPIAuthConfiguration reconciler (which validates
// tokens), token Secrets' finalizers, credentials made from a consumer's
// Secrets, bindings made from konghq.com/plugins annotations, the cleanup
// of bindings whose targets are deleted, and the namespace RoleBinding a
// namespaced install holds. Catalog builds every kind over objects listed
// from a cluster, without controllers, for the kubectl plugin.
package entities
