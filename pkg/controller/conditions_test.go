package controller

import (
	"strings"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

func TestNotProgrammedCauseNamesTheRootCause(t *testing.T) {
	authInvalid := FalseCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid,
		"KonnectAPIAuthConfiguration demo/auth is not valid: token rejected")
	for _, tc := range []struct {
		name       string
		conditions []metav1.Condition
		want       string
	}{
		{name: "no verdict yet", want: ""},
		{name: "Programmed", conditions: []metav1.Condition{TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, "")}, want: ""},
		{
			name: "its own failure",
			conditions: []metav1.Condition{
				FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonFailedToCreate, "create service: invalid input (HTTP 400): host: invalid value"),
			},
			want: "create service: invalid input (HTTP 400): host: invalid value",
		},
		{
			name: "waiting for its references: their messages, without the condition types",
			conditions: []metav1.Condition{
				authInvalid,
				FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonConditionWithStatusFalseExists, "APIAuthValid: "+authInvalid.Message),
				TrueCondition(commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ReasonResolvedRef, "KonnectAPIAuthConfiguration demo/auth"),
			},
			want: authInvalid.Message,
		},
		{
			name: "blocked by its references, with the readiness conditions derived from Programmed left out",
			conditions: []metav1.Condition{
				authInvalid,
				FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonBlockedByReference, "APIAuthValid: "+authInvalid.Message),
				FalseCondition(commonv1alpha1.ConditionReady, commonv1alpha1.ReasonBlockedByReference, "APIAuthValid: "+authInvalid.Message),
				TrueCondition(commonv1alpha1.ConditionStalled, commonv1alpha1.ReasonBlockedByReference, "APIAuthValid: "+authInvalid.Message),
			},
			want: authInvalid.Message,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NotProgrammedCause(tc.conditions); got != tc.want {
				t.Fatalf("cause %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSetConditionShortensMessagesTheAPIServerWouldRefuse(t *testing.T) {
	obj := &configurationv1alpha1.KongService{}
	long := strings.Repeat("é", maxConditionMessage) // two bytes each
	SetCondition(obj, FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonFailedToCreate, long))
	got := obj.GetConditions()[0].Message
	if len(got) > maxConditionMessage || !strings.HasSuffix(got, truncated) || !utf8.ValidString(got) {
		t.Fatalf("message of %d bytes (valid UTF-8: %v), want at most %d ending in %q", len(got), utf8.ValidString(got), maxConditionMessage, truncated)
	}
}

func TestFalseConditionsMessageLeavesOutWhatIsDerivedFromProgrammed(t *testing.T) {
	conditions := []metav1.Condition{
		FalseCondition(commonv1alpha1.ConditionKongServiceRefValid, commonv1alpha1.ReasonInvalid, "KongService ns/orders not found"),
		FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonWaitingForReferences, "KongServiceRefValid: KongService ns/orders not found"),
		FalseCondition(commonv1alpha1.ConditionReady, commonv1alpha1.ReasonWaitingForReferences, "KongServiceRefValid: KongService ns/orders not found"),
	}
	// Quoting Ready (or Programmed) would grow the message by a copy of
	// itself on every reconcile.
	if got, want := falseConditionsMessage(conditions), "KongServiceRefValid: KongService ns/orders not found"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
}
