package entities

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// EventServerNotAllowed is the reason of the Warning Event of a
// configuration whose server is not among the allowed hosts.
const EventServerNotAllowed = "ServerNotAllowed"

// validate checks the token and fills in obj's status. It returns the
// Warning Event that goes with a failure. Nothing is sent before the
// server is found among the allowed hosts and the token is read as every
// other use reads it (a Secret of another namespace only under a grant,
// and only with the token label); what it proves is recorded in the
// Validations that every other use of the token consults.
func (r *AuthConfigReconciler) validate(ctx context.Context, obj authConfig) (controller.Result, *warning, error) {
	serverURL, err := r.Refs.allowedServer(obj.Spec.ServerURL)
	if err != nil {
		reason, message := EventTokenInvalid, err.Error()
		var notAllowed *konnect.NotAllowedError
		var invalid *konnect.InvalidInputError
		switch {
		case errors.As(err, &notAllowed):
			reason = EventServerNotAllowed
		case errors.As(err, &invalid):
			message = invalid.Message
		}
		r.invalid(obj, "", message)
		return controller.Result{}, &warning{reason: reason, message: message}, controller.Permanent(err, 0)
	}
	obj.Status.ServerURL = serverURL

	source := "Token"
	if ref := obj.Spec.SecretRef; obj.Spec.Type == konnectv1alpha1.KonnectAPIAuthTypeSecretRef && ref != nil {
		namespace := namespaceOr(ref.Namespace, obj.Namespace)
		source = fmt.Sprintf("Token from Secret %s/%s", namespace, ref.Name)
		if namespace != obj.Namespace {
			from := authConfigReferrer(obj)
			if !r.Refs.permitted(from, groupCore, kindSecret, namespace, ref.Name) {
				message := (&secretNotPermittedError{grant: grantFor(from, groupCore, kindSecret, namespace, ref.Name)}).Error()
				controller.SetCondition(obj, controller.FalseCondition(commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonRefNotPermitted, message))
				r.invalid(obj, "", message)
				return controller.Result{}, &warning{reason: EventTokenUnavailable, message: message}, nil
			}
			controller.SetCondition(obj, controller.TrueCondition(commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonResolvedRefs, ""))
		} else {
			controller.RemoveCondition(obj, commonv1alpha1.ConditionResolvedRefs)
		}
		// Before the token is used: what uses it must be able to delete.
		if err := r.Refs.protectTokenSecret(ctx, namespace, ref.Name); err != nil {
			return controller.Result{}, nil, err
		}
	} else {
		controller.RemoveCondition(obj, commonv1alpha1.ConditionResolvedRefs)
	}

	token, err := r.Refs.token(obj)
	if err != nil {
		// The Secret's own changes enqueue the configuration again.
		err = r.Refs.explainUncached(ctx, err)
		r.invalid(obj, "", err.Error())
		reason := EventTokenUnavailable
		if errors.Is(err, errTokenInvalid) {
			reason = EventTokenInvalid
		}
		return controller.Result{}, &warning{reason: reason, message: err.Error(), waits: secretAbsent(err)}, nil
	}

	s := subjectOf(obj, serverURL, token)
	now := r.Clock.Now()
	if proof, ok := r.Refs.Validations.current(s); ok && proof.rejection == nil && controller.IsConditionTrue(obj.Status.Conditions, commonv1alpha1.ConditionAPIAuthValid) {
		if wait := r.SyncPeriod - now.Sub(proof.at); wait > 0 {
			// This token was proven valid on this server a moment ago
			// (here, or by its first use); the spec may still have
			// changed (another Secret holding it).
			obj.Status.OrganizationID = proof.orgID
			controller.SetCondition(obj, controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, source+" is valid"))
			return controller.Result{RequeueAfter: wait}, nil, nil
		}
	}
	proof, err := r.Refs.Validations.validate(ctx, s, token)
	if err != nil {
		return r.validationFailed(obj, serverURL, err)
	}
	wasValid := controller.IsConditionTrue(obj.Status.Conditions, commonv1alpha1.ConditionAPIAuthValid)
	obj.Status.OrganizationID = proof.orgID
	controller.SetCondition(obj, controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, source+" is valid"))
	if !wasValid {
		r.Recorder.Eventf(obj, corev1.EventTypeNormal, EventTokenValid, "%s is valid for organisation %s", source, proof.orgID)
	}
	return controller.Result{RequeueAfter: r.SyncPeriod}, nil, nil
}

// validationFailed reports what Konnect's answer (or its silence) says of
// the token.
func (r *AuthConfigReconciler) validationFailed(obj authConfig, serverURL string, err error) (controller.Result, *warning, error) {
	if refused := (*konnect.InvalidInputError)(nil); errors.As(err, &refused) && refused.StatusCode == 0 {
		// Refused before anything was sent: only a change can fix it.
		r.invalid(obj, obj.Status.OrganizationID, err.Error())
		return controller.Result{}, &warning{reason: EventTokenInvalid, message: err.Error()}, controller.Permanent(err, 0)
	}
	if delay, limited := konnect.IsRateLimited(err); limited {
		return controller.Result{}, nil, &controller.RateLimitedError{Delay: delay, Err: err}
	}
	if konnect.IsAuth(err) {
		message := "Konnect rejected the token: " + err.Error()
		r.invalid(obj, "", message)
		return controller.Result{}, &warning{reason: EventTokenInvalid, message: message}, controller.Permanent(err, r.SyncPeriod)
	}
	// Konnect did not answer (or answered 5xx): nothing is known about the
	// token. A configuration that was valid stays so meanwhile; its uses
	// still need this very token proven before they send it.
	if !controller.IsConditionTrue(obj.Status.Conditions, commonv1alpha1.ConditionAPIAuthValid) {
		message := fmt.Sprintf("could not ask Konnect at %s whether the token is valid (retrying): %v", serverURL, err)
		obj.Status.OrganizationID = ""
		controller.SetCondition(obj, controller.Condition(commonv1alpha1.ConditionAPIAuthValid, metav1.ConditionUnknown, commonv1alpha1.ReasonKonnectAPIOpFailed, message))
		return controller.Result{}, &warning{reason: EventKonnectAPIOpFailed, message: message}, err
	}
	return controller.Result{}, nil, err
}

// invalid marks obj's token unusable; its record goes, so that no use of
// the token can go on before its status says so.
func (r *AuthConfigReconciler) invalid(obj authConfig, orgID, message string) {
	r.Refs.Validations.forget(cache.MetaObjectToName(obj))
	obj.Status.OrganizationID = orgID
	controller.SetCondition(obj, controller.FalseCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, message))
}
