// Package catalog builds every kind of package entities over objects
// listed from a cluster, without controllers, for the kubectl plugin:
// Compare compares an object with its Konnect entity as the operator
// would (kubectl konnect diff), and References lists what an object refers
// to (kubectl konnect status).
//
// The kinds are built over caches filled from a list of the cluster's
// objects (NewCatalog). Compare resolves an object's references, builds
// its entity's body, reads the entity back and compares the two with the
// kind's own adoption comparison, naming the fields that hold secret
// material without their values. Tests use it to check that what kubectl
// konnect export writes adopts without a difference.
package catalog
