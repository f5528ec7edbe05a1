package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Auth is what a Konnect call needs from a KonnectAPIAuthConfiguration.
// Token must never be logged.
type Auth struct {
	ServerURL string
	Token     string
	OrgID     string
}

// Placement says where an entity lives in Konnect.
type Placement struct {
	Auth Auth
	// ControlPlaneID is the Konnect ID of the entity's control plane; empty
	// for a control plane itself.
	ControlPlaneID string
	// ParentID is the Konnect ID of the entity the entity belongs to: a
	// route's service, a target's upstream, an SNI's certificate, a
	// credential's consumer, a key's key set. Empty when there is none.
	ParentID string
	// GrandparentID is the Konnect ID of the parent's own parent, for an
	// entity whose API path names both (an event gateway listener's
	// policy: the gateway, then the listener). Empty otherwise.
	GrandparentID string
	// Cluster is the identity of the cluster whose operator writes the
	// entity: the k8s-cluster tag (or control-plane label) of the body
	// Kind.Desired builds. Resolve leaves it empty; the reconciler sets
	// it. Empty writes no such tag.
	Cluster string
}

// Purpose says why references are resolved.
type Purpose int

const (
	// ForSync resolves references to create or update the entity: every
	// reference must exist, not be deleting, be Programmed and be permitted.
	ForSync Purpose = iota
	// ForDelete resolves only what a delete call needs (the control plane,
	// the parent's Konnect ID and the credentials), from objects that may
	// themselves be deleting. Grants are not enforced.
	ForDelete
)

// Resolution is the outcome of resolving an object's references.
type Resolution struct {
	// Placement is where the entity lives, when Ready.
	Placement Placement
	// Ready is true when every reference is usable and Konnect may be
	// called.
	Ready bool
	// Gone is true, for ForDelete, when the object that held the entity in
	// Konnect (its control plane or its parent) no longer exists, so
	// Konnect has already deleted the entity with it.
	Gone bool
	// ParentGone is true, for ForSync, when the control plane or parent
	// that the object refers to does not exist: an entity recorded in the
	// status went with it.
	ParentGone bool
	// ParentOrphans is true, for ForDelete, when the object's control plane
	// is deleted and stays in Konnect (the orphan deletion policy, or
	// protected and deleted with its namespace): so do its entities, unless
	// their own objects say otherwise.
	ParentOrphans bool
	// Waiting says, for ForSync, when an object that is not Ready may have
	// nothing wrong with it yet: see Wait.
	Waiting Wait
	// RefState says, for ForSync, the state of the references of an object
	// that is not Ready (what it needs to go on), and so the reason of its
	// Programmed=False: see RefState.
	RefState RefState
	// Conditions are the reference conditions (True or False) to set on the
	// object. Condition types of Kind.Conditions that are missing are
	// removed from the status.
	Conditions []metav1.Condition
}

// Wait says why an object whose references are not ready may still be
// fine: on a first apply, objects come before or with what they refer to.
type Wait int

const (
	// NoWait: something is wrong (a reference refused, invalid, being
	// deleted, or failed on its own): say so.
	NoWait Wait = iota
	// WaitMissing: references are not found, and nothing else is wrong; a
	// new object's may be on their way.
	WaitMissing
	// WaitProgress: the references exist and are on their way to Konnect
	// (not Programmed yet, without a failure of their own).
	WaitProgress
	// WaitRead: objects the references name are being read for the first
	// time (the watch of one named object just started), and nothing else
	// is wrong. Their answer reconciles the object again; until then there
	// is nothing to report, however old the object.
	WaitRead
	// WaitShard: references exist, but in another shard, and nothing else
	// is wrong. A tree of objects moves between shards one object at a
	// time; until the move is over, saying so would cost a status write,
	// and a Konnect write in the shard that takes the object next.
	WaitShard
)

// RefState is the state of the references of an object when some are not
// usable: it says what the object needs before it can go on, nothing but
// time, a change of a reference, or a change of its own. The more severe
// state wins when several references fail.
type RefState int

const (
	// RefWaiting: the references may still come right by themselves: they
	// do not exist yet, are on their way to Konnect, are being deleted, or
	// fail for a while (their failures are retried).
	RefWaiting RefState = iota
	// RefBlocked: a reference failed and cannot progress without a change
	// of its own (it is Stalled): a control plane whose auth configuration
	// holds a token Konnect rejects.
	RefBlocked
	// RefRefused: a reference is refused or invalid as the object names
	// it: only a change of the object, or a KongReferenceGrant, fixes it.
	RefRefused
)

// ClientSource hands out Konnect's API, one client per server URL and
// token, reused.
type ClientSource interface {
	API(serverURL, token string) (konnect.API, error)
}
