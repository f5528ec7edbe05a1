// Package entities holds one small adapter per kind for the generic
// reconciler in package controller: which references a kind has, how its
// spec becomes a Konnect entity, and which Konnect calls create, update,
// find and delete it. It also holds the KonnectAPIAuthConfiguration
// reconciler, which validates tokens rather than managing an entity.
package entities
