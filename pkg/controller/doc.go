// Package controller is the operator's one reconciliation loop, shared by
// every kind: the work queues and workers, and the EntityReconciler that
// keeps each object's Konnect entity equal to it.
//
// Controller (controller.go) runs a named, typed, rate-limited work queue
// per kind, fed by shared informers (informer.go) and by the informers of
// the objects a kind refers to (dependency.go, referrers.go), with user
// changes ahead of new objects and periodic work (tiers.go), and workers
// that start as work comes and requeue a call the limiter deferred for its
// turn (workers.go); objects whose organisation is held wait parked on the
// hold (park.go). NewSelective (concerns.go) builds one whose own informer
// enqueues only the objects its Concerns accepts.
//
// EntityReconciler (reconciler.go; wired by NewEntityController in
// entitycontroller.go) takes an object through its life for every kind that
// maps to a Konnect entity. Each reconcile is a pass: it reads the object
// and its references into facts (facts.go), asks the pure decide
// (decide.go) for one action (action.go), with the controller's timing
// (sync period, grace and quiet waits), and carries it out: create and
// update (execute.go), delete and finalizers (finalize.go), entities
// Konnect provisions in the background (async.go), the day-2 policies of
// the deletion-policy, reconcile-policy and protected annotations
// (policies.go). One record per object (record.go), kept in the
// controller's memory (memory.go), holds what the controller remembers
// between passes.
//
// An object whose status holds no ID looks for the entity it may already
// have before it creates one (recoverylookup.go), in the listed entities
// no object stands for (recoveryindex.go); what it finds it takes back or, when
// the entity is another's, refuses with a message that says whose
// (takebackorrefuse.go). spec.adopt takes an entity over on purpose
// (specadopt.go).
//
// In the list mode of drift detection (drift.go) a lister per kind lists
// each listing scope once per sync period (lister.go), with credentials its
// members resolve to at that moment (listerplacement.go), one listing per
// organisation at a time (listerorgs.go), and compares the entities with
// the snapshots of the operator's last writes (snapshot.go); the memory
// indexes the records by listing scope for it (listerrecords.go).
//
// What differs per kind is data: a Kind (kind.go) says how its spec becomes
// a Konnect entity, which calls create, update, list and delete it, and how
// an existing entity is compared; a Resolution (placement.go) says where
// the entity lives in Konnect (its Placement), or why it cannot be written
// yet. The package also holds
// the conditions and Events it writes (conditions.go, readiness.go,
// report.go, warnings.go), the writes of status and finalizers to the
// cluster (objectwrites.go), the entity tags that carry an object's
// identity (tags.go), and the answers about objects in other shards
// (shards.go).
package controller
