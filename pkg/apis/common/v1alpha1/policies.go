package v1alpha1

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The operator's day-2 controls. They are annotations, so that Kong
// Operator's manifests apply unchanged; operator-wide defaults come from its
// flags (--default-deletion-policy, --default-reconcile-policy).
const (
	// AnnotationDeletionPolicy says what deleting the object does to its
	// Konnect entity: DeletionPolicyDelete or DeletionPolicyOrphan.
	AnnotationDeletionPolicy = "konnect.konghq.com/deletion-policy"
	// AnnotationReconcilePolicy says how the operator keeps the entity
	// equal to the object: ReconcilePolicyEnforce, ReconcilePolicyReport
	// or ReconcilePolicyPause.
	AnnotationReconcilePolicy = "konnect.konghq.com/reconcile-policy"
	// AnnotationProtected, "true", refuses the object's deletion at
	// admission; a namespace deleted whole leaves its entity in Konnect.
	AnnotationProtected = "konnect.konghq.com/protected"
)

// DeletionPolicy is what deleting an object does to its entity.
type DeletionPolicy string

// Deletion policies.
const (
	// DeletionPolicyDelete deletes the entity from Konnect (the default).
	DeletionPolicyDelete DeletionPolicy = "delete"
	// DeletionPolicyOrphan leaves the entity in Konnect, untouched, and
	// releases the object at once. A control plane's entities stay with it.
	DeletionPolicyOrphan DeletionPolicy = "orphan"
)

// DeletionPolicies are the accepted deletion policies.
var DeletionPolicies = []DeletionPolicy{DeletionPolicyDelete, DeletionPolicyOrphan}

// ReconcilePolicy is how the operator keeps an entity equal to its object.
type ReconcilePolicy string

// Reconcile policies.
const (
	// ReconcilePolicyEnforce writes the object's spec and overwrites changes
	// made in Konnect within one sync period (the default).
	ReconcilePolicyEnforce ReconcilePolicy = "enforce"
	// ReconcilePolicyReport writes the object's spec but only reports
	// changes made in Konnect (condition Drifted) instead of overwriting
	// them.
	ReconcilePolicyReport ReconcilePolicy = "report"
	// ReconcilePolicyPause makes no Konnect call for the object at all,
	// whatever changes, until the policy changes again.
	ReconcilePolicyPause ReconcilePolicy = "pause"
)

// ReconcilePolicies are the accepted reconcile policies.
var ReconcilePolicies = []ReconcilePolicy{ReconcilePolicyEnforce, ReconcilePolicyReport, ReconcilePolicyPause}

// Conditions and reasons of the day-2 controls.
const (
	// ConditionPaused is True while the reconcile policy pauses the object.
	ConditionPaused = "Paused"
	// ConditionDrifted says, under the report policy, whether Konnect holds
	// something else than the operator last wrote.
	ConditionDrifted = "Drifted"

	// ReasonPaused: the reconcile policy pause stops every Konnect call of
	// the object (Paused=True).
	ReasonPaused = "Paused"
	// ReasonDriftReported: under the report policy, the entity was changed
	// in Konnect outside the cluster (Drifted=True names the fields).
	ReasonDriftReported = "ChangedInKonnect"
	// ReasonMissingInKonnect: under the report policy, the entity is gone
	// from Konnect (Drifted=True).
	ReasonMissingInKonnect = "MissingInKonnect"
	// ReasonInSync: Konnect holds what the operator last wrote
	// (Drifted=False).
	ReasonInSync = "InSync"
	// ReasonInvalidPolicy: a policy annotation holds a value the operator
	// does not know; nothing is done until it is fixed.
	ReasonInvalidPolicy = "InvalidPolicy"
	// ReasonOwnedByOtherCluster: the entity names another cluster's
	// identity (the k8s-cluster tag); it is never written or deleted from
	// here.
	ReasonOwnedByOtherCluster = "OwnedByAnotherCluster"
)

// PolicyDefaults are the operator-wide policies of objects that do not
// name one.
//
// +k8s:deepcopy-gen=false
type PolicyDefaults struct {
	Deletion  DeletionPolicy
	Reconcile ReconcilePolicy
}

// Policies are one object's day-2 controls, as its annotations and the
// defaults decide them.
//
// +k8s:deepcopy-gen=false
type Policies struct {
	Deletion  DeletionPolicy
	Reconcile ReconcilePolicy
	// DeletionSet says that the object names its deletion policy itself
	// (children of a control plane that does not inherit its policy).
	DeletionSet bool
	Protected   bool
	// Invalid, when set, says which annotation holds a value the operator
	// does not know, and what it accepts: the object is left alone until
	// it is fixed.
	Invalid string
}

// PoliciesOf reads obj's day-2 annotations over the defaults.
func PoliciesOf(obj metav1.Object, defaults PolicyDefaults) Policies {
	p := Policies{Deletion: defaults.Deletion, Reconcile: defaults.Reconcile}
	if p.Deletion == "" {
		p.Deletion = DeletionPolicyDelete
	}
	if p.Reconcile == "" {
		p.Reconcile = ReconcilePolicyEnforce
	}
	annotations := obj.GetAnnotations()
	if v, ok := annotations[AnnotationDeletionPolicy]; ok {
		if !slices.Contains(DeletionPolicies, DeletionPolicy(v)) {
			p.Invalid = invalid(AnnotationDeletionPolicy, v, DeletionPolicies)
		}
		p.Deletion, p.DeletionSet = DeletionPolicy(v), true
	}
	if v, ok := annotations[AnnotationReconcilePolicy]; ok {
		if !slices.Contains(ReconcilePolicies, ReconcilePolicy(v)) {
			p.Invalid = invalid(AnnotationReconcilePolicy, v, ReconcilePolicies)
		}
		p.Reconcile = ReconcilePolicy(v)
	}
	p.Protected = annotations[AnnotationProtected] == "true"
	return p
}

func invalid[P ~string](annotation, value string, accepted []P) string {
	names := make([]string, len(accepted))
	for i, a := range accepted {
		names[i] = string(a)
	}
	return fmt.Sprintf("annotation %s is %q; it must be one of %s", annotation, value, strings.Join(names, ", "))
}
