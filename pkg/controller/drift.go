package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// Drift detection modes (--drift-detection).
const (
	// DriftList finds drift by listing each control plane's entities once
	// per sync period and writes only those that differ from what the
	// operator last wrote, or are missing. The default.
	DriftList = "list"
	// DriftUpdate writes every entity again every sync period, without
	// reading it first: a change made outside the cluster is overwritten
	// without being seen.
	DriftUpdate = "update"
)

// DriftModes are the accepted values of --drift-detection.
var DriftModes = []string{DriftList, DriftUpdate}

// EventDriftCorrected is the reason of the Event that reports an entity
// written again because Konnect had something else.
const EventDriftCorrected = "DriftCorrected"

// ReasonListingRefused is the reason of the condition Drifted=Unknown, and
// of its Warning Event, while the listing that finds an entity's drift is
// refused as the server's fault (konnect.ServerFaultError: an answer too
// large, a listing that does not end): drift can be neither found nor
// ruled out.
const ReasonListingRefused = "ListingRefused"

// driftCause says why the lister wants an object written.
type driftCause int

const (
	// driftChanged: the listed entity differs from the last write (or,
	// with no snapshot, from the spec) in the named fields.
	driftChanged driftCause = iota + 1
	// driftMissing: the listing does not show the entity (deleted, or its
	// identity tags were removed).
	driftMissing
	// driftUnknown: no snapshot and the kind cannot compare the listed
	// entity with the spec: one write takes the snapshot. Not a drift.
	driftUnknown
	// driftInSync: the entity whose drift was reported (report policy)
	// equals the last write again.
	driftInSync
	// driftForeign: another cluster's operator owns the entity (fields
	// holds its cluster identity).
	driftForeign
	// driftOwned: the entity taken for another cluster's is no longer so.
	driftOwned
)

// driftMark is the lister's request to write an object's entity again.
type driftMark struct {
	uid    types.UID
	cause  driftCause
	fields []string
	// seq numbers the mark (memory.mark), so that a reconcile clears the
	// mark it acted on and no later one.
	seq uint64
}

// counts reports whether the write corrects drift (counted and reported).
func (m driftMark) counts() bool { return m.cause == driftChanged || m.cause == driftMissing }

// describe says what drifted, naming fields, never their values.
func (m driftMark) describe() string {
	if m.cause == driftMissing {
		return "was missing from Konnect (deleted, or its identity tags removed there)"
	}
	return fmt.Sprintf("was changed in Konnect outside the cluster (fields: %s)", strings.Join(m.fields, ", "))
}

// owner is the cluster identity a driftForeign mark names.
func (m driftMark) owner() string {
	if m.cause != driftForeign || len(m.fields) == 0 {
		return ""
	}
	return m.fields[0]
}

// scopeOf names what one listing covers: the entity's control plane; for
// an entity of the newer APIs that belongs to a parent outside control
// planes (a portal's page), the parent; otherwise (a control plane, a
// portal) its organisation as the credentials see it (another token may
// see other entities). The token is in the name only as a hash, which is
// never logged.
func scopeOf(p Placement) string {
	if p.ControlPlaneID != "" {
		return p.ControlPlaneID
	}
	token := sha256.Sum256([]byte(p.Auth.Token))
	organization := "organization " + p.Auth.OrgID + " at " + p.Auth.ServerURL + " as " + hex.EncodeToString(token[:8])
	if p.ParentID != "" {
		return "parent " + p.ParentID + " in " + organization
	}
	return organization
}
