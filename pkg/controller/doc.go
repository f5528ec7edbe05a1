// Package controller is the operator's one reconciliation loop.
//
// Controller runs a named, typed, rate-limited work queue per kind, fed by
// shared informers and by the informers of the objects a kind refers to.
// EntityReconciler implements the seed algorithm (references first,
// finalizer before create, create or adopt, update on change or once per
// sync period, delete) once, for every kind that maps to a Konnect entity;
// what differs per kind is an Adapter.
package controller
