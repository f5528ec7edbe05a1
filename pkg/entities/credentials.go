package entities

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Every token the operator sends comes out of credentials, for every
// purpose alike (sync, status, deletion, the drift lister's listings,
// comparisons of kubectl konnect diff): a reference across namespaces is
// authorised by its grant when it is used, never only when it was first
// resolved, and a token goes only to the server it was proven valid
// against, while that proof holds. What is refused sends nothing; a
// deletion it refuses keeps its object and says so (controller.ReasonCannotDelete).

// authConfigNotValidError is a configuration whose APIAuthValid condition
// is not True: its own controller found the token unusable, or has not
// checked it yet.
type authConfigNotValidError struct {
	message  string
	refState controller.RefState
}

func (e *authConfigNotValidError) Error() string { return e.message }

// tokenRejectedError is a token that Konnect rejected when the operator
// proved it before use.
type tokenRejectedError struct{ err error }

func (e *tokenRejectedError) Error() string { return "Konnect rejected the token: " + e.err.Error() }
func (e *tokenRejectedError) Unwrap() error { return e.err }

// credentials returns what a Konnect call needs from ac, now: the
// configuration is valid (its own controller says so), its server is among
// the allowed hosts, its token can be read (a Secret of another namespace
// only under a grant, and only with the token label), and this very token
// was proven valid on this server for this generation of ac — if not, it
// is proven now, before anything else uses it.
func (r *Refs) credentials(ctx context.Context, ac authConfig) (controller.Auth, error) {
	what := fmt.Sprintf("%s %s/%s", kindAuthConfig, ac.Namespace, ac.Name)
	valid := meta.FindStatusCondition(ac.Status.Conditions, commonv1alpha1.ConditionAPIAuthValid)
	if valid == nil || valid.Status != metav1.ConditionTrue {
		message := what + " has not been validated yet"
		switch {
		case valid != nil && valid.Status == metav1.ConditionUnknown && valid.Message != "":
			message = what + " could not be validated yet: " + valid.Message
		case valid != nil && valid.Message != "":
			message = what + " is not valid: " + valid.Message
		}
		// A token Konnect rejects blocks everything that uses it.
		return controller.Auth{}, &authConfigNotValidError{message: message, refState: controller.RefStateOf(ac.Status.Conditions)}
	}
	serverURL, err := r.allowedServer(ac.Spec.ServerURL)
	if err != nil {
		return controller.Auth{}, err
	}
	token, err := r.token(ac)
	if err != nil {
		return controller.Auth{}, err
	}
	s := subjectOf(ac, serverURL, token)
	proof, ok := r.Validations.current(s)
	if ok && proof.rejection != nil {
		return controller.Auth{}, &tokenRejectedError{err: proof.rejection}
	}
	if !ok {
		if proof, err = r.Validations.validate(ctx, s, token); err != nil {
			if konnect.IsAuth(err) || konnect.IsInvalidInput(err) {
				return controller.Auth{}, &tokenRejectedError{err: err}
			}
			return controller.Auth{}, err
		}
	}
	return controller.Auth{ServerURL: serverURL, Token: token, OrgID: proof.orgID}, nil
}

// allowedServer normalises a configuration's server URL and checks it
// against the hosts tokens may go to.
func (r *Refs) allowedServer(raw string) (string, error) {
	serverURL, err := konnect.NormalizeServerURL(raw)
	if err != nil {
		return "", &konnect.InvalidInputError{Operation: "connect", Message: err.Error()}
	}
	if !r.AllowedHosts.Allows(serverURL) {
		return "", &konnect.NotAllowedError{ServerURL: serverURL, Allowed: r.AllowedHosts, Setting: AllowedHostsSetting}
	}
	return serverURL, nil
}

// AllowedHostsSetting names, in messages, what lets tokens go to more
// hosts.
const AllowedHostsSetting = "the operator's --konnect-allowed-hosts flag (chart value konnect.allowedHosts)"

