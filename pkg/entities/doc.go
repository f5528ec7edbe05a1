// Package entities holds the kind adapters, one Kind per Konnect kind the
// operator reconciles on top of package controller, with what they share
// (references, grants, tokens and their Secrets).
//
// A Kind says what its references are, how its spec becomes a Konnect
// entity and back, which Konnect calls create, update, list and delete it,
// and how an existing entity is compared for adoption and drift. Every
// token a kind sends comes out of credentials.go: the reference's grant
// checked when it is used, the server among the allowed hosts, the token
// proven valid by Validations. The controllers that are not one entity
// each (auth configurations, token and credential Secrets, plugin
// annotations, binding cleanup, namespace rights) live in package
// companions.
package entities
