// Package controller is the operator's one reconciliation loop, shared by
// every kind.
//
// Controller runs a named, typed, rate-limited work queue per kind, fed by
// shared informers and by the informers of the objects a kind refers to,
// with user changes ahead of new objects and periodic work (tiers.go), and
// workers that start as work comes (workers.go). EntityReconciler takes an
// object through its life once for every kind that maps to a Konnect
// entity: references first, finalizer before create, create, adopt or take
// back, update on change, drift found by listing each sync period, delete.
// It reads the object and its references into facts, asks the pure decide
// (decide.go) for one action and carries it out; one record per object
// (record.go) holds what it remembers between reconciles. What differs per
// kind is data: a Kind (kind.go) says how its spec becomes a Konnect entity,
// which calls create, update, list and delete it, and how an existing
// entity is compared. The package also holds the conditions and Events it
// writes (readiness.go, report.go), the entity tags that carry an object's
// identity (tags.go), and the snapshots drift detection compares
// (snapshot.go).
package controller