// auth resolves the KonnectAPIAuthConfiguration of a control plane and its
// credentials, and sets APIAuthResolvedRef and APIAuthValid. Objects
// placed in the control plane use the same: the control plane's reference
// is authorised for them as for it.
func (r *Refs) auth(b *resolver, cp *konnectv1alpha2.KonnectGatewayControlPlane) controller.Auth {
	return r.authOf(b, referrer{group: groupKonnect, kind: kindControlPlane, namespace: cp.Namespace}, cp.Name, cp.Spec.Konnect)
}

// authOf resolves the KonnectAPIAuthConfiguration that konnectConfig (the
// spec.konnect of the object name, of from's kind and namespace) names,
// and its credentials, as auth does for control planes. A reference to
// another namespace needs a KongReferenceGrant there, whatever the
// purpose: deleting uses the token as much as syncing does.
func (r *Refs) authOf(b *resolver, from referrer, name string, konnectConfig *konnectv1alpha2.KonnectConfiguration) controller.Auth {
	if konnectConfig == nil || konnectConfig.AuthRef.Name == "" {
		b.refuse(commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ReasonRefInvalid,
			"%s %s/%s has no spec.konnect.authRef", from.kind, from.namespace, name)
		return controller.Auth{}
	}
	ref := konnectConfig.AuthRef
	namespace := from.namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		namespace = *ref.Namespace
	}
	what := fmt.Sprintf("%s %s/%s", kindAuthConfig, namespace, ref.Name)
	if !r.permitted(from, groupKonnect, kindAuthConfig, namespace, ref.Name) {
		b.refuse(commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ReasonRefNotPermitted,
			"no KongReferenceGrant allows the reference to %s", grantFor(from, groupKonnect, kindAuthConfig, namespace, ref.Name))
		return controller.Auth{}
	}
	ac, err := r.AuthConfigs.Get(namespace, ref.Name)
	if err != nil {
		absent(b, r.AuthConfigs, commonv1alpha1.ConditionAPIAuthResolvedRef, what, namespace, ref.Name, func() {
			b.invalid(commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ReasonRefNotFound, "%s not found", what)
		})
		return controller.Auth{}
	}
	b.set(controller.TrueCondition(commonv1alpha1.ConditionAPIAuthResolvedRef, commonv1alpha1.ReasonResolvedRef, what))
	auth, err := r.credentials(b.ctx, ac)
	if err == nil {
		b.set(controller.TrueCondition(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonValid, what+" is valid"))
		return auth
	}
	reportCredentials(b, what, err)
	return controller.Auth{}
}

// reportCredentials sets APIAuthValid for credentials that cannot be used,
// and how the object waits for them.
func reportCredentials(b *resolver, what string, err error) {
	var notValid *authConfigNotValidError
	var notPermitted *secretNotPermittedError
	var notAllowed *konnect.NotAllowedError
	var rejected *tokenRejectedError
	switch {
	case errors.As(err, &notValid):
		b.invalid(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, "%s", notValid.message)
		b.refStateAt(notValid.refState)
	case errors.As(err, &rejected):
		b.invalid(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, "%s: %v", what, err)
		b.refStateAt(controller.RefBlocked)
	case errors.As(err, &notPermitted), errors.As(err, &notAllowed), konnect.IsInvalidInput(err):
		// Only a change of the configuration, or a grant, helps.
		b.refuse(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, "%s: %v", what, err)
	case errors.Is(err, errTokenUnavailable), errors.Is(err, errTokenInvalid):
		// The configuration's own controller explains a missing Secret;
		// this reads nothing past the cache for each object.
		b.invalid(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, "%s: %v", what, err)
	default:
		// Konnect could not be asked whether the token is valid: nothing is
		// sent with it until it has been, and the object tries again.
		b.invalid(commonv1alpha1.ConditionAPIAuthValid, commonv1alpha1.ReasonInvalid, "%s could not be validated with Konnect yet: %v", what, err)
		if b.err == nil {
			if delay, limited := konnect.IsRateLimited(err); limited {
				b.err = &controller.RateLimitedError{Delay: delay, Err: err}
			} else {
				b.err = fmt.Errorf("validating the token of %s: %w", what, err)
			}
		}
	}
}
